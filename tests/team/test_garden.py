"""The gardener: a real vault on a local bare remote, with one of each kind of mess.

The fake `gh` (tests/team/conftest.py) stands in for GitHub's API; git is real. The
gardener's branch is diffed against main to show it fixes each item and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.errors import ProposalError
from lore.taxonomy import parse_taxonomy
from lore.team.garden import audit, propose_garden
from lore.team.proposals.changes import resume_change
from tests.support import git, note_text, proposal_worktree
from tests.team.conftest import PR_URL, FakeGh, Remote, snapshot

BRANCH = "lore/garden-2026-11-02"
EXPIRED = "billing--old-refund-flag--2026-01-01"
OLD = "billing--tests-use-testclient--2026-01-05"
NEW = "billing--tests-use-httpx--2026-02-01"
RECENT_OLD = "web--build-with-webpack--2026-10-01"
RECENT_NEW = "web--build-with-vite--2026-10-30"
DEPENDENT = "billing--refund-flag-in-tests--2026-01-02"
RENAMED_FROM = "auth--token-ttl--2026-03-01"
RENAMED_TO = "auth--token-lifetime--2026-03-01"
LINKER = "auth--session-refresh--2026-03-02"
SHAKY = "billing--ledger-rounding--2026-01-10"
USED_TAGS = {"service/billing", "tool/httpx", "pattern/testing", "service/auth", "service/web"}


def _note(title: str, **extra: str) -> str:
    body = extra.pop("body", "## What\nA fact the team learned.\n")
    tags = extra.pop("tags", "[service/billing, tool/httpx, pattern/testing]")
    return note_text(title, tags=tags, body=body, **extra)


def _messy_vault(remote: Remote) -> None:
    work = remote.work()
    notes = work / "notes"
    files = {
        EXPIRED: _note("Refunds go through the old flag", date="2026-01-01", expires="2026-06-01"),
        OLD: _note("Billing tests use TestClient", date="2026-01-05"),
        NEW: _note("Billing tests use httpx", date="2026-02-01", supersedes=f"[{OLD}]"),
        RECENT_OLD: _note(
            "The web app builds with webpack", tags="[service/web]", date="2026-10-01"
        ),
        RECENT_NEW: _note(
            "The web app builds with vite",
            tags="[service/web]",
            date="2026-10-30",
            supersedes=f"[{RECENT_OLD}]",
        ),
        DEPENDENT: _note("Tests set the refund flag", date="2026-01-02", depends_on=f"[{EXPIRED}]"),
        RENAMED_FROM: _note(
            "Auth tokens live for an hour",
            tags="[service/auth]",
            date="2026-03-01",
            repo="payments-api",
        ),
        LINKER: _note(
            "Sessions refresh before the token ends",
            tags="[service/auth]",
            date="2026-03-02",
            body=f"## What\nRefresh early.\n\n## Related\n[[{RENAMED_FROM}]]\n"
            "[[auth--never-existed--2026-01-01]]\n\n```\n[[auth--in-code--2026-01-01]]\n```\n",
        ),
        SHAKY: _note("Ledger rounds half up", date="2026-01-10", confidence="low"),
    }
    for note_id, text in files.items():
        (notes / f"{note_id}.md").write_text(text, encoding="utf-8")
    # Every unused entry may go here, even the template's and new ones (the default
    # spares those: tests/team/test_garden_young_vault.py).
    (work / "lore.toml").write_text(
        "[garden]\nkeep_template_taxonomy = false\nkeep_new_taxonomy_days = 0\n", encoding="utf-8"
    )
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "notes")
    git(work, "mv", f"notes/{RENAMED_FROM}.md", f"notes/{RENAMED_TO}.md")
    git(work, "commit", "-q", "-m", "rename a note")
    git(work, "push", "-q", "origin", "main")


@pytest.fixture
def messy(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    _messy_vault(remote)
    return clone_of()


def test_the_audit_finds_each_kind(messy: Path) -> None:
    plan = audit(messy)
    kinds = {(item.kind, item.path) for item in plan.items}
    assert ("expired", f"notes/{EXPIRED}.md") in kinds
    assert ("superseded", f"notes/{OLD}.md") in kinds
    assert ("depends-on-inactive", f"notes/{DEPENDENT}.md") in kinds
    assert ("link-fixed", f"notes/{LINKER}.md") in kinds
    assert ("link-broken", f"notes/{LINKER}.md") in kinds
    assert ("low-confidence", f"notes/{SHAKY}.md") in kinds
    # superseded only four days ago: it stays until archive_superseded_after_days
    assert not [item for item in plan.items if item.path == f"notes/{RECENT_OLD}.md"]
    assert plan.moves == {
        f"notes/{note_id}.md": f"archive/{note_id}.md" for note_id in (EXPIRED, OLD, DEPENDENT)
    }


def test_the_branch_fixes_each_item_and_nothing_else(
    messy: Path, remote: Remote, fake_gh: FakeGh
) -> None:
    before = snapshot(messy)
    outcome = propose_garden(messy, audit(messy))
    assert outcome is not None and outcome.pr_url == PR_URL
    assert snapshot(messy) == before  # the user's checkout is untouched
    assert BRANCH in remote.branches()

    changes = git(remote.bare, "diff", "--name-status", "-M", "main", BRANCH).splitlines()
    assert sorted(changes) == sorted(
        [
            *(f"R100\tnotes/{nid}.md\tarchive/{nid}.md" for nid in (EXPIRED, OLD, DEPENDENT)),
            f"M\tnotes/{LINKER}.md",
            "M\t_taxonomy.md",
        ]
    )
    link_diff = git(remote.bare, "diff", "-U0", "main", BRANCH, "--", f"notes/{LINKER}.md")
    assert [
        line for line in link_diff.splitlines() if line[:1] in "+-" and line[:3] not in "---+++"
    ] == [
        f"-[[{RENAMED_FROM}]]",
        f"+[[{RENAMED_TO}]]",
    ]
    old_taxonomy = parse_taxonomy(git(remote.bare, "show", "main:_taxonomy.md"))
    new_taxonomy = parse_taxonomy(git(remote.bare, "show", f"{BRANCH}:_taxonomy.md"))
    assert set(new_taxonomy.tags) == USED_TAGS
    assert set(new_taxonomy.repos) == {"payments-api"}
    assert set(new_taxonomy.types) == set(old_taxonomy.types)
    tax_diff = git(remote.bare, "diff", "-U0", "main", BRANCH, "--", "_taxonomy.md")
    assert not [
        line for line in tax_diff.splitlines() if line.startswith("+") and line[:3] != "+++"
    ]

    (create,) = fake_gh.calls_to("pr", "create")
    assert create[create.index("--head") + 1] == BRANCH
    body = create[create.index("--body") + 1]
    assert SHAKY in body and "auth--never-existed--2026-01-01" in body
    assert not (proposal_worktree(messy, "garden-2026-11-02")).exists()


def test_no_second_pull_request_while_one_is_open(
    messy: Path, remote: Remote, fake_gh: FakeGh
) -> None:
    assert propose_garden(messy, audit(messy)) is not None
    again = propose_garden(messy, audit(messy))
    assert again is not None and again.status == "pending" and again.branch == BRANCH
    assert len(fake_gh.calls_to("pr", "create")) == 1
    assert remote.branches() == ["lore/garden-2026-11-02", "main"]
    remote.merge(BRANCH)  # once merged, the next run starts from the cleaned vault
    plan = audit(messy)
    assert {item.kind for item in plan.items} == {"link-broken", "low-confidence"}
    assert propose_garden(messy, plan) is None


def test_a_failed_push_loses_nothing_and_resumes(
    messy: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = remote.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'pushes are closed' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    before = snapshot(messy)
    with pytest.raises(ProposalError) as caught:
        propose_garden(messy, audit(messy))
    assert "Nothing is lost" in (caught.value.fix or "")
    assert "lore garden --resume garden-2026-11-02" in (caught.value.fix or "")
    assert snapshot(messy) == before
    assert BRANCH not in remote.branches()
    committed = git(messy, "diff", "--name-status", "main", BRANCH).splitlines()
    assert len(committed) == 5  # 3 archived (renames), the link fix and the taxonomy
    assert not fake_gh.calls_to("pr", "create")
    capsys.readouterr()
    assert main(["proposals", "--vault", str(messy), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert [(row["id"], row["state"]) for row in rows] == [("garden-2026-11-02", "unfinished")]
    assert "`lore garden --resume garden-2026-11-02`" in rows[0]["next"]

    hook.unlink()
    outcome = resume_change(messy, "garden-2026-11-02")
    assert outcome.status == "opened"
    assert BRANCH in remote.branches()
    assert len(fake_gh.calls_to("pr", "create")) == 1


def test_a_tidy_vault_proposes_nothing(
    remote: Remote, clone_of: Callable[..., Path], fake_gh: FakeGh
) -> None:
    checkout = clone_of()
    plan = audit(checkout)  # a young vault: its unused entries are the template's or new
    assert plan.items == [] and propose_garden(checkout, plan) is None
    (checkout / "lore.toml").write_text(
        "[garden]\nkeep_template_taxonomy = false\nkeep_new_taxonomy_days = 0\n"
    )
    # lore.toml is read from the remote's default branch, not the checkout
    assert audit(checkout).items == []
    git(checkout, "add", "lore.toml")
    git(checkout, "commit", "-q", "-m", "settings")
    git(checkout, "push", "-q", "origin", "main")
    assert {item.kind for item in audit(checkout).items} == {"unused-taxonomy"}
    assert not fake_gh.calls_to("pr", "create")


def test_the_cli_reports_and_proposes(
    messy: Path, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["garden", "--vault", str(messy), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1 and data["proposal"] is None
    assert {item["kind"] for item in data["items"]} >= {"expired", "superseded", "link-fixed"}
    assert not fake_gh.calls_to("pr", "create")
    assert main(["garden", "--vault", str(messy), "--propose"]) == 0
    assert PR_URL in capsys.readouterr().out
