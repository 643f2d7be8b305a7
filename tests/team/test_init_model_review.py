"""`lore init --github` turns the model review on, through GitHub Models, and says so.

Real git; the fake `gh` (tests/team/conftest.py) stands in for GitHub's API, which
cannot be reached from a test. A vault made without --github keeps the template's
commented-out `[curator.semantic]`: the review stays off.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.curator.context.settings import load_curator_settings
from lore.team.model_review_seed import BLOCK, with_model_review
from lore.vault.seed import seed_files
from tests.support import git
from tests.team.conftest import FakeGh, Remote

RELEASE = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
TEMPLATE = seed_files()["lore.toml"].decode("utf-8")


def test_init_on_github_turns_the_model_review_on(
    tmp_path: Path,
    team_env: Path,
    fake_gh: FakeGh,
    remote: Remote,
    capsys: pytest.CaptureFixture[str],
) -> None:
    git(remote.bare, "update-ref", "-d", "refs/heads/main")  # an empty repository, as created
    target = tmp_path / "vault"
    code = main(
        ["init", str(target), "--github", "acme/team-vault",
         "--curator", f"lore-dev/gh-lore@{RELEASE}"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "Model review: on, through GitHub Models (openai/gpt-4.1-mini) with the workflow's own "
        "token; set enabled = false under [curator.semantic] in lore.toml to turn it off."
    ) in out

    text = (target / "lore.toml").read_text(encoding="utf-8")
    assert text.count("[curator.semantic]") == 1
    assert "# To turn it off, set enabled = false (or delete this section)." in text
    settings = load_curator_settings(text)
    assert settings.problems == []
    semantic = settings.semantic
    assert (semantic.enabled, semantic.provider, semantic.model, semantic.api_key_env) == (
        True, "github", "openai/gpt-4.1-mini", "GITHUB_TOKEN",
    )  # fmt: skip
    # The rest of the template is untouched, and the vault as pushed holds the block.
    before, after = TEMPLATE.split("# [curator.semantic]\n")
    assert text.startswith(before) and text.endswith(after[after.index("\n# [garden]") + 1 :])
    assert 'provider = "github"' in git(remote.bare, "show", "main:lore.toml")

    # Turning it off is the one edit the block names.
    off = text.replace("\nenabled = true\n", "\nenabled = false\n")
    assert load_curator_settings(off).semantic.enabled is False


def test_init_without_github_leaves_it_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "vault"
    assert main(["init", str(target), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model_review"] is False
    text = (target / "lore.toml").read_text(encoding="utf-8")
    assert text == TEMPLATE
    assert load_curator_settings(text).semantic.enabled is False


def test_the_block_replaces_the_commented_section_or_is_appended() -> None:
    enabled = with_model_review(TEMPLATE)
    assert "# [curator.semantic]" not in enabled and BLOCK in enabled
    assert enabled.index(BLOCK) < enabled.index("# [garden]")
    plain = with_model_review("[curator]\nmax_body_words = 250\n")
    assert plain == "[curator]\nmax_body_words = 250\n\n" + BLOCK
    assert load_curator_settings(plain).semantic.provider == "github"
