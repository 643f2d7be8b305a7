"""The demo vault: the default seed plus fictional notes from "Acme", as a real git repository."""

from __future__ import annotations

from pathlib import Path

from lore.vault.repository import init_and_commit
from lore.vault.seed import seed_files, write_files

DEMO_REPOS = {
    "payments-api": "Acme's billing and ledger HTTP API (Python, FastAPI, PostgreSQL).",
    "web-app": "The customer-facing web application (React, TypeScript).",
    "data-pipeline": "Nightly and streaming jobs that feed the warehouse (Kafka, Celery).",
    "infra": "Terraform and Kubernetes configuration for every environment.",
}
PLACEHOLDER_REPO = "- `example-service` — Replace with your repositories."
DEMO_AUTHOR = ("lore demo", "demo@lore.invalid")


def demo_files() -> dict[str, bytes]:
    files = seed_files()
    taxonomy = files["_taxonomy.md"].decode("utf-8")
    repos = "\n".join(f"- `{name}` — {text}" for name, text in DEMO_REPOS.items())
    files["_taxonomy.md"] = taxonomy.replace(PLACEHOLDER_REPO, repos).encode("utf-8")
    notes = Path(__file__).resolve().parent / "notes"
    files.pop("notes/.gitkeep", None)
    for path in sorted(notes.glob("*.md")):
        files[f"notes/{path.name}"] = path.read_bytes()
    return files


def build_demo_vault(dest: Path) -> str:
    """Write the demo vault into `dest` (empty or new) and commit it; returns the commit."""
    dest.mkdir(parents=True, exist_ok=True)
    write_files(dest, demo_files())
    return init_and_commit(dest, "Demo vault: Acme's team notes", author=DEMO_AUTHOR)
