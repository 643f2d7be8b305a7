"""A generated vault for the curator's index path: links, supersessions, duplicates and more.

`vault_notes()` gives about 120 notes (id -> file text) written from a seeded random
source: topical prose with numbers and polar claims (so some pairs contradict), links
between notes (some to notes that do not exist), supersession chains, notes that
depend on superseded or expired notes, word-for-word copies, reworded duplicates,
repeated titles, a note whose file name cannot be an id and a note that cannot be
parsed. `change(vault)` then edits the vault the way a pull request does.
"""

from __future__ import annotations

import random

TOPICS = {
    "kafka": ["consumer", "offset", "partition", "commit", "retry", "lag", "topic"],
    "postgres": ["migration", "lock", "index", "vacuum", "replica", "timeout", "pool"],
    "redis": ["session", "cache", "expiry", "eviction", "key", "cluster", "ttl"],
    "billing": ["invoice", "refund", "charge", "ledger", "stripe", "webhook", "batch"],
    "web": ["component", "render", "bundle", "cookie", "header", "cors", "cdn"],
}
TAGS = {
    "kafka": "[tool/kafka, pattern/idempotency]",
    "postgres": "[tool/postgres, pattern/testing]",
    "redis": "[tool/postgres, pattern/caching]",
    "billing": "[service/billing, tool/httpx]",
    "web": "[pattern/testing]",
}
UNITS = ["messages", "seconds", "minutes", "connections", "retries", "MB"]
POLAR = [("always", "never"), ("enabled", "disabled"), ("required", "optional")]


def _id(scope: str, topic: str, day: int) -> str:
    return f"{scope}--{topic}--2025-{1 + day % 12:02d}-{1 + day % 27:02d}"


def _text(
    title: str,
    body: str,
    *,
    tags: str,
    date: str,
    extra: dict[str, str] | None = None,
) -> str:
    lines = [
        "---",
        f"title: {title}",
        "type: gotcha",
        f"tags: {tags}",
        "confidence: medium",
        f"date: {date}",
    ]
    lines += [f"{key}: {value}" for key, value in (extra or {}).items()]
    return "\n".join([*lines, "---", body])


def _body(rng: random.Random, scope: str, words: list[str], links: list[str]) -> tuple[str, str]:
    first, second = rng.sample(words, 2)
    number = rng.choice([3, 5, 10, 30, 100])
    unit = rng.choice(UNITS)
    yes, no = rng.choice(POLAR)
    polar = yes if rng.random() < 0.5 else no
    what = f"The {scope} {first} {polar} waits for the {second} after {number} {unit}."
    why = " ".join(rng.choice(words) for _ in range(rng.randint(8, 20)))
    body = f"## What\n{what}\n\n## Why\nWe saw the {second} {why} in production.\n"
    if rng.random() < 0.3:
        body += f"\n## How\n```\n{scope}-ctl set {first}={number}\n```\n"
    if links:
        body += "\n## Related\n" + "\n".join(f"[[{link}]]" for link in links) + "\n"
    return what, body


def vault_notes(seed: int = 14) -> dict[str, str]:
    """File name (without .md) -> text of the generated vault's notes."""
    rng = random.Random(seed)
    notes: dict[str, str] = {}
    ids: list[str] = []
    for number in range(110):
        scope = rng.choice(sorted(TOPICS))
        words = TOPICS[scope]
        note_id = _id(scope, f"{rng.choice(words)}-{rng.choice(words)}-{number}", number)
        links = rng.sample(ids, min(len(ids), rng.choice([0, 0, 1, 2])))
        if rng.random() < 0.05:
            links.append(f"{scope}--no-such-note--2025-01-01")
        what, body = _body(rng, scope, words, links)
        extra: dict[str, str] = {}
        if rng.random() < 0.4:
            extra["repo"] = rng.choice(["payments-api", "web-app"])
        if rng.random() < 0.3:
            extra["files_touched"] = f"[src/{scope}/{rng.choice(words)}.py]"
        if ids and rng.random() < 0.12:
            extra["supersedes"] = f"[{rng.choice(ids)}]"
        if ids and rng.random() < 0.08:
            extra["depends_on"] = f"[{rng.choice(ids)}]"
        if rng.random() < 0.06:
            extra["expires"] = rng.choice(["2025-06-01", "2027-06-01"])
        title = what.rstrip(".") if rng.random() < 0.5 else f"{scope.title()} {words[number % 7]}"
        date = note_id.rsplit("--", 1)[1]
        notes[note_id] = _text(title, body, tags=TAGS[scope], date=date, extra=extra)
        ids.append(note_id)
    for number, source in enumerate(rng.sample(ids, 6)):  # word-for-word copies
        copy = source.replace("--2025", f"-copy{number}--2025")
        notes[copy] = notes[source].replace("title: ", f"title: Copy {number} of ")
    for number, source in enumerate(rng.sample(ids, 4)):  # reworded duplicates
        reworded = notes[source].replace("waits for", "holds off on").replace("We saw", "Seen")
        notes[source.replace("--2025", f"-again{number}--2025")] = reworded
    notes["Odd Name"] = _text(  # a file name that cannot be an id: inspect_note still reads it
        "Kafka consumer offset commit",
        "## What\nThe kafka consumer never waits for the offset after 10 messages.\n",
        tags=TAGS["kafka"],
        date="2025-03-03",
    )
    notes["postgres--broken-frontmatter--2025-03-04"] = "---\ntitle: [unclosed\n---\n## What\nx\n"
    return notes


def _expired(notes: dict[str, str]) -> list[str]:
    return sorted(nid for nid, text in notes.items() if "\nexpires: 2025-06-01\n" in text)


def change(notes: dict[str, str], seed: int = 15) -> tuple[dict[str, str], list[str]]:
    """What a pull request does to the vault: notes it adds or rewrites (id -> text), and
    the ids it deletes. It adds new notes that link, supersede and depend on existing
    ones, a word-for-word copy of an existing note, a note with an existing title and a
    note that says the opposite of an existing one; it rewrites one note and deletes two."""
    rng = random.Random(seed)
    ids = sorted(i for i in notes if "--" in i and "broken" not in i)
    added: dict[str, str] = {}
    for number in range(8):
        scope = rng.choice(sorted(TOPICS))
        words = TOPICS[scope]
        what, body = _body(rng, scope, words, [rng.choice(ids), rng.choice(ids)])
        extra: dict[str, str] = {}
        if number == 0:
            extra["supersedes"] = f"[{ids[3]}]"
        if number == 1:
            extra["depends_on"] = f"[{_expired(notes)[0]}]"  # out of recall already
        if number == 2:
            extra["files_touched"] = f"[src/{scope}/{words[0]}.py]"
        if number == 3:
            extra["depends_on"] = f"[{ids[7]}]"  # a note this change deletes
        note_id = _id(scope, f"new-{rng.choice(words)}-{number}", 200 + number)
        date = note_id.rsplit("--", 1)[1]
        added[note_id] = _text(what.rstrip("."), body, tags=TAGS[scope], date=date, extra=extra)
    source = notes[ids[20]]
    added[ids[20].replace("--2025", "-copied--2025")] = source.replace("title: ", "title: Again ")
    title = next(line for line in notes[ids[30]].splitlines() if line.startswith("title: "))
    added[ids[30].replace("--2025", "-retitled--2025")] = notes[ids[31]].replace(
        next(line for line in notes[ids[31]].splitlines() if line.startswith("title: ")), title
    )
    opposite = notes[ids[40]]
    for yes, no in POLAR:
        opposite = opposite.replace(f" {yes} ", f" {no}\0 ").replace(f" {no} ", f" {yes} ")
    added[ids[40].replace("--2025", "-opposite--2025")] = opposite.replace("\0", "")
    added[ids[50]] = notes[ids[50]].replace("## Why", "## Why\nRewritten in this change.")
    odd = notes["Odd Name"].replace("title: Kafka", "title: Again, kafka")
    added["kafka--odd-name-again--2025-03-05"] = odd  # the note whose name is not an id
    return added, [ids[7], ids[11]]
