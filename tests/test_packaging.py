"""What gets published: the licence in the wheel, an sdist its tests can run from, one home.

The wheel and the sdist are built here with the build backend (hatchling, offline).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from lore import HOME_REPOSITORY, __version__

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# Tracked files the tests never read, left out of the sdist on purpose.
NOT_IN_SDIST = {".gitignore"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-d", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


def test_the_licence_is_mit_and_in_the_wheel(built: tuple[Path, Path]) -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        inside = archive.read(f"gh_lore-{__version__}.dist-info/licenses/LICENSE").decode()
        metadata = archive.read(f"gh_lore-{__version__}.dist-info/METADATA").decode()
    assert inside == licence
    assert "License-Expression: MIT" in metadata


def test_the_wheel_carries_the_sites_assets(built: tuple[Path, Path]) -> None:
    """`lore site` copies its stylesheet and script from the installed package."""
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for name in ("site.css", "search.js", "favicon.svg"):
        assert f"lore/site/assets/{name}" in names, name


def test_the_sdist_carries_what_the_tests_read(built: tuple[Path, Path]) -> None:
    """Every top-level file and folder of the repository is in the sdist, or in
    NOT_IN_SDIST; tests that need the git history skip there, saying why."""
    if not (ROOT / ".git").exists():
        pytest.skip("this is an unpacked sdist: it has no git history to compare with")
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    top = {name.split("/")[0] for name in tracked.split("\0") if name}
    _, sdist = built
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    packed = {name.split("/")[0] for name in names}
    assert top - NOT_IN_SDIST <= packed, sorted(top - NOT_IN_SDIST - packed)
    assert ".ci/run" in names and "requirements/action.txt" in names and "LICENSE" in names


def test_the_home_repository_is_stated_once() -> None:
    """pyproject's [project.urls] and lore.HOME_REPOSITORY name the same repository."""
    urls = PYPROJECT["project"]["urls"]
    assert urls, "pyproject.toml has no [project.urls]"
    home = f"https://github.com/{HOME_REPOSITORY}"
    for name, url in urls.items():
        assert url == home or url.startswith(f"{home}/"), (name, url)
