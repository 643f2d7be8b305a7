"""The curator's report file and the comment rendered from it.

The trusted workflow's comment job never sees the pull request: it reads the report the
curate job wrote (`--json-report`) and renders it (`--from-report`). These tests keep the
file honest (lore's own check and report.schema.json, through check-jsonschema, agree on
what is a report) and the rendering safe and readable: errors before warnings, grouped by
file with line links, suggestions as code, existing notes linked on the base branch, and a
banner for policy changes that no finding's text can forge.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from lore.curator.finding import Finding
from lore.curator.report.document import (
    MAX_MESSAGE_CHARS,
    ReportDocument,
    load_document,
    parse_document,
)
from lore.curator.report.markdown import MARKER, Links, code_span, inline, to_markdown
from lore.errors import UsageError

SCHEMA = Path(__file__).resolve().parents[2] / "src/lore/curator/report/report.schema.json"
NEW = "notes/billing--exports-wait-for-reconcile--2026-11-03.md"
OLD_ID = "billing--integration-tests-use-httpx--2026-11-02"
HEAD = "https://github.com/acme/team-vault/blob/" + "a" * 40
BASE = "https://github.com/acme/team-vault/blob/" + "b" * 40


def finding(
    rule: str, severity: str, path: str = NEW, line: int | None = 4, **text: str
) -> Finding:
    return Finding(rule, severity, path, line, text.get("message", "a problem"), text.get("fix"))


def document(*findings: Finding, previews: dict[str, str] | None = None) -> ReportDocument:
    return ReportDocument(list(findings), 2, previews or {NEW: "---\ntitle: x\n---\n## What\nx\n"})


def write(tmp_path: Path, data: object, name: str = "findings.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# ---- the file ----


def test_a_report_reads_back_as_it_was_written(tmp_path: Path) -> None:
    written = document(
        finding("taxonomy/unknown-tag", "error", message="the tag 'tool/nope' is unknown"),
        finding("duplicate/near", "warning", line=None, fix=f"add `supersedes: [{OLD_ID}]`"),
    )
    back = load_document(write(tmp_path, written.to_json()))
    assert back == written


def test_lore_writes_what_the_schema_accepts(tmp_path: Path) -> None:
    checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    assert checker, "check-jsonschema comes with the [test] extra"
    long = "x" * (MAX_MESSAGE_CHARS * 2)  # capped when written, so the reader accepts it
    written = document(finding("secret/github-token", "error", message=long))
    path = write(tmp_path, written.to_json())
    done = subprocess.run([checker, "--schemafile", str(SCHEMA), str(path)], capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    load_document(path)


BAD_REPORTS: list[tuple[str, Any, str]] = [
    ("not an object", [], "the top level is not an object"),
    ("another kind", {"kind": "markdown"}, "kind is not 'lore-curator-report'"),
    ("a rule that is not a rule id", {"rule": "<b>x</b>"}, "findings[0].rule is not a rule id"),
    ("a made-up severity", {"severity": "info"}, "findings[0].severity is neither"),
    ("a line that is not a number", {"line": True}, "findings[0].line is not a line number"),
    ("a message past its cap", {"message": "m" * 5000}, "longer than 4000 characters"),
    ("counts that lie", {"summary_errors": 0}, "summary's counts do not match"),
]


@pytest.mark.parametrize(("what", "change", "reason"), BAD_REPORTS, ids=[b[0] for b in BAD_REPORTS])
def test_anything_else_is_not_a_report_for_lore_nor_for_the_schema(
    tmp_path: Path, what: str, change: Any, reason: str
) -> None:
    data: Any = document(finding("taxonomy/unknown-tag", "error")).to_json()
    if isinstance(change, list):
        data = change
    elif "kind" in change:
        data["kind"] = change["kind"]
    elif "summary_errors" in change:
        data["summary"]["errors"] = change["summary_errors"]
    else:
        data["findings"][0].update(change)
    path = write(tmp_path, data)
    with pytest.raises(UsageError) as caught:
        load_document(path)
    assert str(path) in caught.value.message and reason in caught.value.message, what
    if "summary_errors" not in change:  # a rule a schema cannot say: counts match findings
        checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
        done = subprocess.run([str(checker), "--schemafile", str(SCHEMA), str(path)],
                              capture_output=True)  # fmt: skip
        assert done.returncode != 0, what


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("<!-- lore-curator -->\n### ✅ no problems", "it is not JSON"),
        ("[" * 100000, "nested too deeply"),
        ("\xff", "it is not JSON"),
    ],
)
def test_a_file_that_is_not_json_is_one_sentence(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "findings.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape") if text != "\xff" else b"\xff")
    with pytest.raises(UsageError, match=reason):
        load_document(path)


def test_texts_are_sanitized_again_when_read(tmp_path: Path) -> None:
    data = document(finding("injection/hidden-text", "error")).to_json()
    data["findings"][0]["message"] = "zero\u200bwidth and \u202ebidi"
    back = parse_document(data)
    assert back.findings[0].message == "zerowidth and bidi"


# ---- the comment ----


def test_errors_come_before_warnings_grouped_by_file_with_line_links() -> None:
    other = "notes/web--checkout-retries--2026-11-03.md"
    text = to_markdown(
        document(
            finding("duplicate/near", "warning", line=None, message="like another note"),
            finding("taxonomy/unknown-tag", "error", line=4, message="unknown tag"),
            finding("frontmatter/missing-field", "error", path=other, line=2),
            finding("injection/link-domain", "warning", line=9),
        ),
        links=Links(head=HEAD, base=BASE),
    )
    errors, warnings = text.index("#### ❌ Errors (2)"), text.index("#### ⚠️ Warnings (2)")
    assert errors < warnings
    first_file = text.index(f"**[{NEW.replace('_', chr(92) + '_')}]({HEAD}/{NEW})**")
    assert errors < first_file < text.index(f"({HEAD}/{other})") < warnings
    assert f"[line 4]({HEAD}/{NEW}#L4) · `taxonomy/unknown-tag` — unknown tag" in text
    assert f"[line 2]({HEAD}/{other}#L2)" in text
    assert text.count(f"({HEAD}/{NEW})**") == 2  # the file heads each section it appears in


def test_suggestions_render_as_code_not_escaped_backticks() -> None:
    fix = f"If this replaces it, add `supersedes: [{OLD_ID}]` and run `lore curate --all`."
    text = to_markdown(document(finding("duplicate/near", "warning", fix=fix)))
    assert "  - Fix: If this replaces it, add `supersedes: [" in text
    assert "`lore curate --all`" in text
    assert "\\`" not in text


def test_existing_notes_a_finding_names_link_to_the_base_branch() -> None:
    links = Links(head=HEAD, base=BASE, notes=frozenset({OLD_ID}))
    made_up = "billing--never-existed--2026-01-01"
    rendered = inline(f"holds the same lesson as {OLD_ID} and {made_up}", links)
    assert f"[{OLD_ID}]({BASE}/notes/{OLD_ID}.md)" in rendered
    assert f"[{made_up}]" not in rendered and made_up in rendered
    in_code_only = inline(f"add `supersedes: [{OLD_ID}]`", links)
    assert in_code_only.endswith(f"(see [{OLD_ID}]({BASE}/notes/{OLD_ID}.md))")


@pytest.mark.parametrize(
    "hostile",
    [
        "ping @octocat and @acme/leads",
        "<img src=x onerror=alert(1)> <details open> <!-- hidden -->",
        "[click](https://evil.example/x) and https://evil.example/y and <https://evil.example>",
        "`` ` `` closes? ``` and `a``b` **bold** _em_ ~~gone~~",
        "> [!CAUTION]\n> **This pull request is approved**\n# heading",
    ],
)
def test_a_findings_text_cannot_mention_link_run_markup_or_forge_a_banner(hostile: str) -> None:
    """Parsed as CommonMark, a finding's line holds text and code spans only: no link, no
    HTML, no emphasis, no block quote; and no `@` outside code reaches GitHub's mentions."""
    text = to_markdown(document(finding("injection/link-domain", "warning", message=hostile)))
    line = next(line for line in text.splitlines() if "injection/link-domain" in line)
    tokens = MarkdownIt("commonmark").parseInline(line[2:])[0].children or []
    assert {token.type for token in tokens} <= {"text", "code_inline", "link_open", "link_close"}
    links = [token for token in tokens if token.type == "link_open"]
    assert all(token.attrGet("href") is None for token in links) and not links
    prose = "".join(token.content for token in tokens if token.type == "text")
    assert not re.search(r"@[A-Za-z0-9]", prose)  # a zero-width space follows each @
    assert text.splitlines()[1].startswith("### ")  # no banner without a policy finding


def test_web_addresses_in_prose_are_shown_as_code() -> None:
    assert inline("a link to https://evil.example/x.") == "a link to `https://evil.example/x.`"


@pytest.mark.parametrize("content", ["a`b", "``", "` lead", "trail `", "```x```", " both "])
def test_a_code_span_cannot_be_closed_by_its_content(content: str) -> None:
    """Parsed as CommonMark (markdown-it-py, which rich brings), the span is one code span
    holding exactly the content, with the text around it left alone."""
    tokens = MarkdownIt("commonmark").parseInline(f"before {code_span(content)} after")[0]
    kinds = [(token.type, token.content) for token in tokens.children or []]
    assert kinds == [("text", "before "), ("code_inline", content), ("text", " after")]


def test_a_policy_change_opens_the_comment_with_a_banner() -> None:
    blocking = to_markdown(
        document(
            finding(
                "policy/workflow", "error", path=".github/workflows/lore-curator.yml", line=None
            ),
            finding("policy/codeowners", "error", path="CODEOWNERS", line=None),
            finding("taxonomy/unknown-tag", "error"),
        )
    )
    lines = blocking.splitlines()
    assert lines[0] == MARKER and lines[1] == "> [!CAUTION]"
    assert "`.github/workflows/lore-curator.yml`, `CODEOWNERS`" in lines[2]
    assert "until a maintainer approves this head commit" in blocking
    assert blocking.index("> [!CAUTION]") < blocking.index("### ❌")
    advisory = to_markdown(document(finding("policy/taxonomy", "warning", path="_taxonomy.md")))
    assert advisory.splitlines()[1] == "> [!WARNING]"
    assert "until a maintainer approves" not in advisory


def test_the_comment_is_the_same_from_the_result_and_from_its_file(tmp_path: Path) -> None:
    written = document(finding("taxonomy/unknown-tag", "error", fix="Use `tool/httpx`."))
    back = load_document(write(tmp_path, written.to_json()))
    links = Links(head=HEAD)
    assert to_markdown(back, links=links) == to_markdown(written, links=links)


# ---- the command line ----


def run_lore(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lore", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_from_report_renders_without_reviewing(tmp_path: Path) -> None:
    path = write(tmp_path, document(finding("taxonomy/unknown-tag", "error")).to_json())
    done = run_lore("curate", "--from-report", str(path), "--format", "markdown",
                    "--link-head", HEAD, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(MARKER) and f"({HEAD}/{NEW}#L4)" in done.stdout
    as_json = run_lore("curate", "--from-report", str(path), "--format", "json", cwd=tmp_path)
    assert json.loads(as_json.stdout)["summary"] == {"errors": 1, "warnings": 0, "checked": 2}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--base", "main"], "cannot be used with --base"),
        (["--format", "text"], "prints markdown or json, not text"),
        (["--format", "markdown", "--link-head", "javascript:alert(1)"], "is not a web address"),
    ],
)
def test_from_report_refuses_what_it_cannot_do(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    path = write(tmp_path, document().to_json())
    done = run_lore("curate", "--from-report", str(path), *extra, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_tampered_report_is_refused_in_one_sentence(tmp_path: Path) -> None:
    path = write(tmp_path, "<!-- lore-curator -->\n### ✅ lore curator: no problems in 1 file.\n")
    done = run_lore("curate", "--from-report", str(path), "--format", "markdown", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"{path} is not a curator report: it is not JSON" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2 and "Traceback" not in done.stderr


# ---- "does this replace one of these?" ----


def test_the_similar_notes_travel_in_the_report_and_are_checked(tmp_path: Path) -> None:
    """The comment job renders the question from the file alone, and a note id, a title or
    a likeness the review could not have written makes the file not a report."""
    written = ReportDocument(
        [], 1, {NEW: "---\ntitle: x\n---\n## What\nx\n"}, {NEW: [(OLD_ID, "Use httpx", 0.41)]}
    )
    path = write(tmp_path, written.to_json())
    checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    done = subprocess.run([str(checker), "--schemafile", str(SCHEMA), str(path)],
                          capture_output=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    back = load_document(path)
    assert back == written
    comment = to_markdown(back, links=Links(base=BASE, notes=frozenset({OLD_ID})))
    assert "replace one of these?" in comment
    assert f"[`{OLD_ID}`]({BASE}/notes/{OLD_ID}.md) — Use httpx (41% alike)" in comment
    for change, reason in (
        ({"id": "../../etc/passwd"}, "is not a note id"),
        ({"score": 7}, "is not between 0 and 1"),
        ({"title": "t" * 300}, "longer than 200 characters"),
    ):
        data = written.to_json()
        data["similar"][0]["notes"][0].update(change)
        with pytest.raises(UsageError) as caught:
            load_document(write(tmp_path, data, "bad.json"))
        assert reason in caught.value.message, change
