"""Render docs/images/site-*.png: the site of the demo vault in headless Chromium.

    python docs/make_site_screenshots.py

Builds the demo vault (src/lore/demo/) in a temporary folder, with a GitHub remote so
the note pages link to their files, builds its site with `lore site`, and takes three
screenshots with Debian's chromium driven by Playwright (the `test` extra): the home
page (the pulse), a note that was replaced, and the map.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

os.environ["LORE_TODAY"] = "2026-11-30"

from lore.demo import build_demo_vault
from lore.site.build import build_site

IMAGES = Path(__file__).resolve().parent / "images"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]  # fmt: skip
SHOTS = (
    ("index.html", "site-pulse.png", 1400),
    ("notes/postgres--pgbouncer-session-pooling-per-service--2024-02-20.html", "site-note.png", 1100),
    ("map.html", "site-map.png", 1000),
)


def main() -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("needs Debian's chromium: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "acme-vault"
        build_demo_vault(vault)
        subprocess.run(
            ["git", "remote", "add", "origin", "https://github.com/acme/team-vault.git"],
            cwd=vault, check=True,
        )  # fmt: skip
        site = Path(tmp) / "site"
        build_site(vault, site)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
            for page_path, image, height in SHOTS:
                page = browser.new_page(viewport={"width": 1280, "height": height})
                page.goto((site / page_path).as_uri())
                page.screenshot(path=str(IMAGES / image))
                page.close()
                print(f"wrote {IMAGES / image}")
            browser.close()


if __name__ == "__main__":
    main()
