"""The sanitizer: idempotent, nothing banned survives, and it changes exactly what
the `injection/` errors report (so the PR comment shows what an agent gets)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lore import sanitize
from lore.sanitize import is_banned_char, sanitize_field, sanitize_text
from lore.sanitize.markdown import code_ranges, find_hazards, sanitize_markdown
from tests.steps import grows_linearly, growth

# Text that is mostly markdown-ish, with the characters that matter over-represented.
SPECIALS = [
    "<", ">", "!", "[", "]", "(", ")", "`", "~", "-", "\\", "\n", " ", ":", "?", "|",
    "\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\u00ad", "\x1b", "\x00", "\r",
    "\U000e0041", "\ufe0f", "\ufe0e", "\ufe01", "\U000e0100", "\u3164", "\ue000", "\u2028",
    "😀", "👩", "❤", "a", "b", "x", "<!--", "-->", "```", "~~~", "<div>", "</div>",
    "![a](http://x/y.png)", "[r]: http://x", "<http://a`>", "<?", "<!x>", "<![CDATA[",
]  # fmt: skip
markdownish = st.lists(st.one_of(st.sampled_from(SPECIALS), st.text(max_size=4)), max_size=60).map(
    "".join
)
any_text = st.one_of(st.text(max_size=200), markdownish)


def survivors(text: str) -> list[str]:
    """Banned characters left in `text`, other than a ZWJ between two emoji."""
    left = []
    for index, char in enumerate(text):
        if char == "\u200d" and 0 < index < len(text) - 1:
            continue
        if is_banned_char(char):
            left.append(char)
    return left


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(any_text)
@example("<!<!---->-->")
@example("!![a](b)(c)")
@example("`<!--` <!-- hidden -->")
@example("<!---->\ufe0e")  # a presentation selector left alone once the comment goes
def test_sanitize_markdown_is_idempotent_and_leaves_nothing_banned(text: str) -> None:
    once = sanitize_markdown(text)
    assert sanitize_markdown(once) == once
    assert survivors(once) == []
    assert find_hazards(once) == []


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(any_text)
def test_the_package_entry_point_is_the_full_sanitizer(text: str) -> None:
    # `lore.sanitize.sanitize_markdown` skips the markdown module when no markup is there.
    assert sanitize.sanitize_markdown(text) == sanitize_markdown(text)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(any_text, st.integers(min_value=0, max_value=80))
@example("000000000000000`<A>0`", 20)  # the cut opened the code span: `<A>` was bare
@example("\xa0<A", 0)  # joining dropped the no-break space: `<A` then started the line
def test_a_field_is_one_clean_line(text: str, limit: int) -> None:
    field = sanitize_field(text, limit)
    assert "\n" not in field and "\r" not in field
    assert survivors(field) == []
    assert find_hazards(field) == []
    assert not limit or len(field) <= limit


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(any_text)
def test_sanitize_text_is_idempotent_and_leaves_nothing_banned(text: str) -> None:
    once = sanitize_text(text)
    assert sanitize_text(once) == once
    assert survivors(once) == []


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(any_text)
def test_hazards_are_reported_exactly_when_sanitizing_changes_the_text(text: str) -> None:
    assert bool(find_hazards(text)) == (sanitize_markdown(text) != text)
    assert bool(find_hazards(text, markdown=False)) == (sanitize_text(text) != text)
    for hazard in find_hazards(text):
        assert 0 <= hazard.start <= hazard.end <= len(text)


@given(st.text(max_size=300))
def test_code_ranges_are_sorted_and_inside_the_text(text: str) -> None:
    ranges = code_ranges(text)
    assert ranges == sorted(ranges)
    for start, end in ranges:
        assert 0 <= start < end <= len(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("a\u202eb", "bidi-control"),
        ("tag\U000e0069\U000e0067", "tag-character"),
        ("zero\u200bwidth", "zero-width"),
        ("x\u200dy", "zero-width"),
        ("ansi \x1b[31mred", "control-character"),
        ("soft\u00adhyphen", "format-character"),
        ("smuggled 😀\U000e0101\U000e0102", "format-character"),
        ("hangul\u3164filler", "format-character"),
        ("a <!-- hidden --> b", "html-comment"),
        ("a <details>b</details>", "raw-html"),
        ("a <?php echo ?>", "raw-html"),
        ("![x](https://evil.example/p.png)", "remote-image"),
        ("![x](//evil.example/p.png)", "remote-image"),
        ("![x](diagram.png)", "image"),
        ("[ref]: https://example.com\n", "link-reference"),
    ],
)
def test_each_hazard_kind(text: str, kind: str) -> None:
    assert kind in {hazard.kind for hazard in find_hazards(text)}


@pytest.mark.parametrize(
    "text",
    [
        "family 👨\u200d👩\u200d👧 emoji",
        "heart ❤\ufe0f and keycap 1\ufe0f\u20e3",
        "`<div>` in a code span",
        "```html\n<!-- comment -->\n<img src=x>\n```\n",
        "~~~\n<b>bold</b>\n~~~",
        "``code with ` inside <b>``",
        "tabs\tand\nnewlines",
        "café 日本語 — “quotes”",
    ],
)
def test_harmless_text_is_left_alone(text: str) -> None:
    assert find_hazards(text) == []
    assert sanitize_markdown(text) == text


@pytest.mark.parametrize(
    "text",
    [
        # An autolink takes precedence over a code span, so its backtick opens nothing.
        "<http://x/`> <!-- hidden --> `",
        # An escaped backtick is literal.
        "\\` <!-- hidden --> `",
        # Raw HTML that starts first holds a backtick; the comment after it is real.
        "<a title='`'> <!-- hidden --> `",
        # A comment's backtick opens nothing either.
        "<!-- ` --> <!-- hidden --> `",
        # An HTML comment running through a fence still starts outside it.
        "<!--\n```\nhidden\n```\n-->",
        # An image whose alt text holds a code span, nested brackets, or an autolink.
        "![a `b` c](https://evil.example/p.png)",
        "![a [b] c](https://evil.example/p.png)",
        "![x<http://a]b>](https://evil.example/p.png)",
        "![a\n](https://evil.example/p.png)",
        # Link-reference definitions with escaped brackets, in quotes and lists, on two lines.
        "[a\\]b]: https://evil.example/p.png\n",
        "> [x]: https://evil.example/p.png\n",
        "- [x]: https://evil.example/p.png\n",
        "[foo\nbar]: https://evil.example/p.png\n",
        # A tag whose quoted attribute holds '<' or '>'.
        '<img src=https://evil.example/p.png title="<">',
        '<img title=">" src=https://evil.example/p.png>',
    ],
)
def test_code_cannot_be_used_to_hide_html(text: str) -> None:
    cleaned = sanitize_markdown(text)
    assert "<!--" not in cleaned
    assert "](https://evil.example" not in cleaned
    assert "]: https://evil.example" not in cleaned
    assert "<img" not in cleaned
    assert find_hazards(text) != []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # A code span that a heading or a list item would have ended early.
        ("`x\n# <img src=https://evil.example/p.png> `", "raw-html"),
        ("`a\n2. b` <!-- x --> `c`", "html-comment"),
        # An HTML block opened by an incomplete tag swallows the fence after it.
        ("<div\n```\n<!-- hidden -->\n```\n", "raw-html"),
        # A fence in a list item ends with the item; an unclosed fence is not trusted.
        ("- a\n  ```\n  code\nb <!-- x -->\n```\n", "html-comment"),
        ("```\n<!-- x -->\n", "html-comment"),
        # Tags that fetch or hide are never excused by a code span.
        ("use `<img src=https://evil.example/p.png>` here", "raw-html"),
        ("`<details>` folds text away", "raw-html"),
        # An image whose alt text holds a code span with a bracket.
        ("![a `]` b](https://evil.example/p.png)", "remote-image"),
        # Not provably an image, but it could be one: the '!' goes.
        ("![a <b>](https://evil.example/p.png)", "remote-image"),
    ],
)
def test_ambiguous_structure_is_read_as_prose(text: str, kind: str) -> None:
    assert kind in {hazard.kind for hazard in find_hazards(text)}
    cleaned = sanitize_markdown(text)
    assert "![" not in cleaned
    assert "<img" not in cleaned


def test_hazard_offsets_point_at_the_original_text() -> None:
    text = "ok\u200b\n<!-- x -->"
    hazards = find_hazards(text)
    assert [h.kind for h in hazards] == ["zero-width", "html-comment"]
    assert text[hazards[1].start : hazards[1].start + 4] == "<!--"


@pytest.mark.parametrize(
    ("make", "count"),
    [
        (lambda n: "![" * n, 30_000),
        (lambda n: "<!--" * n, 15_000),
        (lambda n: "<a b='" * n, 10_000),
        (lambda n: "[" * n, 60_000),
        (lambda n: "`a" * n, 30_000),
        (lambda n: "<http://x" * n, 7_000),
        (lambda n: "[x]:" * n, 15_000),
        (lambda n: ("- " * 10 + "\n") * n, 2_000),
        (lambda n: "<a " + "b " * n, 30_000),
    ],
    ids=lambda value: repr(value(4)[:8]) if callable(value) else str(value),
)
def test_hostile_markdown_is_sanitized_in_linear_steps(
    make: Callable[[int], str], count: int
) -> None:
    """Doubling hostile markdown at most doubles the sanitizer's added work, counted in
    lines of Python run (tests/steps.py); the regular expressions' own time is measured
    by bench/bench_hostile_input.py."""

    def sanitize_twice(repeats: int) -> None:
        text = make(repeats)
        once = sanitize_markdown(text)
        find_hazards(text)
        assert sanitize_markdown(once) == once

    assert grows_linearly(sanitize_twice, count), growth(sanitize_twice, count)
