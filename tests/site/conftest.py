"""The site's fixtures: real vaults in git, the demo vault with hostile notes, a real Chromium.

The browser is Debian's `chromium` (`/usr/bin/chromium`), driven by Playwright with
`executable_path` (Playwright downloads no browser of its own), started with the flags
this machine needs (docs: /usr/bin/chromium on a closed network must not try to reach
Google's services) and Playwright's own fresh, empty profile folder. `.ci/run` installs
the package when it is missing and it runs as root; only when no Chromium can be had at
all are the browser tests skipped, and the skip says so.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lore.demo import build_demo_vault
from lore.site.build import build_site
from tests.support import SUITE_TODAY, git

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
GITHUB_URL = "https://github.com/acme/team-vault.git"
NO_CHROMIUM = (
    "no Chromium on this machine: install Debian's package (apt-get install -y chromium), "
    "as .ci/run does when it runs as root, or set LORE_TEST_CHROMIUM to a Chromium binary"
)

HOSTILE_NOTES = {
    "hostile--script-in-title-and-body--2026-10-01": (
        "<script>window.__pwned = 'title'</script> Script tags in a title",
        "## What\nA note that carries <script>window.__pwned = 'body'</script> raw script.\n\n"
        "<script>\nwindow.__pwned = 'block'\n</script>\n\n"
        "<iframe src=\"javascript:parent.__pwned='iframe'\"></iframe>\n\n"
        "<style>body { display: none }</style>\n",
    ),
    "hostile--javascript-links--2026-10-02": (
        "Links that would run a script",
        "## What\nRead [the runbook](javascript:window.__pwned='link') before you deploy.\n\n"
        "Also [upper case](JAVASCRIPT:window.__pwned='upper'), "
        "[entity](javascript&#58;window.__pwned='entity'), "
        "[tab](java\tscript:window.__pwned='tab'), "
        "[data](data:text/html,<script>window.__pwned='data'</script>), "
        "<javascript:window.__pwned='autolink'> and [a reference][ref].\n\n"
        "[ref]: javascript:window.__pwned='reference'\n",
    ),
    "hostile--svg-and-onerror--2026-10-03": (
        "Images and SVG that would run a script",
        "## What\n<img src=x onerror=\"window.__pwned='img'\"> and "
        "<svg onload=\"window.__pwned='svg'\"><script>window.__pwned='svg-script'</script></svg>.\n\n"
        "![pixel](https://evil.example/pixel.png) "
        "![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) "
        "![quoted](x\" onerror=\"window.__pwned='alt')\n",
    ),
    "hostile--link-text-names-another-host--2026-10-04": (
        "A link whose text names GitHub but goes elsewhere",
        "## What\nThe fix is in "
        "[https://github.com/acme/payments-api/pull/812](https://evil.example/steal?t=1) "
        "and [docs.github.com](https://evil.example/docs).\n",
    ),
}
# A body of one megabyte: the index serves no note file over 64 kB (lore.note.parse), so
# the site lists it as not served; and one just under that limit, which the site shows
# as plain text (over lore.site.markdown.MAX_MARKDOWN_CHARS).
BIG_NOTE = "hostile--one-megabyte-body--2026-10-05"
LARGE_NOTE = "hostile--sixty-kilobyte-body--2026-10-06"
BIG_END = "END OF THE LONG NOTE"


def big_body(size: int) -> str:
    """A body of about `size` characters of hostile markdown, ending with BIG_END."""
    paragraph = "Lorem ipsum [[[[ dolor <b>sit</b> amet, ** consectetur ` adipiscing. " * 12
    lines = ["## What", "A very long note.", ""]
    while sum(len(line) + 1 for line in lines) < size:
        lines += [paragraph, "[" * 2000, ""]
    lines += ["<script>window.__pwned = 'big'</script>", BIG_END, ""]
    return "\n".join(lines)


def add_hostile_notes(root: Path) -> None:
    """The hostile notes, committed on the vault's branch as if a review let them in."""
    for note_id, (title, body) in HOSTILE_NOTES.items():
        day = note_id.rsplit("--", 1)[1]
        text = (
            "---\n"
            f"title: {_yaml_text(title)}\ntype: gotcha\ntags: [team/platform]\n"
            f"confidence: low\ndate: {day}\n---\n{body}"
        )
        (root / "notes" / f"{note_id}.md").write_text(text, encoding="utf-8")
    for note_id, size in ((BIG_NOTE, 1_000_000), (LARGE_NOTE, 60_000)):
        big = (
            "---\ntitle: A very long note\ntype: gotcha\ntags: [team/platform]\n"
            f"confidence: low\ndate: {note_id.rsplit('--', 1)[1]}\n---\n{big_body(size)}"
        )
        (root / "notes" / f"{note_id}.md").write_text(big, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Hostile notes, as if a review had let them in")


def _yaml_text(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo vault plus the hostile notes, with a GitHub remote, built into a site."""
    base = tmp_path_factory.mktemp("demo-site")
    vault = base / "vault"
    with pytest.MonkeyPatch.context() as patch:
        home = base / "home"
        home.mkdir()
        for name, value in {
            "HOME": str(home),
            "LORE_HOME": str(home / "lore-home"),
            "LORE_CONFIG": str(home / "config.toml"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "LORE_TODAY": SUITE_TODAY,
        }.items():
            patch.setenv(name, value)
        build_demo_vault(vault)
        add_hostile_notes(vault)
        git(vault, "remote", "add", "origin", GITHUB_URL)  # only its URL is read
        build_site(vault, base / "site")
        yield base / "site"


def chromium_path() -> str | None:
    chosen = os.environ.get("LORE_TEST_CHROMIUM")
    if chosen:
        return chosen
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for a module's tests. Not for the session: Playwright's sync API keeps
    an event loop running in this thread while it is open, and every later test that runs
    its own loop (the MCP client's, `asyncio.run`) would fail."""
    path = chromium_path()
    if path is None:
        pytest.skip(NO_CHROMIUM)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


class Visit:
    """A page in a fresh browser context that records every request, dialog and CSP
    violation, and any script a note managed to run (`window.__pwned`)."""

    def __init__(self, browser: Any, site: Path) -> None:
        self.site = site
        self.context = browser.new_context(viewport={"width": 1200, "height": 900})
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.context.add_init_script(
            "window.__violations = [];"
            "document.addEventListener('securitypolicyviolation',"
            " (event) => window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));"
        )
        self.page = self.context.new_page()
        self.page.on(
            "dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss())
        )
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, path: str) -> Any:
        self.page.goto((self.site / path).as_uri())
        return self.page

    def pwned(self) -> Any:
        return self.page.evaluate("window.__pwned")

    def violations(self) -> list[str]:
        return list(self.page.evaluate("window.__violations"))

    def outside_requests(self) -> list[str]:
        prefix = self.site.as_uri() + "/"
        return [url for url in self.requests if not url.startswith(prefix)]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser: Any, demo_site: Path) -> Iterator[Visit]:
    opened = Visit(browser, demo_site)
    yield opened
    opened.close()
