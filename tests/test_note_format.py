"""Reading and writing notes: the file format of DESIGN.md 2.1, and hostile files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.errors import NoteError
from lore.note.ids import is_valid_id, make_id
from lore.note.model import Note
from lore.note.parse import MAX_NOTE_BYTES, inspect_note, parse_note
from lore.note.render import render_note
from tests.support import note_text

PATH = "notes/billing--httpx-tests--2026-11-02.md"


def codes(raw: bytes | str) -> list[str]:
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    return [p.code for p in inspect_note(data, PATH).problems]


def test_reads_every_field() -> None:
    text = note_text(
        repo="payments-api",
        services="[billing]",
        files_touched="[tests/integration/conftest.py, Dockerfile]",
        author="octocat",
        supersedes="[billing--old-tests--2026-03-14]",
        expires="2027-11-02",
        source="https://github.com/acme/payments-api/pull/812",
    )
    note = parse_note(text.encode(), PATH)
    assert note.id == "billing--httpx-tests--2026-11-02"
    assert note.tags == ("service/billing", "tool/httpx", "pattern/testing")
    assert note.repo == ("payments-api",)
    assert note.files_touched == ("tests/integration/conftest.py", "Dockerfile")
    assert note.supersedes == ("billing--old-tests--2026-03-14",)
    assert note.expires == "2027-11-02"
    assert note.summary == "Billing integration tests call the running container over HTTP."


def test_bom_and_crlf_are_accepted() -> None:
    text = note_text().replace("\n", "\r\n")
    note = parse_note(b"\xef\xbb\xbf" + text.encode(), PATH)
    assert note.title.startswith("Integration tests")
    assert "\r" not in note.body


def test_yaml_11_surprises_stay_strings() -> None:
    note = parse_note(note_text(title="NO", confidence="High").encode(), PATH)
    assert note.title == "NO"
    assert note.confidence == "high"


@pytest.mark.parametrize(
    ("written", "normal"),
    [
        ("2026-11-02", "2026-11-02"),
        ("'2026-11-02'", "2026-11-02"),
        ("2026-11-02T09:30:00Z", "2026-11-02"),
        ("2026-11-02 09:30", "2026-11-02"),
    ],
)
def test_dates_are_normalised(written: str, normal: str) -> None:
    assert parse_note(note_text(date=written).encode(), PATH).date == normal


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        (note_text(date="2026-13-01"), "frontmatter/invalid-date", 6),
        (note_text(confidence="certain"), "frontmatter/invalid-confidence", 5),
        (note_text(title="[a, b]"), "frontmatter/wrong-type", 2),
        (note_text().replace("confidence: high\n", ""), "frontmatter/missing-field", None),
        ("## What\nNo frontmatter at all.\n", "frontmatter/missing", 1),
        ("---\ntitle: x\n## What\nnever closed\n", "frontmatter/unterminated", 1),
        (note_text(author="&a octocat", source="*a"), "frontmatter/yaml-alias", 7),
        (note_text(author="!!python/object:os.system x"), "frontmatter/unsafe-yaml", 7),
        (
            note_text(type="decision", author="x").replace("author: x", "type: gotcha"),
            "frontmatter/duplicate-key",
            7,
        ),
        (note_text(author="x: y: z"), "frontmatter/invalid-yaml", 7),
        (note_text(services="[" * 50 + "]" * 50), "frontmatter/unsafe-yaml", 7),
        (note_text(supersedes="[not an id]"), "frontmatter/invalid-reference", 7),
    ],
)
def test_bad_notes_name_the_line_and_the_fix(text: str, code: str, line: int | None) -> None:
    report = inspect_note(text.encode(), PATH)
    matching = [p for p in report.problems if p.code == code]
    assert matching, report.problems
    problem = matching[0]
    if line is not None:
        assert problem.line == line
    assert problem.fix
    assert problem.sentence().startswith(PATH)
    assert report.note is None


def test_unknown_field_is_a_warning_and_kept() -> None:
    report = inspect_note(note_text(owner="team-a").encode(), PATH)
    assert [p.code for p in report.problems] == ["frontmatter/unknown-field"]
    assert report.problems[0].severity == "warning"
    assert report.note is not None
    assert report.note.extra == {"owner": "team-a"}
    assert "owner:" in render_note(report.note)


def test_size_limits() -> None:
    big_frontmatter = note_text(source="x" * 9000)
    assert "frontmatter/too-large" in codes(big_frontmatter)
    big_note = note_text(body="## What\n" + "word " * (MAX_NOTE_BYTES // 5))
    assert "frontmatter/note-too-large" in codes(big_note)


def test_non_utf8_names_the_line() -> None:
    raw = note_text().encode() + b"\n## Why\nbad byte \xff here\n"
    report = inspect_note(raw, PATH)
    assert report.problems[0].code == "frontmatter/encoding"
    assert report.problems[0].line == raw.count(b"\n", 0, raw.index(b"\xff")) + 1


def test_deep_nesting_in_block_style_is_rejected() -> None:
    nested = "services:\n" + "".join("  " * i + "- \n" for i in range(1, 60))
    text = note_text().replace("date: 2026-11-02\n", "date: 2026-11-02\n" + nested)
    assert inspect_note(text.encode(), PATH).note is None


def test_parse_note_raises_with_a_sentence() -> None:
    with pytest.raises(NoteError) as caught:
        parse_note(b"no frontmatter", PATH)
    assert str(caught.value).startswith(f"{PATH}:1: ")


def test_ids() -> None:
    assert is_valid_id("billing--integration-tests-use-httpx--2026-11-02")
    for bad in (
        "Billing--x--2026-11-02",
        "billing--x--2026-02-30",
        "billing-x-2026-11-02",
        "billing--x--y--2026-11-02",
        "billing---x--2026-11-02",
        "a" * 200,
    ):
        assert not is_valid_id(bad), bad
    from datetime import date

    assert make_id("Billing API", "Tests use httpx!", date(2026, 11, 2)) == (
        "billing-api--tests-use-httpx--2026-11-02"
    )


# --- property: render then parse gives the same note -------------------------------------

_text = (
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs",), blacklist_characters="\r\n", max_codepoint=0x2FFFF
        ),
        min_size=1,
        max_size=60,
    )
    .map(str.strip)
    .filter(bool)
)
_word = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}", fullmatch=True)
_tag = st.builds(lambda d, n: f"{d}/{n}", _word, _word)
_date = st.dates().map(lambda d: d.isoformat()).filter(lambda d: len(d) == 10)
_id = st.builds(lambda a, b, d: f"{a}--{b}--{d}", _word, _word, _date)


@settings(max_examples=120, deadline=None)
@given(
    title=_text,
    tags=st.lists(_tag, min_size=1, max_size=4, unique=True),
    confidence=st.sampled_from(["high", "medium", "low"]),
    date=_date,
    repo=st.lists(_word, max_size=2, unique=True),
    files=st.lists(
        st.from_regex(r"[A-Za-z0-9_./-]{1,30}", fullmatch=True).filter(
            lambda s: s.strip() == s and not s.startswith("-")
        ),
        max_size=3,
    ),
    supersedes=st.lists(_id, max_size=2, unique=True),
    author=st.one_of(st.none(), _text),
    body=st.text(max_size=300).map(lambda b: b.replace("\r", "")),
)
def test_render_parse_round_trip(
    title: str,
    tags: list[str],
    confidence: str,
    date: str,
    repo: list[str],
    files: list[str],
    supersedes: list[str],
    author: str | None,
    body: str,
) -> None:
    from lore.note.parse import normalize_body

    body = normalize_body("## What\n" + body)
    note = Note(
        id="scope--topic--2026-11-02",
        path="notes/scope--topic--2026-11-02.md",
        title=title,
        type="decision",
        tags=tuple(tags),
        confidence=confidence,
        date=date,
        body=body,
        repo=tuple(repo),
        files_touched=tuple(files),
        supersedes=tuple(supersedes),
        author=author,
    )
    text = render_note(note)
    parsed = parse_note(text.encode(), note.path)
    assert parsed == note
    assert render_note(parsed) == text


# --- property: the fast path reads frontmatter exactly as YAML does ----------------------

_line_value = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=40),
    st.lists(st.text(alphabet="abcxyz019_./+@ -:#&*'\"[]{}", max_size=12), max_size=4).map(
        lambda items: "[" + ", ".join(items) + "]"
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True), _line_value),
        min_size=1,
        max_size=6,
    )
)
def test_fast_frontmatter_path_agrees_with_yaml(pairs: list[tuple[str, str]]) -> None:
    from lore.yamlio import YamlProblem, _StrictLoader, fast_flat_mapping

    text = "".join(f"{key}: {value}\n" for key, value in pairs)
    fast = fast_flat_mapping(text)
    if fast is None:
        return
    loader = _StrictLoader(text)
    try:
        slow = loader.get_single_data()
    except (YamlProblem, Exception):  # noqa: BLE001 - YAML refused what the fast path took
        raise AssertionError(f"fast path accepted what YAML rejects: {text!r}") from None
    finally:
        loader.dispose()
    normal = {
        k: [i.strip() for i in v] if isinstance(v, list) else (v.strip() if v else v)
        for k, v in (slow or {}).items()
    }
    assert fast == normal, text


def test_typical_frontmatter_takes_the_fast_path() -> None:
    from lore.note.parse import split_frontmatter
    from lore.yamlio import fast_flat_mapping

    split = split_frontmatter(note_text(repo="payments-api", source="https://x.test/a?b=c"), PATH)
    assert not isinstance(split, type(None))
    assert fast_flat_mapping(split[0]) is not None  # type: ignore[index]
