"""Fixtures for the curator tests: a real git vault holding the notes the fixtures refer to.

Secret fixtures hold markers such as `@@SECRET:github-token@@` instead of token-shaped
strings, so this repository never contains anything a secret scanner (GitHub push
protection included) would flag; `expand_secrets` builds the tokens at test time
from a fixed seed.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.curator.run import CurateResult, curate
from lore.curator.target import Paths, Range
from tests.support import Vault, git

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TODAY = "2026-11-15"
_ALNUM = string.ascii_letters + string.digits
_MARKER = re.compile(r"@@SECRET:([a-z0-9-]+)@@")


def _random(rng: random.Random, size: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def _b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def fake_secret(kind: str, seed: int = 20261115) -> str:
    """A token of the given kind's format, random, and never a real credential."""
    rng = random.Random(f"{seed}:{kind}")
    upper = string.ascii_uppercase + "234567"
    b64 = string.ascii_letters + string.digits + "+/"
    makers: dict[str, Callable[[], str]] = {
        "github-token": lambda: "ghp_" + _random(rng, 36),
        "github-token-split": lambda: "ghp_" + _random(rng, 10) + "\u200b" + _random(rng, 26),
        "aws-access-key-id": lambda: "AKIA" + _random(rng, 16, upper),
        "private-key": lambda: (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + "\n".join(_random(rng, 64, b64) for _ in range(5))
            + "\n-----END RSA PRIVATE KEY-----"
        ),
        "url-credentials": lambda: (
            f"postgres://reporting:{_random(rng, 18)}@replica.internal:5432/app"
        ),
        "slack-token": lambda: (
            "xoxb-"
            + _random(rng, 12, string.digits)
            + "-"
            + _random(rng, 13, string.digits)
            + "-"
            + _random(rng, 24)
        ),
        "stripe-key": lambda: "sk_live_" + _random(rng, 32),
        "jwt": lambda: (
            _b64url({"alg": "HS256", "typ": "JWT"})
            + "."
            + _b64url({"sub": "svc-billing", "role": "admin", "iat": 1767225600})
            + "."
            + _random(rng, 43, _ALNUM + "-_")
        ),
        "openai-api-key": lambda: "sk-proj-" + _random(rng, 48) + "T3BlbkFJ" + _random(rng, 48),
        "anthropic-api-key": lambda: "sk-ant-api03-" + _random(rng, 93, _ALNUM + "-_") + "AA",
        "npm-token": lambda: "npm_" + _random(rng, 36),
        "gcp-api-key": lambda: "AIza" + _random(rng, 35, _ALNUM + "-_"),
        "pypi-token": lambda: "pypi-AgEIcHlwaS5vcmc" + _random(rng, 64, _ALNUM + "-_"),
        "generic": lambda: _random(rng, 28),
    }
    return makers[kind]()


def expand_secrets(data: bytes) -> bytes:
    if b"@@SECRET:" not in data:
        return data
    text = data.decode("utf-8")
    return _MARKER.sub(lambda m: fake_secret(m[1]), text).encode("utf-8")


def secret_values(data: bytes) -> list[str]:
    """The secret values a fixture expands to (without invisible characters)."""
    return [
        fake_secret(kind).replace("\u200b", "")
        for kind in _MARKER.findall(data.decode("utf-8", "replace"))
    ]


def load_manifest() -> dict[str, dict[str, str]]:
    data = tomllib.loads((FIXTURES / "bad" / "manifest.toml").read_text(encoding="utf-8"))
    return {name: {"name": name, **entry} for name, entry in data.items()}


def default_place(name: str) -> str:
    return f"notes/fixture--{Path(name).stem}--2026-02-01.md"


@pytest.fixture
def curator_vault(make_vault: Callable[..., Vault]) -> Vault:
    """The seed vault plus the notes in fixtures/vault, committed."""
    notes = {
        path.stem: path.read_text(encoding="utf-8")
        for path in sorted((FIXTURES / "vault").glob("*.md"))
    }
    return make_vault(notes)


def check_in_range(vault: Vault, place: str, data: bytes, today: str = TODAY) -> CurateResult:
    """Commit `data` at `place` on a new branch (forced past .gitignore, as an attacker
    would) and curate the branch as a pull request into main."""
    git(vault.root, "checkout", "-q", "-b", "fixture")
    target = vault.root / place
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    git(vault.root, "add", "-f", "--", place)
    git(vault.root, "commit", "-q", "-m", f"add {place}")
    return curate(vault.root, Range("main", "fixture"), today=today)


def check_fixture(vault: Vault, entry: dict[str, str], data: bytes) -> CurateResult:
    """A bad fixture checked as its manifest entry says: as a file, or in a pull request."""
    place = entry.get("place", default_place(entry["name"]))
    if entry.get("mode") == "range":
        return check_in_range(vault, place, data)
    return check_bytes(vault, place, data)


def check_bytes(vault: Vault, place: str, data: bytes, today: str = TODAY) -> CurateResult:
    """Write `data` at `place` in the vault and curate that one file."""
    target = vault.root / place
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return curate(vault.root, Paths([str(target)]), today=today)
