"""A secret is never written to disk, nor echoed: not in an id, a branch, a finding, a crash log.

Each test puts a real-looking credential into `lore remember` by a different route
and then searches every file lore could have written (the vault's `.git` and
`.lore`, lore's home with its logs) and everything it printed, in any letter case.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.crash import redacted_argv, report_crash
from lore.cli.main import main
from lore.sanitize.secret_scan import is_placeholder
from tests.support import block_state_dir, git
from tests.team import conftest as team
from tests.team.conftest import FakeGh, Remote

# The team loop's fixtures: a git identity and a PATH without outside `gh` (autouse),
# the fake `gh`, the bare remote and clones of it.
team_env = team.team_env
fake_gh = team.fake_gh
remote = team.remote
clone_of = team.clone_of

AWS_KEY_ID = "AKIAQ3EGUSZJ7R4LNB2X"  # upper-case: lower-casing it hides nothing
GITHUB_TOKEN = "ghp_1234567R8fK2mQ9vX4tL7wN3pZ6yB1cH5jD0sG"  # contains a "placeholder" run
FLAGS = [
    "--type", "gotcha",
    "--tag", "pattern/retries",
    "--repo", "payments-api",
    "--what", "The staging key rotates every week.",
]  # fmt: skip


def files_containing(folder: Path, secret: str) -> list[str]:
    """Every file (and file name) under `folder` that holds `secret`, in any case."""
    wanted = secret.lower().encode()
    found = []
    for path in folder.rglob("*"):
        if wanted.decode() in str(path).lower():
            found.append(str(path))
        elif path.is_file() and not path.is_symlink():
            data = path.read_bytes().lower()
            if wanted in data:
                found.append(str(path))
    return found


def remember(checkout: Path, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["remember", "--vault", str(checkout), *flags])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


@pytest.mark.parametrize("secret", [AWS_KEY_ID, GITHUB_TOKEN])
@pytest.mark.parametrize("mode", [["--dry-run", "--json"], ["--yes", "--json"], ["--yes"]])
def test_a_secret_in_the_title_is_masked_everywhere(
    checkout: Path,
    fake_gh: FakeGh,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
    secret: str,
    mode: list[str],
) -> None:
    code, printed = remember(
        checkout, "--title", f"Rotate {secret} in staging weekly", *FLAGS, *mode, capsys=capsys
    )
    assert code == 1  # refused: the secret scan cannot be overridden
    assert secret.lower() not in printed.lower()
    assert "characters hidden" in printed  # the id and the findings name the mask instead
    if "--json" in mode:
        data = json.loads(printed[: printed.rindex("}") + 1])
        assert any(f["rule"].startswith("secret/") for f in data["findings"])
        assert "characters-hidden" in data["id"]
    assert files_containing(checkout, secret) == []
    assert files_containing(isolated_home, secret) == []
    branches = git(checkout, "for-each-ref", "--format=%(refname)")
    assert secret.lower() not in branches.lower()
    assert fake_gh.calls_to("pr", "create") == []


def test_a_crash_before_the_scan_writes_no_secret(
    checkout: Path,
    fake_gh: FakeGh,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    block_state_dir(checkout)  # lore's own folder is a file
    argv = ["lore", "remember", "--vault", str(checkout), "--title", f"Use {AWS_KEY_ID}"]
    monkeypatch.setattr("sys.argv", argv)
    remember(checkout, "--title", f"Use {AWS_KEY_ID}", *FLAGS, "--yes", capsys=capsys)
    assert files_containing(isolated_home, AWS_KEY_ID) == []
    assert files_containing(checkout, AWS_KEY_ID) == []


def test_a_crash_log_records_option_names_and_masks_what_an_exception_quotes(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "sys.argv", ["/venv/bin/lore", "remember", f"--title={AWS_KEY_ID}", "--what", "x y"]
    )
    try:
        raise ValueError(f"could not use {GITHUB_TOKEN} here")
    except ValueError as exc:
        message = report_crash(exc)
    assert GITHUB_TOKEN not in message and "characters hidden" in message
    logs = list((isolated_home / "lore-home" / "logs").glob("crash-*.log"))
    text = logs[0].read_text(encoding="utf-8")
    assert AWS_KEY_ID not in text and GITHUB_TOKEN not in text
    assert "'remember', '--title=<20 characters>', '--what', '<3 characters>'" in text
    assert "ValueError" in text and "Traceback" in text


def test_argv_keeps_the_command_and_option_names_only() -> None:
    assert redacted_argv(["lore", "recall", "secret words", "--json", "--vault=/x/y"]) == [
        "lore",
        "recall",
        "<12 characters>",
        "--json",
        "--vault=<4 characters>",
    ]


@pytest.mark.parametrize(
    "value",
    [
        GITHUB_TOKEN,
        "sk_live_51Habcdefg" + "Q9vX4tL7wN3pZ6yB1cH5jD0sG8",
        "xoxb-2401234567-" + "R8fK2mQ9vX4tL7wN3pZ6yB1c",
    ],
)
def test_a_real_looking_token_with_a_placeholder_run_is_not_a_placeholder(value: str) -> None:
    assert not is_placeholder(value)


@pytest.mark.parametrize(
    "value",
    [
        "${GITHUB_TOKEN}",
        "<your-token-here>",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "sk_live_your_key_here",
        "AKIAEXAMPLEEXAMPLE12",
        "xoxb-1234567-abcdefg",
        "changeme",
    ],
)
def test_a_placeholder_as_a_whole_still_is(value: str) -> None:
    assert is_placeholder(value)


def test_the_environment_is_not_logged(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_SEMANTIC_API_KEY", GITHUB_TOKEN)
    try:
        raise RuntimeError("boom")
    except RuntimeError as exc:
        report_crash(exc)
    assert files_containing(isolated_home, GITHUB_TOKEN) == []
    assert os.environ["LORE_SEMANTIC_API_KEY"] == GITHUB_TOKEN


ROUTES = ["title flag", "what flag", "stdin JSON", "stdin note", "from-file", "MCP remember"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("secret", [AWS_KEY_ID, GITHUB_TOKEN])
def test_a_secret_by_every_input_path_is_never_written(
    checkout: Path,
    fake_gh: FakeGh,
    isolated_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    route: str,
    secret: str,
) -> None:
    title, what = "Staging keys rotate weekly", "The staging key rotates every week."
    if route == "title flag":
        title = f"Rotate {secret} weekly"
    else:
        what = f"The staging key {secret} rotates every week."
    fields = {"title": title, "type": "gotcha", "tags": ["pattern/retries"], "what": what}
    note = (
        f"---\ntitle: {title}\ntype: gotcha\ntags: [pattern/retries]\nconfidence: high\n"
        f"---\n## What\n{what}\n"
    )
    if route in ("title flag", "what flag"):
        flags = ["--title", title, *FLAGS[:-2], "--what", what, "--yes", "--json"]
        code, printed = remember(checkout, *flags, capsys=capsys)
    elif route in ("stdin JSON", "stdin note"):
        text = json.dumps(fields) if route == "stdin JSON" else note
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        code, printed = remember(checkout, "--stdin", "--yes", "--json", capsys=capsys)
    elif route == "from-file":
        draft = tmp_path / "draft.md"  # the user's own file: it may hold what they wrote
        draft.write_text(note, encoding="utf-8")
        code, printed = remember(checkout, "--from-file", str(draft), "--yes", capsys=capsys)
    else:
        from lore.integrations.mcp_server import ToolFailure, VaultTools

        try:  # a blocked note is an error result, with its structured answer attached
            answer = VaultTools(str(checkout), checkout).call("remember", fields)
        except ToolFailure as failure:
            answer = {**(failure.data or {}), "text": str(failure)}
        code, printed = (1 if answer.get("status") == "blocked" else 0), json.dumps(answer)
    assert code == 1, printed
    assert secret.lower() not in printed.lower()
    assert files_containing(checkout, secret) == []
    assert files_containing(isolated_home, secret) == []
    assert fake_gh.calls_to("pr", "create") == []
