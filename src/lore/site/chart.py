"""The pulse chart: notes recorded per month, drawn as SVG when the site is built.

A month is counted from each note's `date` (the day the knowledge was recorded or
last verified, as `lore stats` counts weeks). The chart ends with the pinned clock's
month and goes back to the first note's month, at most `MONTHS` months; notes dated
earlier are counted in the caption. Bars carry a `<title>` each (the month and its
count) and the SVG an `aria-label`; colours come from the site's stylesheet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import date

from lore.site.layout import esc

MONTHS = 36
WIDTH, HEIGHT = 720, 180
TOP, BOTTOM, LEFT = 16, 28, 32


def _month(value: str) -> tuple[int, int] | None:
    try:
        day = date.fromisoformat(value[:10])
    except ValueError:
        return None
    return day.year, day.month


def _months_back(end: tuple[int, int], count: int) -> list[tuple[int, int]]:
    year, month = end
    months = []
    for _ in range(count):
        months.append((year, month))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return months[::-1]


def month_counts(dates: Iterable[str], today: date) -> tuple[list[tuple[str, int]], int]:
    """(YYYY-MM, notes) for each month shown, oldest first; and how many notes are older."""
    counts: Counter[tuple[int, int]] = Counter(m for d in dates if (m := _month(d)) is not None)
    end = (today.year, today.month)
    known = [month for month in counts if month <= end]
    if not known:
        return [], 0
    first = min(known)
    span = (end[0] - first[0]) * 12 + end[1] - first[1] + 1
    shown = _months_back(end, max(1, min(MONTHS, span)))
    older = sum(count for month, count in counts.items() if month < shown[0])
    return [(f"{y}-{m:02d}", counts[(y, m)]) for y, m in shown], older


def month_chart(dates: Iterable[str], today: date) -> str:
    """The chart as an inline `<figure>` with an SVG, or a sentence when there is nothing."""
    months, older = month_counts(dates, today)
    if not months:
        return '<p class="empty">No notes yet.</p>'
    top = max(count for _, count in months) or 1
    plot_h = HEIGHT - TOP - BOTTOM
    step = (WIDTH - LEFT) / len(months)
    bar_w = max(2.0, step * 0.75)
    parts = [
        f'<line class="axis" x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH}" '
        f'y2="{HEIGHT - BOTTOM}"/>',
        f'<text class="tick" x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end">{top}</text>',
        f'<text class="tick" x="{LEFT - 6}" y="{HEIGHT - BOTTOM}" text-anchor="end">0</text>',
    ]
    for number, (month, count) in enumerate(months):
        x = LEFT + number * step + (step - bar_w) / 2
        height = plot_h * count / top
        y = HEIGHT - BOTTOM - height
        label = f"{month}: {count} note{'s' if count != 1 else ''}"
        parts.append(
            f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
            f'height="{height:.1f}"><title>{esc(label)}</title></rect>'
        )
        if month.endswith("-01") or number == 0:
            parts.append(
                f'<text class="tick" x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}">{esc(month)}</text>'
            )
    total = sum(count for _, count in months)
    caption = f"{total} notes in the {len(months)} months shown, by the date each was recorded"
    if older:
        caption += f"; {older} older"
    summary = ", ".join(f"{month}: {count}" for month, count in months if count)
    return (
        '<figure class="chart">'
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="Notes per month. {esc(summary)}" xmlns="http://www.w3.org/2000/svg">'
        + "".join(parts)
        + f"</svg><figcaption>{esc(caption)}.</figcaption></figure>"
    )
