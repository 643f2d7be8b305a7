"""lore: shared, reviewed memory for a team's AI coding agents.

The hot path: `lore recall` and the agent hooks run as fresh processes many times a
session, so the modules they load import nothing they do not use at start-up — no
GitPython, rich, YAML or TOML, and not `typing`, `dataclasses`, `subprocess` or
`argparse` (a few milliseconds each). Those modules write `TYPE_CHECKING = False` and
put type-only imports under `if TYPE_CHECKING:` (mypy reads the block; Python skips
it), and import heavier modules inside the function that needs them. Where such lazy
imports are kept, and why, is said once in docs/performance.md ("Where lazy imports
are kept"); tests/test_architecture.py checks it. Everywhere else, plain code wins.
"""

__version__ = "0.1.0"

# Where lore is published: the GitHub repository of the gh extension and of the Action
# (action.yml), as OWNER/NAME. Its owner is not decided yet, so OWNER stands for it here
# and in pyproject.toml's [project.urls] (a test keeps the two equal); every doc that
# shows OWNER says what to put there: the account that hosts your copy of gh-lore.
HOME_REPOSITORY = "OWNER/gh-lore"
