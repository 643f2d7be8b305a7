"""The home page: the vault's pulse.

Counts (notes, active, inactive, expiring within 30 days, flagged by drift), notes
recorded per month (`lore.site.chart`), the newest notes, the most replaced subjects
and the notes by type and by repository. A *subject* is a chain of replacements: the
notes joined by `supersedes`, named by its newest active note (its newest note when
none is active); the most replaced are the chains with the most replacements.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.site.chart import month_chart
from lore.site.content import SiteNote, SiteVault
from lore.site.graph import REPLACES, connected, edges_of
from lore.site.layout import Frame, esc, page, slug, text
from lore.site.pages import TITLE_CHARS, expiring, grouped, newest_first, note_list
from lore.team.stats import ORG_WIDE

NEWEST = 10
SUBJECTS = 10


@dataclass(frozen=True)
class Subject:
    head: SiteNote  # the note that names the subject
    replacements: int
    notes: int


def replaced_subjects(vault: SiteVault) -> list[Subject]:
    """Chains of replacement, most replaced first (then newest)."""
    edges = [(old, new) for old, new, kind in edges_of(vault) if kind == REPLACES]
    subjects = []
    for ids, count in connected(edges):
        members = newest_first(vault.notes[i] for i in ids)
        active = [item for item in members if item.active]
        subjects.append(Subject((active or members)[0], count, len(ids)))
    subjects.sort(key=lambda s: (s.replacements, s.head.note.date, s.head.id), reverse=True)
    return subjects


def _card(number: int, label: str, href: str) -> str:
    return f'<a class="card" href="{href}"><strong>{number}</strong>{esc(label)}</a>'


def _counts(groups: dict[str, list[SiteNote]], folder: str) -> str:
    rows = "".join(
        f'<li><a href="{folder}/{slug(name)}.html">{text(name)}</a> '
        f'<span class="count">{sum(1 for i in items if i.active)} active'
        f"{f', {len(items)} in all' if any(not i.active for i in items) else ''}</span></li>"
        for name, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    )
    return f'<ul class="names">{rows}</ul>' if rows else '<p class="empty">None yet.</p>'


def home_page(vault: SiteVault, frame: Frame) -> str:
    notes = list(vault.notes.values())
    active = sum(1 for item in notes if item.active)
    drifted = sum(1 for item in notes if item.drift is not None)
    where = (
        f"the reviewed branch <code>{esc(vault.branch)}</code> at "
        f"<code>{esc((vault.commit or '')[:12])}</code>"
        if vault.kind == "git"
        else "the vault's files (not a git repository)"
    )
    cards = (
        _card(len(notes), "notes", "#newest")
        + _card(active, "active", "#newest")
        + _card(len(notes) - active, "inactive", "inactive.html")
        + _card(len(expiring(vault)), "expiring in 30 days", "expiring.html")
        + _card(drifted, "flagged by drift", "drift.html")
        + (_card(len(vault.skipped), "not served", "unserved.html") if vault.skipped else "")
    )
    subjects = replaced_subjects(vault)[:SUBJECTS]
    subject_rows = "".join(
        f'<li><a href="notes/{s.head.id}.html">{text(s.head.note.title, TITLE_CHARS)}</a> '
        f'<span class="count">replaced {s.replacements} time{"s" if s.replacements != 1 else ""}'
        f"</span></li>"
        for s in subjects
    )
    by_repo = grouped(vault, lambda item: item.note.repo or (ORG_WIDE,))
    by_type = grouped(vault, lambda item: (item.note.type,))
    body = (
        f"<h1>{frame.vault}</h1>"
        f'<p class="lead">The notes of {where}, as recall serves them on '
        f"{vault.today.isoformat()}.</p>"
        f'<div class="cards">{cards}</div>'
        f"<h2>Notes per month</h2>{month_chart((i.note.date for i in notes), vault.today)}"
        '<div class="columns">'
        f'<section id="newest"><h2>Newest notes</h2>'
        f"{note_list(newest_first(notes)[:NEWEST], '', summary=False)}</section>"
        '<section id="replaced"><h2>Most replaced subjects</h2>'
        + (
            f'<ol class="subjects">{subject_rows}</ol>'
            if subject_rows
            else '<p class="empty">No note replaces another yet.</p>'
        )
        + "</section></div>"
        '<div class="columns">'
        f'<section id="types"><h2>By type</h2>{_counts(by_type, "type")}</section>'
        f'<section id="repos"><h2>By repository</h2>{_counts(by_repo, "repo")}</section>'
        "</div>"
    )
    return page(frame, "Pulse", body, current="index.html")
