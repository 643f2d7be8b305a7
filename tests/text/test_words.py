"""`lore.text.words`: one tokenizer, one stemmer, and word lists that each hold one principle.

Each list is tested by a table of examples from unrelated sources (engineering notes,
architecture decision records, agents' requests): a word belongs to a list because of
the list's principle, never because one sentence needed it.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lore.text.words import (
    QUERY_STOP_WORDS,
    REQUEST_WORDS,
    STOP_WORDS,
    WEAK_WORDS,
    count_words,
    fold,
    identifier_parts,
    index_tokens,
    stem,
    stem_prefix,
    tokens,
)

ROOT = Path(__file__).resolve().parents[2]

# Function words (closed classes): (word, its class, a sentence from an unrelated source).
FUNCTION_WORDS = [
    ("the", "article", "The ledger writer retries on timeout."),  # an engineering note
    ("whereas", "conjunction", "Whereas ADR 4 chose queues, we now use a workflow engine."),
    ("themselves", "pronoun", "Agents should check the tests themselves."),  # an agent rule
    ("towards", "preposition", "We move towards one deploy pipeline."),  # an ADR
    ("would", "auxiliary", "It would need a second database."),
    ("never", "negation", "Never commit the .env file."),  # a convention
    ("several", "quantifier", "Several services read the flag."),
    ("ought", "modal", "Reviewers ought to run the suite."),
]

# Open-class words so common in engineering prose that they name no topic.
COMMON_WORDS = [
    ("use", "We use Postgres for the ledger."),
    ("team", "The payments team owns the worker."),
    ("work", "The migration work is done in two steps."),
    ("new", "A new cache sits in front of the API."),
    ("case", "In that case the job is retried."),
]

# What a request to an agent is made of, and says nothing of its subject.
REQUESTS = [
    ("please", "please tell me how we deploy the worker"),
    ("explain", "explain why the ledger retries"),
    ("know", "what do we know about flaky tests"),
    ("happens", "what happens when the token expires"),
]


@pytest.mark.parametrize(("word", "kind", "sentence"), FUNCTION_WORDS)
def test_function_words_are_stop_words(word: str, kind: str, sentence: str) -> None:
    assert word in tokens(sentence), kind
    assert word in STOP_WORDS, kind


@pytest.mark.parametrize(("word", "sentence"), COMMON_WORDS)
def test_common_engineering_words_are_weak_not_stop_words(word: str, sentence: str) -> None:
    assert word in tokens(sentence)
    assert word in WEAK_WORDS
    assert word not in STOP_WORDS


@pytest.mark.parametrize(("word", "asked"), REQUESTS)
def test_the_words_of_a_request_are_dropped_from_a_query_only(word: str, asked: str) -> None:
    assert word in tokens(asked)
    assert word in REQUEST_WORDS and word in QUERY_STOP_WORDS
    assert word not in STOP_WORDS  # a note's prose keeps them


def test_the_lists_hold_no_topic_words() -> None:
    # Words that name what a note is about stay in every kind of text.
    for topic in ("postgres", "deploy", "timeout", "token", "queue", "ledger", "cache"):
        assert topic not in QUERY_STOP_WORDS | WEAK_WORDS


def test_tokens_read_contractions_and_possessives_as_words() -> None:
    assert tokens("The checkout's pool doesn't grow; we can't wait") == [
        "the", "checkout", "pool", "does", "not", "grow", "we", "can", "not", "wait",
    ]  # fmt: skip
    assert index_tokens("doesn't Café") == ["doesn", "t", "cafe"]  # as FTS5 splits them
    assert identifier_parts("X-Request-Id pool_size") == ["X", "Request", "Id", "pool", "size"]
    assert fold("Ærø Café") == "ærø cafe"


def test_count_words_counts_spaced_and_unspaced_scripts() -> None:
    assert count_words("Don't retry twenty-two times") == 4
    assert count_words("数据库连接池") == 3  # Chinese: about two characters a word
    assert count_words("") == 0


def _fts5_stems(words: list[str]) -> list[str]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    for word in words:
        db.execute("INSERT INTO t VALUES (?)", (word,))
    found = {row[0] for row in db.execute("SELECT term FROM v")}
    db.close()
    return sorted(found)


def _prose_words() -> list[str]:
    """Every distinct word of the repository's own prose: the docs and the eval vault."""
    found: set[str] = set()
    for path in [*ROOT.glob("docs/*.md"), *ROOT.glob("eval/vault/**/*.md")]:
        found.update(index_tokens(path.read_text(encoding="utf-8")))
    return sorted(word for word in found if word.isascii() and word.isalpha())


def test_every_word_starts_with_its_stems_prefix() -> None:
    # Recall's snippets find a stem's words by `stem_prefix` before stemming them.
    words = _prose_words()
    assert len(words) > 3000  # a real vocabulary, not a handful
    misses = [w for w in words if not w.startswith(stem_prefix(stem(w)))]
    assert misses == []


@given(st.from_regex(re.compile(r"[a-z]{1,20}"), fullmatch=True))
def test_any_ascii_word_starts_with_its_stems_prefix(word: str) -> None:
    assert word.startswith(stem_prefix(stem(word)))


def test_stems_are_fts5s_for_the_repositorys_own_words() -> None:
    words = _prose_words()[:4000]
    assert sorted({stem(word) for word in words}) == _fts5_stems(words)
