"""The pure judgement modules: terms, quantities, clauses, likeness and the candidate seam."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.curator.context.candidates import candidates, corpus_of
from lore.curator.judgement.claims import conflicts
from lore.curator.judgement.notes import profile
from lore.curator.judgement.similarity import likeness, subject, weighted_overlap
from lore.curator.judgement.terms import idf_from_counts
from lore.curator.run import build_context
from lore.curator.target import Drafts
from lore.text.clauses import claims
from lore.text.quantities import quantities
from lore.text.words import content_terms, stem, tokens
from tests.curator.conftest import TODAY
from tests.curator.judged import Note, flat
from tests.support import Vault, note_text

# ---- terms: the recall index's own tokens and stems ----


def fts5_terms(words: list[str]) -> list[str]:
    """What the recall index's tokenizer makes of each word (a real FTS5 table)."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')"
    )
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    conn.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(words, 1)))
    found = dict(conn.execute("SELECT doc, term FROM v").fetchall())
    return [found[row] for row in range(1, len(words) + 1)]


def test_stems_are_the_index_terms() -> None:
    words = re.findall(
        r"\S+",
        "handled handling processing processed messages message committed commits queries "
        "query enabled disabled optional required pagination offsets retries consumers "
        "caching cached idempotency serializable ms db is as us Café naïve",
    )
    mine = [stem(token) for word in words for token in tokens(word)]
    assert mine == fts5_terms(words)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.from_regex(r"[a-zA-Z0-9]{1,14}", fullmatch=True), min_size=1, max_size=20))
def test_stems_match_fts5_for_any_ascii_word(words: list[str]) -> None:
    assert [stem(tokens(word)[0]) for word in words] == fts5_terms(words)


def test_stems_follow_fts5_where_it_departs_from_the_published_porter() -> None:
    """FTS5 follows Porter's own C code: `bli` -> `ble` and `logi` -> `log` in step 2, a
    doubled `y` is a double consonant, a whole word is never a suffix, digits stem like
    consonants and a token over 64 bytes is left alone. (A stemmer of the published
    algorithm said `possibli`, `technologi`, and left `k8s` as it was.)"""
    words = [
        "possibly", "terribly", "technology", "methodology", "apologies", "ies", "sses",
        "eed", "yying", "k8s", "utf8ing", "ipv6ed", "x" * 60 + "ing", "x" * 61 + "ing",
        "straße", "smørrebrød",
    ]  # fmt: skip
    assert [stem(token) for word in words for token in tokens(word)] == fts5_terms(words)


def test_contractions_and_possessives_read_as_people_mean_them() -> None:
    assert tokens("Checkout's pool doesn't retry; we can't and won't") == [
        "checkout", "pool", "does", "not", "retry", "we", "can", "not", "and", "will", "not",
    ]  # fmt: skip
    assert content_terms("The offsets are committed after processing") == [
        "offset", "commit", "process",
    ]  # fmt: skip


def test_a_small_vault_does_not_make_shared_terms_look_common() -> None:
    idf = idf_from_counts({"kafka": 2, "offset": 1}, documents=2)
    assert idf("kafka") > 0.8 * idf("offset")
    big = idf_from_counts({"kafka": 500, "offset": 5}, documents=10_000)
    assert big("kafka") < 0.5 * big("offset")


# ---- quantities ----


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a lock timeout of 5 seconds", [(5.0, "time")]),
        ("the timeout is 5000ms", [(5.0, "time")]),
        ("a 5-second timeout", [(5.0, "time")]),
        ("within two working days", [(172800.0, "time")]),
        ("cached for a year", [(31536000.0, "time")]),
        ("LEDGER_WRITE_TIMEOUT_MS (default 2000)", [(2.0, "time")]),
        ("a 2 gb heap", [(2 * 1024.0**3, "size")]),
        ("target 65% cpu", [(65.0, "percent")]),
        ("alerts after 10 messages", [(10.0, "count")]),
        ("limited to 20 per minute per customer", [(20 / 60, "count/time")]),
        ("100 requests a minute", [(100 / 60, "count/time")]),
        ("runs 4 to 30 pods", []),  # a range says nothing single
        ("went from 38% to 61%", []),  # a change, not a value
        ("on 2025-01-02 since 2024, see #812, ITMS-90683, p99, 40P01, 4xx", []),
        ("one of the pods", []),
    ],
)
def test_quantities_are_read_with_their_units(text: str, expected: list[tuple[float, str]]) -> None:
    found = [(round(q.value, 6), q.dimension) for q in quantities(text.lower())]
    assert found == [(round(v, 6), d) for v, d in expected]


def test_counts_remember_what_they_count() -> None:
    (dlq,) = quantities("the dlq alert fires once 100 messages are waiting")
    (topic,) = quantities("dead-letter topics alert after 10 messages")
    (pods,) = quantities("the job runs 10 pods")
    assert dlq.measures_same(topic)
    assert not dlq.measures_same(pods)


# ---- clauses and conflicts ----


def conflict_kinds(mine: str, theirs: str) -> list[str]:
    found = conflicts(
        claims(Note("new", None, f"## What\n{mine}\n")),
        claims(Note("old", None, f"## What\n{theirs}\n")),
        flat,
    )
    return [c.kind for c in found]


@pytest.mark.parametrize(
    ("mine", "theirs", "kind"),
    [
        ("Migrations run with a lock timeout of 10000 ms.",
         "Migrations run with a lock timeout of 5 s.", "number"),
        ("Retries are disabled for the payment client.",
         "Retries are enabled for the payment client.", "polarity"),
        ("The Idempotency-Key header is optional on capture.",
         "The Idempotency-Key header is required on capture.", "polarity"),
        ("Never squash-merge pull requests.", "Pull requests are always squash-merged.",
         "polarity"),
        ("Ledger consumers commit offsets before posting.",
         "Ledger consumers commit offsets after posting.", "polarity"),
        ("List endpoints page with offset and limit.",
         "Public list endpoints use cursor pagination, not offsets.", "alternative"),
    ],
)  # fmt: skip
def test_each_kind_of_contradiction(mine: str, theirs: str, kind: str) -> None:
    assert conflict_kinds(mine, theirs)[:1] == [kind]


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ("Migrations run with a lock timeout of 5000 ms.",
         "Migrations run with a lock timeout of 5 s."),  # the same value
        ("Retries are disabled for the payment client.",
         "Retries are never enabled for the payment client."),  # the same claim
        ("Cursor tokens expire after 24 hours.",
         "Public list endpoints use cursor pagination, not offsets."),  # another claim
        ("Before running a migration, env.py sets lock_timeout to 3s.",
         "env.py sets lock_timeout = '3s' before each migration."),  # "before" says when
        ("Checkout runs 4 to 30 pods.", "Checkout runs 12 pods at night."),  # a range
        ("Services do not share namespaces.",
         "Every service gets its own namespace."),  # "not" bears on a word the other lacks
    ],
)  # fmt: skip
def test_agreeing_clauses_do_not_conflict(mine: str, theirs: str) -> None:
    assert conflict_kinds(mine, theirs) == []


def test_why_sections_tell_history_not_numbers_that_hold() -> None:
    old = Note("old", None, "## What\nHolds last 15 minutes.\n\n## Why\n5 minutes was too short.")
    new = Note("new", None, "## What\nHolds last 15 minutes, refreshed on each step.\n")
    assert conflicts(claims(new), claims(old), flat) == []


def test_an_acronym_is_read_through_the_other_notes_words() -> None:
    old = Note("old", "Dead-letter topics alert after 10 messages", "## What\nSee title.\n")
    new = Note("new", None, "## What\nThe DLQ alert fires once 100 messages are waiting.\n")
    (found, *_) = conflicts(claims(new), claims(old), flat)
    assert found.kind == "number"
    assert found.detail == "100 messages against 10 messages"


def test_clauses_split_at_conjunctions_but_not_inside_noun_phrases() -> None:
    note = Note(
        "n",
        None,
        "## What\nTokens are stored in the Keychain and Keystore, never in AsyncStorage. "
        "The relay retries failed messages three times and parks the rest on the DLQ topic; "
        "offsets and limits are not used.\n",
    )
    texts = [(c.text, c.negated, sorted(c.focus)) for c in claims(note).clauses]
    assert texts == [
        ("Tokens are stored in the Keychain and Keystore, never in AsyncStorage", False, []),
        ("Tokens are stored in the Keychain and Keystore, never in AsyncStorage", True,
         ["asyncstorag"]),
        ("The relay retries failed messages three times", False, []),
        ("parks the rest on the DLQ topic", False, []),
        ("offsets and limits are not used", True, []),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [
        "password: " * 5_000,
        "a, not b " * 5_000,
        "x and y z w " * 5_000,
        "1 to 2 " * 5_000,
        "it; " * 5_000,  # 5,000 pieces too short to stand, each put back on the one before
    ],
)
def test_hostile_prose_is_read_in_bounded_time(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The time is bounded by the work: every character of the note is handed to the
    tokenizer and the quantity reader a few times at most, however the clauses are cut
    and joined (a piece re-read as it grows would make this quadratic, and fail)."""
    from lore.text import clauses as reader

    read = [0]

    def counted(function: Callable[..., Any]) -> Callable[..., Any]:
        def call(text: str, *args: Any, **kwargs: Any) -> Any:
            read[0] += len(text)
            return function(text, *args, **kwargs)

        return call

    monkeypatch.setattr(reader, "tokens", counted(reader.tokens))
    monkeypatch.setattr(reader, "quantities", counted(reader.quantities))
    found = claims(Note("n", "t", "## What\n" + body))
    assert len(found.clauses) <= 200
    assert 0 < read[0] <= 8 * len(body)


# ---- likeness ----


def test_notes_about_different_repositories_are_different_lessons() -> None:
    text = "## What\nThe engine uses `pool_size=10`, `max_overflow=5` and pre-ping.\n"
    one = profile(Note("a", "Pool settings", text, ("tool/sqlalchemy",), ("checkout-api",)))
    other = profile(Note("b", "Pool settings", text, ("tool/sqlalchemy",), ("ledger",)))
    same = profile(Note("c", "Pool settings", text, ("tool/sqlalchemy",), ("checkout-api",)))
    assert subject(one, other).different == "repo checkout-api against ledger"
    assert likeness(one, other, flat).score == 0.0
    assert likeness(one, same, flat).score == 1.0


def test_a_shared_title_alone_is_not_the_same_lesson() -> None:
    one = profile(Note("a", "Retry policy", "## What\nStripe calls retry three times.\n"))
    other = profile(Note("b", "Retry policy", "## What\nThe app shows an offline banner.\n"))
    assert likeness(one, other, flat).score < 0.42


# ---- the candidate seam ----


def test_candidates_are_the_notes_that_share_rare_terms_or_files(
    make_vault: Callable[..., Vault],
) -> None:
    notes = {
        f"misc--note-{n}--2025-01-0{n}": note_text(
            title=f"Unrelated fact number {n}",
            date=f"2025-01-0{n}",
            body=f"## What\nThe nightly job {n} exports invoices to the warehouse.\n",
        )
        for n in range(1, 6)
    }
    notes["kafka--offsets--2025-02-01"] = note_text(
        title="Kafka offsets are committed after processing",
        tags="[tool/kafka]",
        body="## What\nConsumers commit Kafka offsets after processing.\n",
    )
    notes["web--component--2025-02-02"] = note_text(
        title="Buttons come from the design system",
        tags="[service/web]",
        files_touched="[src/components/Button.tsx]",
        body="## What\nUse the shared Button component.\n",
    )
    vault = make_vault(notes)
    draft = note_text(
        title="Commit Kafka offsets once handled",
        tags="[tool/kafka]",
        files_touched="[src/components/Button.tsx]",
        body="## What\nCommit the Kafka offset only once the message is handled.\n",
    )
    context = build_context(
        vault.root, Drafts({"notes/kafka--new--2026-11-10.md": draft.encode()}), today=TODAY
    )
    corpus = corpus_of(context)
    assert corpus_of(context) is corpus  # built once for both rule families
    (mine,) = corpus.reviewed()
    found = [corpus.entries[i].view.id for i in candidates(corpus, mine, lambda i: True, 2)]
    assert found == ["kafka--offsets--2025-02-01", "web--component--2025-02-02"]


def test_weights_of_equal_term_sets_are_equal_however_the_sets_were_built() -> None:
    """Two equal sets can hold their terms in different orders (a set built by taking
    terms out of a larger one keeps its larger table), and a plain float sum depends on
    the order: the same two notes then scored differently by the index's path and the
    files' path, and a tie between two conflicts went either way with the hash seed."""
    rng = random.Random(2)
    for _ in range(200):
        words = ["".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(40)]
        weight = {word: rng.random() * 10 for word in words}
        small = frozenset(words)
        grown = frozenset([*words, *(f"x{i}" for i in range(200))])
        taken = frozenset(word for word in grown if not word.startswith("x"))
        other = frozenset([*words, *(f"y{i}" for i in range(100))])  # the larger side

        def idf(term: str, weight: dict[str, float] = weight) -> float:
            return weight.get(term, 1.0)

        assert weighted_overlap(small, other, idf) == weighted_overlap(taken, other, idf)
