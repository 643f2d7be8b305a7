"""The note pages written by forked workers are the pages one process writes.

A large vault's note pages are shared out to worker processes (`note_workers`); here
the demo vault with its hostile notes is built once by one process and once by two
workers writing three pages a task, and every file of the two sites must be the same,
byte for byte. A worker that fails fails the build, and the last good site stays.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.site import build
from lore.site.build import build_site, note_workers


def _files(site: Path) -> dict[Path, bytes]:
    return {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}


def test_workers_write_the_same_site_as_one_process(
    demo_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if note_workers(10**6) < 2:
        pytest.skip("processes cannot be forked here: the build uses one process")
    vault = demo_site.parent / "vault"
    monkeypatch.setattr(build, "note_workers", lambda notes: 1)
    build_site(vault, tmp_path / "one")
    monkeypatch.setattr(build, "note_workers", lambda notes: 2)
    monkeypatch.setattr(build, "CHUNK", 3)
    steps: list[tuple[int, int, str]] = []
    build_site(vault, tmp_path / "two", progress=lambda *step: steps.append(step))
    one, two = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert len([p for p in one if p.parts[0] == "notes"]) > 10
    assert one == two
    notes = [done for done, _, what in steps if what == "Writing the note pages"]
    assert notes == sorted(notes) and notes[-1] == len([p for p in one if p.parts[0] == "notes"])


def test_a_failing_worker_fails_the_build_and_keeps_the_last_site(
    demo_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if note_workers(10**6) < 2:
        pytest.skip("processes cannot be forked here: the build uses one process")
    vault = demo_site.parent / "vault"
    site = tmp_path / "site"
    build_site(vault, site)
    before = _files(site)

    def broken(*args: object) -> str:
        raise RuntimeError("a page that cannot be rendered")

    monkeypatch.setattr(build, "note_workers", lambda notes: 2)
    monkeypatch.setattr(build, "note_page", broken)
    with pytest.raises(RuntimeError, match="cannot be rendered"):
        build_site(vault, site)
    assert _files(site) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging folder left


def test_a_small_vault_is_written_by_one_process() -> None:
    assert note_workers(999) == 1
    assert note_workers(0) == 1
