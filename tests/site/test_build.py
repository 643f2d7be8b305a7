"""`lore site` as files: what it reads (the reviewed branch only), what each page holds,
where it writes, and what it refuses. The browser's view is tests/site/test_browser.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.errors import UsageError
from lore.site.build import build_site
from lore.site.chart import month_counts
from lore.site.content import read_site_vault
from lore.site.graph import groups_of
from lore.site.layout import CSP, slug
from lore.site.markdown import BodyRenderer, safe_href
from lore.site.search import search_data, words
from tests.support import Vault, git, note_text

OLD = "billing--tests-use-testclient--2025-03-14"
NEW = "billing--tests-use-httpx--2026-01-10"
NEWEST = "billing--tests-use-httpx-everywhere--2026-09-01"
BASE = "platform--postgres-16--2025-06-01"
NEEDS = "billing--ledger-uses-postgres-16--2025-07-01"


def run_lore(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lore", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def related_vault(make_vault: Callable[..., Vault]) -> Vault:
    return make_vault(
        {
            OLD: note_text("Billing tests use TestClient", date="2025-03-14"),
            NEW: note_text(
                "Billing tests use httpx",
                date="2026-01-10",
                supersedes=f"[{OLD}]",
                body=f"## What\nSee [[{BASE}]] and `[[{NEEDS}]]` (code, not a link).\n",
            ),
            NEWEST: note_text(
                "Billing tests use httpx everywhere", date="2026-09-01", supersedes=f"[{NEW}]"
            ),
            BASE: note_text("We run Postgres 16", date="2025-06-01", repo="payments-api"),
            NEEDS: note_text(
                "The ledger relies on Postgres 16", date="2025-07-01", depends_on=f"[{BASE}]"
            ),
        }
    )


def page_text(site: Path, path: str) -> str:
    return (site / path).read_text(encoding="utf-8")


def hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


def test_a_note_page_shows_its_relations_both_ways(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    vault = related_vault(make_vault)
    build_site(vault.root, tmp_path / "site")
    site = tmp_path / "site"
    middle = page_text(site, f"notes/{NEW}.html")
    replaces = middle.split('id="replaces"')[1].split("</section>")[0]
    replaced_by = middle.split('id="replaced-by"')[1].split("</section>")[0]
    assert hrefs(replaces) == [f"{OLD}.html"] and hrefs(replaced_by) == [f"{NEWEST}.html"]
    links_to = middle.split('id="links-to"')[1].split("</section>")[0]
    assert hrefs(links_to) == [f"{BASE}.html"]  # the [[link]] in code is not one
    assert 'class="note-link"' in middle and f'title="{BASE}"' in middle
    base = page_text(site, f"notes/{BASE}.html")
    assert hrefs(base.split('id="needed-by"')[1].split("</section>")[0]) == [f"{NEEDS}.html"]
    assert hrefs(base.split('id="linked-from"')[1].split("</section>")[0]) == [f"{NEW}.html"]
    needs = page_text(site, f"notes/{NEEDS}.html")
    assert hrefs(needs.split('id="depends-on"')[1].split("</section>")[0]) == [f"{BASE}.html"]
    # Only an active note takes another out of recall (DESIGN §2.1): NEW is itself
    # replaced, so OLD is served again, and its page says what names it, not "inactive".
    old = page_text(site, f"notes/{OLD}.html")
    assert 'class="status inactive"' not in old
    assert hrefs(old.split('id="replaced-by"')[1].split("</section>")[0]) == [f"{NEW}.html"]
    assert f'Inactive: replaced by <a class="replacement" href="{NEWEST}.html">' in middle
    assert "on GitHub" not in middle  # the vault has no GitHub remote


def test_the_site_shows_the_reviewed_branch_only(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    """What recall serves: origin/main as fetched; not a commit never pushed, not the
    branch checked out, not a file never committed (DESIGN §2.3)."""
    vault = make_vault({"scope--reviewed--2026-01-01": note_text("Reviewed and merged")})
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(vault.root, "remote", "add", "origin", str(remote))
    git(vault.root, "push", "-q", "origin", "main")
    git(vault.root, "fetch", "-q", "origin")
    vault.write("scope--never-pushed--2026-01-02", note_text("Committed, never pushed"))
    vault.commit("a local commit")
    git(vault.root, "checkout", "-q", "-b", "proposal")
    vault.write("scope--on-a-branch--2026-01-03", note_text("On an unmerged branch"))
    vault.commit("a proposal")
    vault.write("scope--uncommitted--2026-01-04", note_text("Only in the work tree"))
    report = build_site(vault.root, tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site" / "notes").iterdir()) == [
        "scope--reviewed--2026-01-01.html"
    ]
    assert report.branch == "origin/main" and report.notes == 1
    index = json.loads(
        (tmp_path / "site" / "assets" / "search-index.js").read_text()[
            len("window.loreSearch=") : -2
        ]
    )
    assert [note[0] for note in index["notes"]] == ["scope--reviewed--2026-01-01"]
    assert "origin/main" in page_text(tmp_path / "site", "index.html")


def test_lists_by_repository_type_tag_and_the_expiring_inactive_and_drifted(
    make_vault: Callable[..., Vault], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_TODAY", "2026-11-02")
    vault = make_vault(
        {
            "ops--soon--2026-01-01": note_text("Expires in ten days", expires="2026-11-12"),
            "ops--later--2026-01-02": note_text("Expires in forty days", expires="2026-12-12"),
            "ops--gone--2026-01-03": note_text("Expired last week", expires="2026-10-26"),
            "ops--api--2026-01-04": note_text("About the API", repo="payments-api"),
        }
    )
    path = vault.root / "notes" / "ops--api--2026-01-04.md"
    path.write_text(path.read_text().replace("confidence: high", "confidence: medium"))
    vault.commit("lore drift: mark notes about payments-api for review")
    site = tmp_path / "site"
    build_site(vault.root, site)
    expiring = page_text(site, "expiring.html")
    assert "Expires in ten days" in expiring and "forty days" not in expiring
    assert "Expired last week" not in expiring  # expired is inactive, not expiring
    inactive = page_text(site, "inactive.html")
    assert "Expired last week" in inactive and "expired on 2026-10-26" in inactive
    drift = page_text(site, "drift.html")
    assert "About the API" in drift and "Expires in ten days" not in drift
    assert "Flagged by <code>lore drift</code>" in page_text(
        site, "notes/ops--api--2026-01-04.html"
    )
    assert "About the API" in page_text(site, "repo/payments-api.html")
    assert "About the API" not in page_text(site, f"repo/{slug('(org-wide)')}.html")
    assert "Expires in ten days" in page_text(site, "type/convention.html")
    assert "Expires in ten days" in page_text(site, "tag/tool--httpx.html")
    assert 'href="tag/tool--httpx.html"' in page_text(site, "tags.html")
    # A person re-checks the note: the flag goes.
    path.write_text(path.read_text().replace("confidence: medium", "confidence: high"))
    vault.commit("Re-checked against the code")
    build_site(vault.root, site)
    assert "About the API" not in page_text(site, "drift.html")


def test_a_github_remote_links_each_note_to_its_file_at_the_commit(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    commit = git(vault.root, "rev-parse", "HEAD")
    git(vault.root, "remote", "add", "origin", "git@github.com:acme/team-vault.git")
    build_site(vault.root, tmp_path / "site")
    page = page_text(tmp_path / "site", "notes/scope--topic--2026-01-01.html")
    expected = f"https://github.com/acme/team-vault/blob/{commit}/notes/scope--topic--2026-01-01.md"
    assert f'href="{expected}"' in page
    git(vault.root, "remote", "set-url", "origin", "https://gitlab.com/acme/team-vault.git")
    build_site(vault.root, tmp_path / "site")
    assert "on GitHub" not in page_text(tmp_path / "site", "notes/scope--topic--2026-01-01.html")


def test_every_page_allows_only_the_sites_own_script(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    build_site(related_vault(make_vault).root, tmp_path / "site")
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert len(pages) > 10
    for path in pages:
        html = path.read_text(encoding="utf-8")
        assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in html, path
        for tag in re.findall(r"<script[^>]*>", html):
            assert re.fullmatch(r'<script src="(\.\./)*assets/search(-index)?\.js" defer>', tag)
        assert " style=" not in html and "<style" not in html  # style-src 'self' only
        assert not re.search(r"\son[a-z]+=", html), path
    assert "script-src 'self';" in CSP and "default-src 'none'" in CSP


def test_the_target_folder_is_refused_unless_new_empty_or_an_earlier_site(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("nothing here may be replaced")
    result = run_lore("site", str(mine), "--vault", str(vault.root))
    assert result.returncode == 2, result.stderr
    assert "is not empty, and it is not a site lore built" in result.stderr
    assert (mine / "thesis.tex").read_text() == "nothing here may be replaced"
    assert run_lore("site", str(mine / "thesis.tex"), "--vault", str(vault.root)).returncode == 2
    site = tmp_path / "site"
    first = run_lore("site", str(site), "--vault", str(vault.root), "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["notes"] == 1
    vault.remove("scope--topic--2026-01-01")
    vault.write("scope--other--2026-01-02", note_text("Another note"))
    vault.commit("replace the note")
    again = run_lore("site", str(site), "--vault", str(vault.root))
    assert again.returncode == 0, again.stderr
    assert [p.name for p in (site / "notes").iterdir()] == ["scope--other--2026-01-02.html"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.")] == []
    no_out = run_lore("site", "--vault", str(vault.root))
    assert no_out.returncode == 2 and "or pass --open" in no_out.stderr


def test_open_builds_into_a_temporary_folder_and_opens_it(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    """`--open` hands the page to the browser Python's webbrowser finds; $BROWSER names
    it, here a script that records what it was asked to open."""
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    opened = tmp_path / "opened.txt"
    fake = tmp_path / "browser"
    fake.write_text(f"#!/bin/sh\nprintf '%s' \"$1\" > {opened}\n")
    fake.chmod(0o755)
    result = run_lore("site", "--open", "--vault", str(vault.root), env={"BROWSER": str(fake)})
    assert result.returncode == 0, result.stderr
    url = opened.read_text()
    assert url.startswith("file://") and url.endswith("/index.html")
    assert Path(url.removeprefix("file://")).is_file()


def test_a_private_vault_is_published_only_when_the_reviewed_branch_says_so(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    """A Pages site is public on every plan unless the organisation publishes it
    privately on Enterprise Cloud (docs/site.md): anything but public needs the setting."""
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    site = tmp_path / "site"
    for visibility in ("private", "internal", "", "Public-ish"):
        with pytest.raises(UsageError, match="Not publishing"):
            build_site(vault.root, site, visibility=visibility)
    assert not site.exists()  # refused before anything was written
    build_site(vault.root, site, visibility="public")
    (vault.root / "lore.toml").write_text("[site]\npublish_private = true\n")
    with pytest.raises(UsageError):  # in the work tree only: not reviewed
        build_site(vault.root, site, visibility="private")
    vault.commit("publish the site although the repository is private")
    build_site(vault.root, site, visibility="private")
    result = run_lore(
        "site",
        str(tmp_path / "other"),
        "--vault",
        str(vault.root),
        "--vault-visibility",
        "internal",
    )
    assert result.returncode == 0, result.stderr


def test_the_build_is_the_same_for_the_same_commit_and_day(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    vault = related_vault(make_vault)
    build_site(vault.root, tmp_path / "one")
    build_site(vault.root, tmp_path / "two")
    one = {
        p.relative_to(tmp_path / "one"): p.read_bytes()
        for p in (tmp_path / "one").rglob("*")
        if p.is_file()
    }
    two = {
        p.relative_to(tmp_path / "two"): p.read_bytes()
        for p in (tmp_path / "two").rglob("*")
        if p.is_file()
    }
    assert one == two


def test_the_map_keeps_a_chain_of_replacements_on_one_row_in_time(
    make_vault: Callable[..., Vault],
) -> None:
    vault = related_vault(make_vault)
    groups = {tuple(g.ids): g for g in groups_of(read_site_vault(vault.root))}
    chain = next(g for ids, g in groups.items() if OLD in ids)
    columns = [chain.place[i][0] for i in (OLD, NEW, NEWEST)]
    rows = {chain.place[i][1] for i in (OLD, NEW, NEWEST)}
    assert columns == sorted(columns) and len(set(columns)) == 3 and len(rows) == 1
    assert chain.replacements == 2


def test_notes_per_month_end_at_the_pinned_day() -> None:
    from datetime import date

    months, older = month_counts(
        ["2026-11-01", "2026-11-02", "2026-09-30", "2020-01-01", "2027-01-01", "not a date"],
        date(2026, 11, 2),
    )
    assert months[-1] == ("2026-11", 2) and ("2026-09", 1) in months
    assert len(months) == 36 and older == 1  # 2020 is older; 2027 is after the day


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://github.com/acme", True),
        ("http://example.com/a?b#c", True),
        ("../other.md", True),
        ("#what", True),
        ("notes/a.md", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("data:text/html,x", False),
        ("vbscript:x", False),
        ("file:///etc/passwd", False),
        ("//evil.example/x", False),
        ("https:evil.example", False),
        ("/\\evil.example", False),
        ("java\tscript:x", False),
        ("mailto:a@b.c", False),
    ],
)
def test_links_are_http_https_relative_or_fragments(url: str, allowed: bool) -> None:
    assert (safe_href(url) is not None) is allowed


def test_a_one_megabyte_body_is_shown_as_text_without_the_markdown_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """markdown-it-py's link-label scan is quadratic on runs of `[` (12.5 s for 1 MB,
    measured): a body that long never reaches it."""
    renderer = BodyRenderer()

    def refuse(*_: object) -> str:
        raise AssertionError("a 1 MB body went through the markdown parser")

    monkeypatch.setattr(renderer._md, "render", refuse)
    body = ("[" * 5000 + " <script>alert(1)</script>\n") * 200
    html = renderer.render(body, lambda _: None)
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 200
    assert "<script>" not in html and 'class="plain-body"' in html


def test_secrets_are_masked_on_the_page_and_in_the_search_index(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    vault = make_vault(
        {"scope--topic--2026-01-01": note_text(body=f"## What\nThe deploy token is {token}.\n")}
    )
    build_site(vault.root, tmp_path / "site")
    for path in (tmp_path / "site").rglob("*"):
        if path.is_file():
            assert token[4:] not in path.read_text(encoding="utf-8", errors="replace"), path


def test_the_search_index_lists_each_notes_words_once_without_stop_words(
    make_vault: Callable[..., Vault],
) -> None:
    vault = related_vault(make_vault)
    data = search_data(read_site_vault(vault.root))
    assert data["terms"] == sorted(set(data["terms"]))
    assert "the" not in data["terms"] and "httpx" in data["terms"]

    def notes_with(term: str) -> list[str]:
        number, found = 0, []
        for gap in data["postings"][data["terms"].index(term)].split(","):
            number += int(gap, 16)
            found.append(data["notes"][number][0])
        return found

    assert notes_with("testclient") == [OLD]
    assert notes_with("16") == [NEEDS, NEW, BASE]  # NEW links to BASE by id; in id order
    assert len(notes_with("httpx")) == 5  # every note has the tag tool/httpx
    assert words("Café PgBouncer, pool_size=20") == ["cafe", "pgbouncer", "pool", "size", "20"]


def test_an_empty_vault_and_a_vault_without_git_build_too(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    empty = make_vault()
    report = build_site(empty.root, tmp_path / "empty")
    assert report.notes == 0 and "No notes yet." in page_text(tmp_path / "empty", "index.html")
    plain = make_vault({"scope--topic--2026-01-01": note_text()}, use_git=False)
    report = build_site(plain.root, tmp_path / "plain")
    assert report.kind == "files" and report.commit is None and report.notes == 1
    assert "the vault's files" in page_text(tmp_path / "plain", "index.html")
    assert "on GitHub" not in page_text(tmp_path / "plain", "notes/scope--topic--2026-01-01.html")
