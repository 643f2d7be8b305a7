"""`lore doctor` in a vault whose curator a pull request can still edit (the design before
the trusted curator): `lore curate` on `pull_request`, its comment on `workflow_run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.cli.main import main

OLD_CURATOR = """\
name: lore curator
on:
  pull_request:
permissions: {}
jobs:
  curate:
    runs-on: ubuntu-latest
    steps:
      - run: lore curate --vault . --base "${BASE_SHA}" --head "${HEAD_SHA}" --format github
"""
OLD_COMMENT = """\
name: lore curator comment
on:
  workflow_run:
    workflows: ["lore curator"]
    types: [completed]
jobs: {}
"""


def doctor(
    vault: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict:
    monkeypatch.chdir(vault)
    main(["doctor", "--offline", "--json"])
    report: dict = json.loads(capsys.readouterr().out)
    return report


def test_doctor_warns_about_the_old_curator_and_not_about_the_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    assert main(["init", str(vault), "--no-register", "--json"]) == 0
    capsys.readouterr()
    names = [check["name"] for check in doctor(vault, monkeypatch, capsys)["checks"]]
    assert "curator trigger" not in names  # the template runs on pull_request_target

    workflows = vault / ".github" / "workflows"
    audit = OLD_CURATOR.replace('--base "${BASE_SHA}" --head "${HEAD_SHA}"', "--all")
    (workflows / "audit.yml").write_text(audit, encoding="utf-8")  # reviews no pull request
    names = [check["name"] for check in doctor(vault, monkeypatch, capsys)["checks"]]
    assert "curator trigger" not in names
    (workflows / "lore-curator.yml").write_text(OLD_CURATOR, encoding="utf-8")
    (workflows / "lore-comment.yml").write_text(OLD_COMMENT, encoding="utf-8")
    report = doctor(vault, monkeypatch, capsys)
    (check,) = [c for c in report["checks"] if c["name"] == "curator trigger"]
    assert check["ok"] is False
    assert ".github/workflows/lore-curator.yml" in check["value"]
    assert ".github/workflows/lore-comment.yml" in check["value"]
    assert "audit.yml" not in check["value"]
    assert "Upgrading an existing vault" in check["fix"]
    assert any(problem.startswith("curator trigger:") for problem in report["problems"])
