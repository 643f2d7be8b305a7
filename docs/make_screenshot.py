"""Render docs/images/recall-explain.svg: `lore recall --explain` on the demo vault.

python docs/make_screenshot.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

os.environ["LORE_TODAY"] = "2026-11-30"

from rich.console import Console

from lore.cli import recall_view
from lore.demo import build_demo_vault
from lore.recall.engine import RecallRequest, recall

QUERY = "postgres connection pool errors"


def main() -> None:
    recorder = Console(record=True, width=96, highlight=False, force_terminal=True)
    recall_view.console = lambda stderr=False: recorder  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "acme-vault"
        build_demo_vault(vault)
        recorder.print(f'$ lore recall "{QUERY}" --repo payments-api --limit 3 --explain\n')
        result = recall(
            vault, RecallRequest(query=QUERY, repo="payments-api", limit=3, explain=True)
        )
        recall_view.show_result(result, vault_root=Path("~/vaults/acme"), explain=True)
    target = Path(__file__).resolve().parent / "images" / "recall-explain.svg"
    recorder.save_svg(str(target), title="lore recall --explain")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
