"""The note pages and the lists: by repository, type and tag; inactive, expiring, drifted.

Each function returns one page's HTML (`lore.site.layout.page`); `lore.site.build`
writes them. A note page shows the rendered body, every field, its status, its drift
flag, and its relations both ways — what it replaces and what replaced it, what it
depends on and what depends on it, the notes it links to and the notes linking to it
— each a link to that note, and the file on GitHub when the vault has a GitHub remote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta

from lore.site.content import SiteNote, SiteVault
from lore.site.layout import Frame, esc, page, slug, text
from lore.site.layout import summary as one_line
from lore.site.markdown import BodyRenderer, is_external, safe_href
from lore.team.stats import EXPIRING_DAYS, ORG_WIDE

TITLE_CHARS = 200
SUMMARY_CHARS = 240


def note_href(note_id: str, up: str) -> str:
    return f"{up}notes/{note_id}.html"


def badge(item: SiteNote) -> str:
    if item.active:
        return ""
    return ' <span class="badge inactive">inactive</span>'


def note_item(item: SiteNote, up: str, *, summary: bool = True) -> str:
    """One note in a list: its title (a link), type, date, repositories and summary.

    Made once per place a list is (`up`) and kept on the note: a note is listed on the
    page of its type, of each tag and of each repository."""
    key = f"{up}|{summary}"
    if key in item.listed:
        return item.listed[key]
    note = item.note
    where = ", ".join(text(repo) for repo in note.repo) or ORG_WIDE
    flag = ' <span class="badge drift">drift</span>' if item.drift else ""
    shown = (
        f'<li><a href="{note_href(note.id, up)}">{text(note.title, TITLE_CHARS)}</a>'
        f"{badge(item)}{flag} "
        f'<span class="meta">{text(note.type)} · {text(note.date)} · {where}</span>'
        + (
            f'<p class="summary">{esc(one_line(note.body, note.title, SUMMARY_CHARS))}</p>'
            if summary
            else ""
        )
        + "</li>"
    )
    item.listed[key] = shown
    return shown


def note_list(
    items: Iterable[SiteNote], up: str, empty: str = "No notes.", *, summary: bool = True
) -> str:
    rows = [note_item(item, up, summary=summary) for item in items]
    if not rows:
        return f'<p class="empty">{esc(empty)}</p>'
    return '<ul class="notes">' + "".join(rows) + "</ul>"


def newest_first(items: Iterable[SiteNote]) -> list[SiteNote]:
    return sorted(items, key=lambda item: (item.note.date, item.id), reverse=True)


# ---- a note's page ----


def _related(vault: SiteVault, ids: Iterable[str]) -> str:
    rows = []
    for note_id in ids:
        found = vault.notes.get(note_id)
        if found is None:
            missing = '<span class="meta">(not in the vault)</span>'
            rows.append(f"<li><code>{text(note_id)}</code> {missing}</li>")
        else:
            rows.append(
                f'<li><a href="{note_id}.html">{text(found.note.title, TITLE_CHARS)}</a>'
                f'{badge(found)} <span class="meta">{text(found.note.date)}</span></li>'
            )
    return '<ul class="related">' + "".join(rows) + "</ul>"


def _relations(vault: SiteVault, item: SiteNote) -> str:
    note_id = item.id
    groups = (
        ("Replaces", "replaces", item.note.supersedes),
        ("Replaced by", "replaced-by", vault.replaced_by.get(note_id, [])),
        ("Depends on", "depends-on", item.note.depends_on),
        ("Needed by", "needed-by", vault.dependents.get(note_id, [])),
        ("Links to", "links-to", vault.links_out.get(note_id, [])),
        ("Linked from", "linked-from", vault.links_in.get(note_id, [])),
    )
    parts = [
        f'<section class="relation" id="{anchor}"><h3>{label}</h3>{_related(vault, ids)}</section>'
        for label, anchor, ids in groups
        if ids
    ]
    if not parts:
        return (
            '<p class="empty">No note replaces, needs or links to this one, and it names none.</p>'
        )
    return "".join(parts)


def _link_list(names: Iterable[str], folder: str, up: str) -> str:
    return ", ".join(f'<a href="{up}{folder}/{slug(name)}.html">{text(name)}</a>' for name in names)


def _status(vault: SiteVault, item: SiteNote) -> str:
    parts = []
    if not item.active:
        replacing = [
            other
            for other in vault.replaced_by.get(item.id, [])
            if other in vault.notes and vault.notes[other].active
        ]
        if replacing:
            links = ", ".join(
                f'<a class="replacement" href="{other}.html">'
                f"{text(vault.notes[other].note.title)}</a>"
                for other in replacing
            )
            parts.append(f'<p class="status inactive">Inactive: replaced by {links}.</p>')
        else:
            parts.append(f'<p class="status inactive">Inactive: {text(item.inactive_reason)}.</p>')
    if item.drift is not None:
        parts.append(
            '<p class="status drift">Flagged by <code>lore drift</code> on '
            f"{text(item.drift.date[:10])}: files this note is about changed in the code "
            f"after it was written (<code>{esc(item.drift.sha[:12])}</code> "
            f"{text(item.drift.subject, 120)}). Check it against the code.</p>"
        )
    return "".join(parts)


def _source(value: str | None) -> str:
    if not value:
        return ""
    href = safe_href(value)
    if href is not None and is_external(href):
        rel = 'rel="nofollow noopener noreferrer" class="external"'
        return f'<a href="{esc(href)}" {rel}>{text(value)}</a>'
    return text(value)


def note_page(vault: SiteVault, frame: Frame, item: SiteNote, renderer: BodyRenderer) -> str:
    note = item.note

    def lookup(target: str) -> tuple[str, str] | None:
        found = vault.notes.get(target)
        return None if found is None else (f"{target}.html", text(found.note.title, TITLE_CHARS))

    fields = [
        ("Type", _link_list([note.type], "type", "../")),
        ("Tags", _link_list(note.tags, "tag", "../")),
        ("Repository", _link_list(note.repo, "repo", "../") or ORG_WIDE),
        ("Confidence", text(note.confidence)),
        ("Date", text(note.date)),
        ("Expires", text(note.expires)),
        ("Author", text(note.author)),
        ("Services", ", ".join(text(s) for s in note.services)),
        ("Files", ", ".join(f"<code>{text(p)}</code>" for p in note.files_touched)),
        ("Source", _source(note.source)),
        ("Id", f"<code>{text(note.id)}</code>"),
    ]
    meta = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in fields if value)
    github = vault.github_url(note)
    on_github = (
        f'<p class="on-github"><a href="{esc(github)}" rel="noopener noreferrer" class="external">'
        f"{text(note.path)} on GitHub</a></p>"
        if github
        else ""
    )
    body = (
        f'<article class="note" data-note-id="{esc(note.id)}">\n'
        f"<h1>{text(note.title, TITLE_CHARS)}</h1>\n{_status(vault, item)}\n"
        f'<dl class="fields">{meta}</dl>\n'
        f'<div class="body">\n{renderer.render(note.body, lookup)}</div>\n'
        f'<section class="relations"><h2>Related notes</h2>{_relations(vault, item)}</section>\n'
        f"{on_github}</article>"
    )
    return page(frame, text(note.title, 80), body, depth=1)


# ---- lists ----


def grouped(
    vault: SiteVault, key: Callable[[SiteNote], Iterable[str]]
) -> dict[str, list[SiteNote]]:
    """Name -> its notes (newest first), names sorted."""
    groups: dict[str, list[SiteNote]] = {}
    for item in vault.notes.values():
        for name in key(item):
            groups.setdefault(name, []).append(item)
    return {name: newest_first(groups[name]) for name in sorted(groups)}


def index_page(
    frame: Frame, title: str, folder: str, groups: dict[str, list[SiteNote]], current: str
) -> str:
    """repos.html, types.html, tags.html: each name, its count, a link to its page."""
    rows = "".join(
        f'<li><a href="{folder}/{slug(name)}.html">{text(name)}</a> '
        f'<span class="count">{len(items)}</span></li>'
        for name, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    )
    body = f"<h1>{esc(title)}</h1>" + (
        f'<ul class="names">{rows}</ul>' if rows else '<p class="empty">None yet.</p>'
    )
    return page(frame, esc(title), body, current=current)


def group_page(frame: Frame, kind: str, name: str, items: list[SiteNote]) -> str:
    active = [item for item in items if item.active]
    inactive = [item for item in items if not item.active]
    body = (
        f'<h1><span class="kind">{esc(kind)}</span> {text(name)}</h1>'
        f'<p class="lead">{len(active)} active, {len(inactive)} inactive.</p>'
        + note_list(active, "../", "No active notes.")
        + (f"<h2>Inactive</h2>{note_list(inactive, '../')}" if inactive else "")
    )
    return page(frame, f"{esc(kind)} {text(name)}", body, depth=1)


def inactive_page(vault: SiteVault, frame: Frame) -> str:
    rows = []
    for item in newest_first(i for i in vault.notes.values() if not i.active):
        replacing = [
            f'<a href="notes/{other}.html">{text(vault.notes[other].note.title, TITLE_CHARS)}</a>'
            for other in vault.replaced_by.get(item.id, [])
            if other in vault.notes
        ]
        why = (
            f"replaced by {', '.join(replacing)}"
            if replacing
            else text(item.inactive_reason or "inactive")
        )
        rows.append(
            f'<li><a href="notes/{item.id}.html">{text(item.note.title, TITLE_CHARS)}</a> '
            f'<span class="meta">{text(item.note.date)}</span><p class="why">{why}</p></li>'
        )
    body = (
        '<h1>Inactive notes</h1><p class="lead">Notes recall no longer serves: replaced by '
        "another note, expired, or depending on a note that is not active.</p>"
        + ('<ul class="notes">' + "".join(rows) + "</ul>" if rows else '<p class="empty">None.</p>')
    )
    return page(frame, "Inactive notes", body, current="inactive.html")


def expiring(vault: SiteVault) -> list[SiteNote]:
    """Active notes whose `expires` falls within `EXPIRING_DAYS` of the pinned day."""
    horizon = (vault.today + timedelta(days=EXPIRING_DAYS)).isoformat()
    found = [
        item
        for item in vault.notes.values()
        if item.active and item.note.expires and item.note.expires <= horizon
    ]
    return sorted(found, key=lambda item: (item.note.expires or "", item.id))


def expiring_page(vault: SiteVault, frame: Frame) -> str:
    rows = "".join(
        f'<li><a href="notes/{item.id}.html">{text(item.note.title, TITLE_CHARS)}</a> '
        f'<span class="meta">expires {text(item.note.expires)}</span></li>'
        for item in expiring(vault)
    )
    body = (
        f'<h1>Expiring soon</h1><p class="lead">Active notes that expire within '
        f"{EXPIRING_DAYS} days of {vault.today.isoformat()}: renew them (a new date or "
        "`expires`) or let them go.</p>"
        + (f'<ul class="notes">{rows}</ul>' if rows else '<p class="empty">None.</p>')
    )
    return page(frame, "Expiring soon", body, current="expiring.html")


def unserved_page(vault: SiteVault, frame: Frame) -> str:
    """The note files of the branch that the index could not take, and why."""
    rows = "".join(
        f'<li><code>{text(path)}</code><p class="why">{text(problem, 300)}</p></li>'
        for path, problem in vault.skipped
    )
    body = (
        '<h1>Not served</h1><p class="lead">Files in <code>notes/</code> that recall does not '
        "serve because they cannot be read as notes: fix them in a pull request.</p>"
        + (f'<ul class="notes">{rows}</ul>' if rows else '<p class="empty">None.</p>')
    )
    return page(frame, "Not served", body)


def drift_page(vault: SiteVault, frame: Frame) -> str:
    flagged = sorted(
        (item for item in vault.notes.values() if item.drift is not None),
        key=lambda item: (item.drift.date if item.drift else "", item.id),
        reverse=True,
    )
    rows = "".join(
        f'<li><a href="notes/{item.id}.html">{text(item.note.title, TITLE_CHARS)}</a> '
        f'<span class="meta">flagged {text(item.drift.date[:10])}, confidence '
        f"{text(item.note.confidence)}</span></li>"
        for item in flagged
        if item.drift is not None
    )
    body = (
        '<h1>Drift</h1><p class="lead">Notes whose files changed in the code after they '
        "were written: <code>lore drift</code> lowered their confidence, and nobody has "
        "re-checked them since.</p>"
        + (f'<ul class="notes">{rows}</ul>' if rows else '<p class="empty">None.</p>')
    )
    return page(frame, "Drift", body, current="drift.html")
