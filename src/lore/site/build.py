"""`build_site`: every page of the site, written into a folder in one step.

The pages are written into a new folder beside the target and moved into place when
all are written, so a failed build leaves the last good site as it was. A target that
exists must be empty or a site lore built (it holds `.lore-site`, which records the
commit it shows): nothing else is ever replaced. The build is deterministic: the same
commit on the same day gives the same files.

The note pages — most of a build: each body rendered, secret-scanned and written — are
shared out to forked worker processes on Linux when the vault is large enough to repay
starting them (`note_workers`) and the process has no other thread (a fork copies a lock
another thread holds, held for good: a progress bar on a terminal has a thread, so a
build watched on a terminal is written by one process); each page is the same whichever
process wrote it (`tests/site/test_build_workers.py`). Elsewhere, one process writes them.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lore import __version__
from lore.errors import UsageError
from lore.site.content import SiteNote, SiteVault, read_site_vault
from lore.site.graph import map_body
from lore.site.home import home_page
from lore.site.layout import Frame, esc, page, slug, text
from lore.site.markdown import BodyRenderer
from lore.site.pages import (
    drift_page,
    expiring_page,
    group_page,
    grouped,
    inactive_page,
    index_page,
    note_page,
    unserved_page,
)
from lore.site.publish import check_publishable
from lore.site.search import search_script
from lore.team.stats import ORG_WIDE

MARKER = ".lore-site"
ASSETS = Path(__file__).resolve().parent / "assets"
ASSET_FILES = ("site.css", "search.js", "favicon.svg")
SEARCH_INDEX = "assets/search-index.js"

Progress = Callable[[int, int, str], None]

MIN_NOTES_PER_WORKER = 1000  # fewer, and starting a process costs more than it saves
MAX_WORKERS = 4
CHUNK = 200  # note pages a worker writes per task: the unit of progress


@dataclass
class SiteReport:
    out: Path
    notes: int
    pages: int
    search_index_bytes: int
    kind: str
    branch: str
    commit: str | None
    notices: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "out": str(self.out),
            "index": str(self.out / "index.html"),
            "notes": self.notes,
            "pages": self.pages,
            "search_index_bytes": self.search_index_bytes,
            "branch": self.branch,
            "commit": self.commit,
        }


def check_target(out: Path) -> None:
    """Refuse a target that is a file, or a folder with things lore did not write."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file.", fix="Name a folder for the site.")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise UsageError(
            f"{out} is not empty, and it is not a site lore built: nothing in it is replaced.",
            fix="Name a new or empty folder, or the folder of an earlier `lore site`.",
        )


def build_site(
    root: Path,
    out: Path,
    *,
    name: str | None = None,
    visibility: str | None = None,
    progress: Progress | None = None,
) -> SiteReport:
    """Build the site of the vault at `root` into `out`. `visibility`: the repository's
    on GitHub, when the site is built to be published (`lore.site.publish`)."""
    out = out.expanduser().resolve()
    check_target(out)
    vault = read_site_vault(root, name=name)
    if visibility is not None:
        check_publishable(root, visibility)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        pages, index_bytes = _write_site(vault, staging, progress)
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return SiteReport(
        out, len(vault.notes), pages, index_bytes, vault.kind, vault.branch, vault.commit,
        vault.notices,
    )  # fmt: skip


def _swap_in(staging: Path, out: Path) -> None:
    if not out.exists():
        staging.rename(out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    old.rmdir()
    out.rename(old)
    try:
        staging.rename(out)
    except OSError:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _frame(vault: SiteVault) -> Frame:
    shown = text(vault.github.full_name if vault.github else vault.name, 80)
    where = (
        f"the reviewed branch <code>{esc(vault.branch)}</code> at "
        f"<code>{esc((vault.commit or '')[:12])}</code>"
        if vault.kind == "git"
        else "the vault's files"
    )
    source = (
        f' · <a href="{esc(vault.github.web_url)}" rel="noopener noreferrer">'
        f"{esc(vault.github.full_name)} on GitHub</a>"
        if vault.github
        else ""
    )
    footer = (
        f"Built by lore {esc(__version__)} from {where} on {vault.today.isoformat()}: "
        f"the notes the team reviewed and merged, as recall serves them{source}."
    )
    return Frame(shown, footer)


def _search_page(frame: Frame) -> str:
    body = (
        "<h1>Search</h1>"
        '<p id="search-status" role="status">Searching needs the site\'s own script '
        "(assets/search.js). Browse by repository, type or tag instead.</p>"
        '<ol id="results"></ol>'
    )
    return page(frame, "Search", body, scripts=("search-index.js", "search.js"))


def _write_site(vault: SiteVault, dest: Path, progress: Progress | None) -> tuple[int, int]:
    frame = _frame(vault)
    renderer = BodyRenderer()
    written = 0
    folders: set[Path] = set()

    def write(path: str, content: str | bytes) -> None:
        nonlocal written
        target = dest / path
        if target.parent not in folders:
            target.parent.mkdir(parents=True, exist_ok=True)
            folders.add(target.parent)
        with target.open("wb") as out:  # a new file in a new folder: no one reads it yet
            out.write(content.encode("utf-8") if isinstance(content, str) else content)
        written += path.endswith(".html")

    items = list(vault.notes.values())
    total = len(items)
    workers = note_workers(total) if threading.active_count() == 1 else 1
    pool = None
    pending = None
    if workers > 1:
        (dest / "notes").mkdir(parents=True, exist_ok=True)
        folders.add(dest / "notes")
        _FORKED["job"] = (vault, frame, dest, items)  # what the forked workers inherit
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_worker_start)
        pending = pool.imap_unordered(_write_note_pages, range(0, total, CHUNK))
        written += total
    else:
        for number, item in enumerate(items):
            if progress is not None and number % CHUNK == 0:
                progress(number, total, "Writing the note pages")
            write(f"notes/{item.id}.html", note_page(vault, frame, item, renderer))
    try:
        index_chars = _write_the_rest(vault, frame, write, progress, total)
        if pool is not None and pending is not None:
            done = 0
            for count in pending:
                done += count
                if progress is not None:
                    progress(done, total, "Writing the note pages")
            pool.close()  # every page is written: the workers end on their own
            pool.join()
            pool = None
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        _FORKED.clear()
    dest.chmod(0o755)  # mkdtemp makes it 0700; a site is for anyone to read
    return written, index_chars


def note_workers(notes: int) -> int:
    """How many processes write the note pages: one per `MIN_NOTES_PER_WORKER` notes, up
    to the machine's cores and `MAX_WORKERS`; one where processes cannot be forked."""
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if not sys.platform.startswith("linux") or not forkable:
        return 1
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS, notes // MIN_NOTES_PER_WORKER))


_FORKED: dict[str, tuple[SiteVault, Frame, Path, list[SiteNote]]] = {}


def _worker_start() -> None:
    """In a forked worker: the parent's signal handlers are not its own. SIGTERM (the pool
    ending it) ends it at once, running none of the parent's clean-ups; Ctrl-C is the
    parent's to handle (it ends the pool)."""
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _write_note_pages(start: int) -> int:
    """In a forked worker: write the note pages of `items[start:start + CHUNK]`."""
    vault, frame, dest, items = _FORKED["job"]
    renderer = BodyRenderer()
    chunk = items[start : start + CHUNK]
    for item in chunk:
        page_html = note_page(vault, frame, item, renderer).encode("utf-8")
        with (dest / "notes" / f"{item.id}.html").open("wb") as out:
            out.write(page_html)
    return len(chunk)


def _write_the_rest(
    vault: SiteVault,
    frame: Frame,
    write: Callable[[str, str | bytes], None],
    progress: Progress | None,
    total: int,
) -> int:
    """Every page but the notes' (the lists, the home page, the map, search), and the
    assets; the length of the search index."""
    if progress is not None:
        progress(0, total, "Writing the lists, the map and the search index")
    lists = (
        ("repo", "Repositories", "repos.html", lambda i: i.note.repo or (ORG_WIDE,)),
        ("type", "Types", "types.html", lambda i: (i.note.type,)),
        ("tag", "Tags", "tags.html", lambda i: i.note.tags),
    )
    for folder, title, listing, key in lists:
        groups = grouped(vault, key)
        write(listing, index_page(frame, title, folder, groups, listing))
        kind = {"repo": "Repository", "type": "Type", "tag": "Tag"}[folder]
        for group_name, items in groups.items():
            write(f"{folder}/{slug(group_name)}.html", group_page(frame, kind, group_name, items))
    write("index.html", home_page(vault, frame))
    write("map.html", page(frame, "Map", map_body(vault), current="map.html", wide=True))
    write("search.html", _search_page(frame))
    write("inactive.html", inactive_page(vault, frame))
    write("expiring.html", expiring_page(vault, frame))
    write("drift.html", drift_page(vault, frame))
    write("unserved.html", unserved_page(vault, frame))
    write(
        "404.html",
        page(frame, "Not found", '<h1>No such page</h1><p><a href="index.html">The pulse</a></p>'),
    )
    for name in ASSET_FILES:
        write(f"assets/{name}", (ASSETS / name).read_bytes())
    index = search_script(vault)
    write(SEARCH_INDEX, index)
    marker = {"commit": vault.commit, "branch": vault.branch, "built": vault.today.isoformat()}
    write(MARKER, json.dumps(marker, sort_keys=True) + "\n")
    return len(index)
