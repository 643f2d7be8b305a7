"""`lore.text.markdown` and `lore.text.prose`: headings, sections and prose as CommonMark
reads them, one reading for the rules, the judgement, snippets and the importers."""

from __future__ import annotations

import pytest

from lore.text.headings import heading, without_headings
from lore.text.markdown import sections
from lore.text.prose import prose_sections, what_of


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("# Title", (1, "Title")),
        ("###### Six", (6, "Six")),
        ("   ## Indented three", (2, "Indented three")),
        ("## Closed ##", (2, "Closed")),
        ("## Use C#", (2, "Use C#")),  # a closing run needs a space before it
        ("#", (1, "")),
        ("#5 bolt", None),  # CommonMark: no space after the #
        ("####### Seven", None),
        ("    # four spaces is code", None),
        ("#hashtag", None),
    ],
)
def test_a_heading_is_an_atx_heading(line: str, expected: tuple[int, str] | None) -> None:
    assert heading(line) == expected


def test_headings_inside_code_are_not_sections() -> None:
    body = "## What\nText.\n```sh\n# a shell comment\n```\n## Why\nBecause.\n"
    assert [(s.level, s.title) for s in sections(body)] == [(2, "What"), (2, "Why")]
    assert "comment" not in without_headings("# a comment\nkept")


def test_prose_is_what_the_author_wrote() -> None:
    body = (
        "## What\n"
        "Retry the **ledger** write with `backoff=2`.\n"
        "> Someone else said to never retry.\n"
        "<!-- template hint: describe the decision -->\n"
        "~~Use a queue~~ (withdrawn)\n"
        "See https://example.com and [[other-note]].\n"
        "```python\nretry(forever=True)\n```\n"
        "## Related\n- [[ledger-timeouts]]\n### Sub-section of Related\ntext\n"
        "## Why\nWrites time out under load.\n"
    )
    parts = prose_sections(body)
    assert [name for name, _ in parts] == ["what", "why"]
    what = parts[0][1]
    assert "ledger write with backoff=2" in what
    for gone in ("Someone else", "template hint", "Use a queue", "example.com", "forever"):
        assert gone not in what
    assert what_of(body) == what
    assert what_of("No headings, one paragraph.") == "No headings, one paragraph."
