"""The built site of the demo vault in a real browser (Debian's Chromium), from `file://`.

A person's path through it: search, open a note, follow it to the note that replaced
it, open the map and follow a node. And the hostile notes the demo vault is given on
top (conftest.HOSTILE_NOTES: `<script>` in a title and a body, `javascript:` links in
every spelling, `<img onerror>` and `<svg onload>`, a link whose text names GitHub but
goes elsewhere, a one-megabyte body) render as the text they are: no script of theirs
runs (each payload would set `window.__pwned`, or open a dialog), no element carries an
event handler, no page makes a request outside the site's own folder, and no page
needed its Content-Security-Policy to stop anything (the rendering made them inert).
"""

from __future__ import annotations

import re
from pathlib import Path

from lore.sanitize import sanitize_field
from tests.site.conftest import BIG_END, BIG_NOTE, HOSTILE_NOTES, LARGE_NOTE, Visit

REPLACED = "postgres--pgbouncer-session-pooling-per-service--2024-02-20"
REPLACEMENT = "postgres--pgbouncer-transaction-pooling--2025-03-11"

# Every element with an attribute that runs script, every link that would, every element
# that fetches or embeds something: none may come from a note.
UNSAFE_IN_PAGE = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on')) found.push(el.tagName + ' ' + attr.name);
      if (/^\\s*(javascript|data|vbscript):/i.test(attr.value) && /href|src|action/.test(attr.name))
        found.push(el.tagName + ' ' + attr.name + '=' + attr.value);
    }
  }
  for (const el of document.querySelectorAll('img, iframe, object, embed, video, audio, .body svg, main style, link[rel=import]'))
    found.push(el.tagName);
  for (const el of document.querySelectorAll('script'))
    if (!/assets\\/(search|search-index)\\.js$/.test(el.src)) found.push('script ' + el.src);
  return found;
}"""


def _assert_inert(visit: Visit) -> None:
    assert visit.page.evaluate(UNSAFE_IN_PAGE) == []
    assert visit.pwned() is None
    assert visit.dialogs == []
    assert visit.violations() == []
    assert visit.outside_requests() == []


def test_search_then_follow_a_note_to_the_note_that_replaced_it(visit: Visit) -> None:
    page = visit.open("index.html")
    page.fill("header form.search input[name=q]", "session pooling pgbouncer")
    page.press("header form.search input[name=q]", "Enter")
    page.wait_for_selector("#results li")
    assert page.url.startswith((visit.site / "search.html").as_uri())
    titles = page.locator("#results li > a").all_inner_texts()
    assert "Each service gets its own PgBouncer in session pooling mode" in titles
    assert re.match(r"\d+ notes?\.", page.inner_text("#search-status"))
    page.click("#results li > a >> text=Each service gets its own PgBouncer")
    assert page.url == (visit.site / "notes" / f"{REPLACED}.html").as_uri()
    assert "Inactive: replaced by" in page.inner_text(".status.inactive")
    page.click(".status.inactive a.replacement")
    assert page.url == (visit.site / "notes" / f"{REPLACEMENT}.html").as_uri()
    assert page.inner_text("h1").startswith("PgBouncer runs in transaction pooling mode")
    replaces = page.locator("#replaces a").all_inner_texts()  # and back again
    assert "Each service gets its own PgBouncer in session pooling mode" in replaces
    github = page.get_attribute(".on-github a", "href")
    assert github is not None
    assert github.startswith("https://github.com/acme/team-vault/blob/")
    assert github.endswith(f"/notes/{REPLACEMENT}.md")
    _assert_inert(visit)


def test_typing_in_the_search_page_searches_as_you_type(visit: Visit) -> None:
    page = visit.open("search.html")
    assert "Type words" in page.inner_text("#search-status")
    page.fill("header form.search input[name=q]", "pgbounc")  # a prefix of a word
    page.wait_for_selector("#results li")
    assert all(
        "pgbouncer" in text.lower() for text in page.locator("#results li").all_inner_texts()
    )
    page.fill("header form.search input[name=q]", "PGBOUNCÉR")  # case and accents fold
    page.wait_for_selector("#results li")
    assert all(
        "pgbouncer" in text.lower() for text in page.locator("#results li").all_inner_texts()
    )
    page.fill("header form.search input[name=q]", "the and of")
    page.wait_for_selector("#search-status:has-text('common words')")
    assert page.locator("#results li").count() == 0
    _assert_inert(visit)


def test_the_map_draws_replacements_left_to_right_and_each_node_is_a_link(visit: Visit) -> None:
    page = visit.open("map.html")
    old = page.locator(f'svg.map a.node[data-note-id="{REPLACED}"] rect')
    new = page.locator(f'svg.map a.node[data-note-id="{REPLACEMENT}"] rect')
    assert float(old.get_attribute("x") or 0) < float(new.get_attribute("x") or 0)
    assert page.locator("svg.map path.edge.replaces").count() >= 3
    page.click(f'svg.map a.node[data-note-id="{REPLACEMENT}"]')
    assert page.url == (visit.site / "notes" / f"{REPLACEMENT}.html").as_uri()
    _assert_inert(visit)


def test_the_pulse_shows_counts_a_chart_and_the_most_replaced_subjects(visit: Visit) -> None:
    page = visit.open("index.html")
    assert page.locator(".chart svg rect.bar").count() >= 12
    cards = page.locator(".cards .card").all_inner_texts()
    assert "69\nnotes" in cards  # the demo's 64, the hostile notes served (not the 1 MB one)
    assert "1\nnot served" in cards
    subjects = page.locator("#replaced li a").all_inner_texts()
    assert any(text.startswith("PgBouncer runs in transaction pooling") for text in subjects)
    page.click("#types a >> text=decision")
    assert page.url.endswith("/type/decision.html")
    _assert_inert(visit)


def test_hostile_notes_render_as_text_and_run_nothing(visit: Visit) -> None:
    for note_id, (title, _) in HOSTILE_NOTES.items():
        page = visit.open(f"notes/{note_id}.html")
        # Titles are one-line fields: sanitized as everywhere lore shows one (`<` -> `‹`).
        assert page.inner_text("h1").strip() == sanitize_field(title), note_id
        _assert_inert(visit)
    page = visit.open("notes/hostile--script-in-title-and-body--2026-10-01.html")
    body = page.inner_text(".body")
    assert "<script>window.__pwned = 'body'</script>" in body  # readable, as text
    assert "<iframe" in body and "<style>" in body
    assert page.is_visible("main")  # the note's <style> hid nothing
    page = visit.open("notes/hostile--javascript-links--2026-10-02.html")
    body = page.inner_text(".body")
    assert "the runbook" in body and "a reference" in body
    assert page.locator(".body a").count() == 0  # no spelling of javascript: became a link
    page.get_by_text("the runbook").click()
    assert page.url.endswith("hostile--javascript-links--2026-10-02.html")
    page = visit.open("notes/hostile--svg-and-onerror--2026-10-03.html")
    assert "<img src=x onerror=" in page.inner_text(".body")
    assert page.locator(".body img, .body svg").count() == 0
    pixel = page.locator(".body a.image-link")  # shown as a link to follow, never loaded
    assert pixel.inner_text() == "image: pixel"
    assert pixel.get_attribute("href") == "https://evil.example/pixel.png"
    _assert_inert(visit)


def test_a_link_whose_text_names_another_host_shows_where_it_goes(visit: Visit) -> None:
    page = visit.open("notes/hostile--link-text-names-another-host--2026-10-04.html")
    assert page.locator(".body a").count() == 0  # neither is a link any more
    text = page.inner_text(".body")
    assert (
        "https://github.com/acme/payments-api/pull/812 (links to https://evil.example/steal?t=1)"
        in text
    )
    assert "docs.github.com (links to https://evil.example/docs)" in text
    _assert_inert(visit)


def test_a_long_note_is_readable_to_its_end_and_a_1_mb_one_is_named_not_served(
    visit: Visit, demo_site: Path
) -> None:
    page = visit.open(f"notes/{LARGE_NOTE}.html")
    assert "too long to lay out" in page.inner_text(".notice")
    text = page.inner_text(".plain-body")
    assert len(text) > 60_000
    assert text.rstrip().endswith(BIG_END)
    assert "<script>window.__pwned = 'big'</script>" in text
    _assert_inert(visit)
    assert not (demo_site / "notes" / f"{BIG_NOTE}.html").exists()  # recall does not serve it
    page = visit.open("unserved.html")
    listed = page.inner_text("main")
    assert f"notes/{BIG_NOTE}.md" in listed and "over the 65,536-byte limit" in listed
    _assert_inert(visit)


def test_searching_for_a_hostile_title_shows_it_as_text(visit: Visit) -> None:
    page = visit.page
    page.goto((visit.site / "search.html").as_uri() + "?q=script+tags+title")
    page.wait_for_selector("#results li")
    first = page.locator("#results li > a").first
    assert first.inner_text().startswith("‹script›window.__pwned = 'title'‹/script›")
    assert page.locator("#results script, #results img").count() == 0
    _assert_inert(visit)


def test_every_page_of_the_site_runs_only_its_own_script(demo_site: Path, visit: Visit) -> None:
    """Each list and page once (the note pages are covered above): nothing outside the
    site is requested and nothing from a note runs, anywhere it is listed."""
    for path in sorted(demo_site.rglob("*.html")):
        relative = path.relative_to(demo_site).as_posix()
        if relative.startswith("notes/") and "hostile" not in relative:
            continue
        visit.open(relative)
        assert visit.page.evaluate(UNSAFE_IN_PAGE) == [], relative
        assert visit.pwned() is None, relative
    assert visit.dialogs == [] and visit.errors == []
    assert visit.outside_requests() == []
