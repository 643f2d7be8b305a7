"""The map: how notes replace, need and link to each other, drawn as SVG at build time.

Three kinds of edges: `supersedes` (the old note to the note that replaced it, solid),
`depends_on` (a note to what it needs, dashed) and `[[id]]` links (dotted). Notes
joined by any edge form a group, drawn as one SVG, the largest groups first; a note
with no edge is not drawn (its page says so).

Inside a group time runs left to right: a note's column is the rank of its `date`
among the group's dates. Each chain of replacements keeps one row, built from its
newest note back through what it replaced (the newest of several first), so a
decision's history reads as one line from the first version to the current one; a
note on no chain is a chain of one. Where two notes of a chain share a date the
later one moves one column right, so a chain never runs backwards. Chains share a
row when they are at least one column apart (the first row that has room), so a
group is as flat as it can be. An edge between two notes of one row arcs above it.
Every node is a link to its note's page.

At most `MAX_NODES` notes are drawn; the groups past that are counted, not drawn (a
map of thousands of boxes is read by nobody, and each note's page lists its
relations).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lore.site.content import SiteVault
from lore.site.layout import esc, text

MAX_NODES = 1500
NODE_W, NODE_H = 220, 46
COL_PITCH, ROW_PITCH = 260, 84
PAD, TOP = 12, 34  # TOP: room for the arcs above the first row
TITLE_CHARS = 26

REPLACES, DEPENDS, LINKS = "replaces", "depends", "links"


@dataclass
class Group:
    ids: list[str]
    edges: list[tuple[str, str, str]]  # (from, to, kind)
    place: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (column, row)

    @property
    def replacements(self) -> int:
        return sum(1 for _, _, kind in self.edges if kind == REPLACES)


def edges_of(vault: SiteVault) -> list[tuple[str, str, str]]:
    """Every edge between two notes of the vault, once: (from, to, kind)."""
    found: dict[tuple[str, str, str], None] = {}
    for note_id, item in vault.notes.items():
        for old in item.note.supersedes:
            if old in vault.notes and old != note_id:
                found[(old, note_id, REPLACES)] = None
        for needed in item.note.depends_on:
            if needed in vault.notes and needed != note_id:
                found[(note_id, needed, DEPENDS)] = None
        for target in vault.links_out.get(note_id, []):
            if target in vault.notes:
                found[(note_id, target, LINKS)] = None
    return list(found)


def connected(edges: list[tuple[str, str]]) -> list[tuple[list[str], int]]:
    """The groups of ids that `edges` join (each sorted), with how many edges each has."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for one, other in edges:
        a, b = root(one), root(other)
        if a != b:
            parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = {}
    for node in list(parent):
        members.setdefault(root(node), []).append(node)
    counts: dict[str, int] = {}
    for one, _ in edges:
        counts[root(one)] = counts.get(root(one), 0) + 1
    return [(sorted(ids), counts.get(key, 0)) for key, ids in members.items()]


def groups_of(vault: SiteVault) -> list[Group]:
    """The connected groups of notes, largest first (then newest), each laid out."""
    edges = edges_of(vault)
    by_id: dict[str, Group] = {}
    groups = []
    for ids, _ in connected([(a, b) for a, b, _ in edges]):
        group = Group(ids, [])
        groups.append(group)
        for note_id in ids:
            by_id[note_id] = group
    for edge in edges:
        by_id[edge[0]].edges.append(edge)
    for group in groups:
        _lay_out(group, vault)

    def newest(group: Group) -> str:
        return max(vault.notes[i].note.date for i in group.ids)

    groups.sort(key=lambda g: g.ids[0])
    groups.sort(key=lambda g: (len(g.ids), newest(g)), reverse=True)  # stable: ties by id
    return groups


def _lay_out(group: Group, vault: SiteVault) -> None:
    dates = {note_id: vault.notes[note_id].note.date for note_id in group.ids}
    rank = {day: number for number, day in enumerate(sorted(set(dates.values())))}
    replaced: dict[str, list[str]] = {}  # new -> the notes it replaced
    for old, new, kind in group.edges:
        if kind == REPLACES:
            replaced.setdefault(new, []).append(old)
    rows: list[list[str]] = []
    placed: set[str] = set()
    for start in sorted(group.ids, key=lambda i: dates[i], reverse=True):  # ids are sorted
        if start in placed:
            continue
        chain = [start]
        placed.add(start)
        current = start
        while True:
            earlier = [o for o in replaced.get(current, []) if o not in placed]
            if not earlier:
                break
            current = max(earlier, key=lambda i: (dates[i], i))
            chain.append(current)
            placed.add(current)
        rows.append(chain[::-1])  # oldest first
    spans: list[tuple[list[str], list[int]]] = []
    for chain in rows:
        columns, column = [], -1
        for note_id in chain:
            column = max(rank[dates[note_id]], column + 1)
            columns.append(column)
        spans.append((chain, columns))
    spans.sort(key=lambda span: (span[1][0], span[0][0]))
    lane_ends: list[int] = []  # the last column used in each lane
    for chain, columns in spans:
        lane = next((n for n, end in enumerate(lane_ends) if end < columns[0] - 1), len(lane_ends))
        if lane == len(lane_ends):
            lane_ends.append(columns[-1])
        lane_ends[lane] = columns[-1]
        for note_id, column in zip(chain, columns, strict=True):
            group.place[note_id] = (column, lane)


def _node(vault: SiteVault, note_id: str, x: int, y: int) -> str:
    item = vault.notes[note_id]
    note = item.note
    state = "active" if item.active else "inactive"
    label = text(note.title, TITLE_CHARS)
    second = f"{text(note.date)} · {text(note.type)}" + ("" if item.active else " · inactive")
    return (
        f'<a href="notes/{note_id}.html" class="node {state}" data-note-id="{esc(note_id)}">'
        f"<title>{text(note.title, 300)} ({text(note.date)})</title>"
        f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6"/>'
        f'<text x="{x + 10}" y="{y + 19}" class="node-title">{label}</text>'
        f'<text x="{x + 10}" y="{y + 36}" class="node-meta">{second}</text></a>'
    )


def _edge(start: tuple[int, int], end: tuple[int, int], kind: str) -> str:
    (x1, y1), (x2, y2) = start, end
    if y1 == y2:  # one row: an arc above it, from the top of one to the top of the other
        sx, ex = x1 + NODE_W // 2, x2 + NODE_W // 2
        rise = min(TOP - 4, 14 + abs(x2 - x1) // COL_PITCH * 6)
        path = f"M{sx},{y1} C{sx},{y1 - rise} {ex},{y2 - rise} {ex},{y2}"
    elif x1 == x2:  # one column: from the bottom of one to the top of the other
        down = y2 > y1
        sy, ey = (y1 + NODE_H, y2) if down else (y1, y2 + NODE_H)
        sx = ex = x1 + NODE_W // 2
        path = f"M{sx},{sy} L{ex},{ey}"
    else:
        right = x2 > x1
        sx, ex = (x1 + NODE_W, x2) if right else (x1, x2 + NODE_W)
        sy, ey = y1 + NODE_H // 2, y2 + NODE_H // 2
        mid = (sx + ex) // 2
        path = f"M{sx},{sy} C{mid},{sy} {mid},{ey} {ex},{ey}"
    return f'<path class="edge {kind}" d="{path}" marker-end="url(#arrow-{kind})"/>'


MARKERS = "".join(
    f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
    f'markerHeight="7" orient="auto-start-reverse"><path class="arrow {kind}" '
    'd="M0,0 L10,5 L0,10 z"/></marker>'
    for kind in (REPLACES, DEPENDS, LINKS)
)


def group_svg(vault: SiteVault, group: Group, number: int) -> str:
    columns = 1 + max(column for column, _ in group.place.values())
    rows = 1 + max(row for _, row in group.place.values())
    width = PAD * 2 + (columns - 1) * COL_PITCH + NODE_W
    height = TOP + PAD + (rows - 1) * ROW_PITCH + NODE_H
    spot = {
        note_id: (PAD + column * COL_PITCH, TOP + row * ROW_PITCH)
        for note_id, (column, row) in group.place.items()
    }
    edges = "".join(_edge(spot[a], spot[b], kind) for a, b, kind in group.edges)
    nodes = "".join(_node(vault, note_id, *spot[note_id]) for note_id in group.ids)
    defs = f"<defs>{MARKERS}</defs>" if number == 0 else ""
    label = f"{len(group.ids)} notes, {group.replacements} replacements"
    return (
        f'<figure class="group"><figcaption>{esc(label)}</figcaption>'
        f'<div class="scroll"><svg class="map" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" '
        f'role="group" aria-label="{esc(label)}">{defs}{edges}{nodes}</svg></div></figure>'
    )


def map_body(vault: SiteVault) -> str:
    groups = groups_of(vault)
    drawn: list[Group] = []
    nodes = 0
    for group in groups:
        if nodes + len(group.ids) > MAX_NODES and drawn:
            break
        drawn.append(group)
        nodes += len(group.ids)
    alone = len(vault.notes) - sum(len(g.ids) for g in groups)
    left = groups[len(drawn) :]
    legend = (
        '<p class="legend"><span class="key replaces">replaced by</span> '
        '<span class="key depends">depends on</span> <span class="key links">links to</span> '
        '<span class="key inactive-key">inactive note</span></p>'
    )
    intro = (
        f'<h1>Map</h1><p class="lead">{len(groups)} group(s) of notes that replace, need or '
        f"link to each other; time runs left to right. {alone} note(s) stand alone and are "
        "not drawn.</p>" + legend
    )
    if left:
        intro += (
            f'<p class="notice">{len(left)} smaller group(s) ({sum(len(g.ids) for g in left)} '
            "notes) are not drawn: each note's page lists its relations.</p>"
        )
    svgs = "".join(group_svg(vault, group, number) for number, group in enumerate(drawn))
    return intro + svgs
