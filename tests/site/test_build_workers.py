"""The note pages written by forked workers are the pages one process writes.

A large vault's note pages are shared out to worker processes (`note_workers`) when the
building process has no other thread. The builds here run in a fresh `python` process
(single-threaded, as `lore site` and the Pages workflow run; this test process has
threads of its own), told to use two workers writing three pages a task: every file must
be the one a single process writes, byte for byte, and a worker that fails must fail the
build, end every worker, and keep the last good site.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lore.site.build import build_site, note_workers

FORKED_BUILD = """
import os, sys
from pathlib import Path
from lore.site import build

build.note_workers = lambda notes: 2
build.CHUNK = 3
write_pages = build._write_note_pages
pids = Path(sys.argv[3])
pids.write_text(f"parent {os.getpid()}\\n")

def recorded(start):
    with pids.open("a") as out:
        out.write(f"{os.getpid()}\\n")
    return write_pages(start)

build._write_note_pages = recorded
if sys.argv[4] == "broken":
    def broken(*args):
        raise RuntimeError("a page that cannot be rendered")
    build.note_page = broken
build.build_site(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def _files(site: Path) -> dict[Path, bytes]:
    return {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}


def _forked_build(
    vault: Path, site: Path, pids: Path, how: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", FORKED_BUILD, str(vault), str(site), str(pids), how],
        capture_output=True,
        text=True,
        timeout=300,  # a worker that never ends fails the test, not the whole run
        env=os.environ.copy(),
    )


@pytest.fixture
def forkable() -> None:
    if note_workers(10**6) < 2:
        pytest.skip("processes cannot be forked here: the build uses one process")


@pytest.mark.usefixtures("forkable")
def test_workers_write_the_same_site_as_one_process(demo_site: Path, tmp_path: Path) -> None:
    vault = demo_site.parent / "vault"
    build_site(vault, tmp_path / "one")  # this process has threads: one process writes
    pids = tmp_path / "pids"
    result = _forked_build(vault, tmp_path / "two", pids, "working")
    assert result.returncode == 0, result.stderr
    parent, *workers = pids.read_text().splitlines()
    assert workers and parent.split()[1] not in workers  # forked workers wrote the pages
    one, two = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert len([p for p in one if p.parts[0] == "notes"]) > 10
    assert one == two


@pytest.mark.usefixtures("forkable")
def test_a_failing_worker_fails_the_build_and_keeps_the_last_site(
    demo_site: Path, tmp_path: Path
) -> None:
    vault = demo_site.parent / "vault"
    site = tmp_path / "site"
    build_site(vault, site)
    before = _files(site)
    result = _forked_build(vault, site, tmp_path / "pids", "broken")
    assert result.returncode != 0 and "cannot be rendered" in result.stderr
    assert _files(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pids", "site"]  # no staging left


def test_a_small_vault_is_written_by_one_process() -> None:
    assert note_workers(999) == 1
    assert note_workers(0) == 1
