"""A file where lore's state folder goes (`<git dir>/lore`): every command says so the same way.

docs/reliability.md promises exit 2 and the sentence `lore index` says, naming the
folder and how to fix it, for every command that writes there: the index, a proposal
(`remember`, its dry run and `--resume`, `drafts propose`), the proposals list and
discard, `sync`, the gardener's and an import's pull request. The commands that only
read (recall, show, stats, site) answer from the committed files and say the same sentence
once; `lore doctor` marks it as a thing to fix. No command crashes (exit 3), and
nothing that was there is touched: the file stays as it was.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.errors import StateUnwritable
from lore.paths import state_dir
from tests.support import block_state_dir, git, note_text
from tests.team import conftest as team

team_env = team.team_env
fake_gh = team.fake_gh
remote = team.remote
clone_of = team.clone_of

NOTE = "payments-api--retries-use-backoff--2026-10-01"
EXPIRED = "payments-api--old-freeze--2026-01-01"
ADRS = Path(__file__).resolve().parents[1] / "fixtures" / "import" / "adr" / "nygard" / "doc"
REMEMBER = [
    "remember", "--title", "Outbound retries use exponential backoff",
    "--type", "convention", "--tag", "pattern/retries", "--repo", "payments-api",
    "--what", "Outbound HTTP retries use exponential backoff with full jitter.",
]  # fmt: skip

WRITERS = {
    "index": ["index"],
    "remember": [*REMEMBER, "--yes"],
    "remember --dry-run": [*REMEMBER, "--dry-run"],
    "remember --resume": ["remember", "--resume", NOTE],
    "drafts propose": [
        "drafts",
        "propose",
        "payments-api--outbound-retries-use-exponential-backoff--2026-11-02",
        "--yes",
    ],
    "proposals": ["proposals"],
    "proposals discard": ["proposals", "discard", NOTE],
    "sync": ["sync"],
    "garden --propose": ["garden", "--propose"],
    "import adr": ["import", "adr", "{adrs}", "--yes"],
}
READERS = {
    "recall": ["recall", "retries backoff"],
    "show": ["show", NOTE],
    "stats": ["stats"],
    "site": ["site", "{out}"],
}


@pytest.fixture
def checkout(remote: team.Remote, clone_of: Callable[..., Path]) -> Path:
    remote.commit_note(NOTE, note_text("Retries use backoff", date="2026-10-01"))
    remote.commit_note(
        EXPIRED, note_text("The old freeze", date="2026-01-01", expires="2026-02-01")
    )
    return clone_of()


def sentence(root: Path) -> str:
    return StateUnwritable(state_dir(root), "it is a file, not a folder").message


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_command_that_writes_there_exits_2_with_the_sentence(
    command: str,
    checkout: Path,
    fake_gh: team.FakeGh,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if command == "drafts propose":  # a draft saved while the folder was still a folder
        assert main([*REMEMBER, "--draft", "--vault", str(checkout)]) == 0
    adrs = tmp_path / "adrs"
    shutil.copytree(ADRS, adrs)
    block_state_dir(checkout)
    before = state_dir(checkout).read_bytes()
    argv = [word.format(adrs=adrs) for word in WRITERS[command]]
    code = main([*argv, "--vault", str(checkout)])
    out, err = capsys.readouterr()
    said = " ".join((out + err).split())
    assert code == 2, said
    assert sentence(checkout) in said, said
    assert "Move it away" in said and "Traceback" not in said and "internal error" not in said
    assert state_dir(checkout).read_bytes() == before  # nothing was written over it
    assert git(checkout, "branch", "--list", "lore/*") == ""  # nor a branch left behind


@pytest.mark.parametrize("command", sorted(READERS))
def test_a_command_that_only_reads_answers_from_the_files_and_says_it(
    command: str, checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    block_state_dir(checkout)
    argv = [word.format(out=tmp_path / "site") for word in READERS[command]]
    assert main([*argv, "--vault", str(checkout)]) == 0
    out, err = capsys.readouterr()
    assert sentence(checkout) in " ".join(err.split()), err
    assert err.count("Cannot write lore's state folder") == 1
    assert out.strip()


def test_doctor_marks_it_to_fix(checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    block_state_dir(checkout)
    assert main(["doctor", "--offline", "--vault", str(checkout)]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if sentence(checkout) in line)
    assert line.lstrip().startswith("fix"), out
