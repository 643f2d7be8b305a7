"""`lore completion SHELL`: a completion script for bash, zsh or fish, made from the parser.

The script comes from what argparse already knows — every command, option and choice
— through shtab, which reads an argparse parser and writes each shell's completion
code. shtab is imported here only, when a script is asked for: never on the recall or
hook paths.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

SHELLS = ("bash", "zsh", "fish")
NEEDS_WHOLE_PARSER = True  # `lore.cli.main` hands `run` the whole parser (`args.whole_parser`)

EPILOG = """\
install it once (a new shell then completes `lore` commands and options):
  bash   lore completion bash > ~/.local/share/bash-completion/completions/lore
         (or add `eval "$(lore completion bash)"` to ~/.bashrc)
  zsh    lore completion zsh > ~/.zfunc/_lore
         (with `fpath=(~/.zfunc $fpath); autoload -Uz compinit; compinit` in ~/.zshrc)
  fish   lore completion fish > ~/.config/fish/completions/lore.fish

Run it again after upgrading lore, so new commands and options complete too.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Print a shell completion script for lore's commands and options.",
        epilog=EPILOG,
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell: bash, zsh or fish")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import shtab

    parser = args.whole_parser()
    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    return 0
