"""The convention and hazard messages on real prose: decision sentences, URLs, `v<N>:`.

Each case is a form seen in public ADRs that the curator used to misread: "It was
decided we would …" taken for a back-reference, a decision sentence that ends with a
colon taken for a lead-in, URL path segments counted as words, and `v<N>:` (text that
looks like a tag) answered with "remove it".
"""

from __future__ import annotations

import pytest

from lore.curator.rules.convention import _not_standalone, word_count
from tests.curator.conftest import check_bytes
from tests.support import Vault, note_text


@pytest.mark.parametrize(
    "line",
    [
        "It was decided we would run one Postgres cluster per environment.",
        "It has been agreed that every service logs JSON to stdout.",
        "It is required that each queue has a dead-letter topic.",
        "We will run these checks on every pull request before it merges:",
        "All services must use the shared logging library as follows:",
    ],
)
def test_a_sentence_that_states_the_decision_stands_alone(line: str) -> None:
    assert _not_standalone(line) is None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("It retries three times.", "refers back"),
        ("This is why we moved.", "refers back"),
        ("The options are:", "introduces"),
        ("Decision:", "introduces"),
    ],
)
def test_back_references_and_bare_lead_ins_still_warn(line: str, reason: str) -> None:
    found = _not_standalone(line)
    assert found is not None and reason in found


def test_urls_are_not_counted_as_words() -> None:
    body = (
        "See https://en.wikipedia.org/wiki/Idempotence/a/b/c and "
        '[the AWS docs](https://docs.aws.amazon.com/a/b/c/d/e.html "title") now.'
    )
    assert word_count(body) == 6  # See, and, the, AWS, docs, now


def test_a_body_full_of_links_is_not_too_long(curator_vault: Vault) -> None:
    links = " ".join(
        f"[RFC {n}](https://datatracker.ietf.org/doc/html/rfc{n}/section/{n}/part/a/b)"
        for n in range(7230, 7245)
    )
    body = f"## What\nClients follow the HTTP semantics of these RFCs: {links}.\n"
    result = check_bytes(
        curator_vault, "notes/fixture--rfcs--2026-02-01.md", note_text(body=body).encode()
    )
    assert "convention/body-too-long" not in [f.rule for f in result.findings]
    assert word_count(body) < 60


def test_text_that_looks_like_a_tag_is_told_to_wear_backticks(curator_vault: Vault) -> None:
    body = "## What\nRelease tags are written v<N>: a v, the version and a colon.\n"
    result = check_bytes(
        curator_vault, "notes/fixture--tags--2026-02-01.md", note_text(body=body).encode()
    )
    (found,) = [f for f in result.findings if f.rule == "injection/raw-html"]
    assert found.suggestion is not None
    assert "wrap it in backticks" in found.suggestion and "`v<N>:`" in found.suggestion
    fixed = body.replace("v<N>:", "`v<N>:`")
    again = check_bytes(
        curator_vault, "notes/fixture--tags--2026-02-01.md", note_text(body=fixed).encode()
    )
    assert "injection/raw-html" not in [f.rule for f in again.findings]
