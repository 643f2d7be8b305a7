"""The floor for a recall process: the least a Python program can do to answer the query.

    python bench/floor_recall.py INDEX_DB MATCH WEIGHTS [TYPE]

It opens the FTS5 table of lore's index read-only, runs the OR query it is given (the
same MATCH expression lore builds for the query, with the same column weights, comma
separated) ranked by `bm25()`, with a snippet of the body, keeps the notes of TYPE when
one is given, reads the top 10's fields and prints them as JSON. No query parsing, no
freshness check, no boosts or statuses: `bench/bench_floor.py` compares a whole
`lore recall --json` process with this one, and `bench/bench_mcp_warm.py` a warm MCP
call with `answer` on a connection opened once. The fastest form measured: the ranking
on the full-text table alone (joining the notes table there doubled its cost), the type
as a `+rowid IN (…)` filter (without the `+`, SQLite looks rows up one by one).
"""

import json
import sqlite3
import sys


def answer(conn: sqlite3.Connection, match: str, weights: str, kind: str | None = None) -> str:
    """The top 10 for `match` as JSON, on an open connection to the index."""
    bm25 = f"bm25(notes_fts, {', '.join(str(float(w)) for w in weights.split(','))})"
    where = " AND +rowid IN (SELECT rowid FROM notes WHERE type = ?)" if kind else ""
    ranked = conn.execute(
        f"SELECT rowid, -{bm25}, snippet(notes_fts, 2, '', '', '…', 24) FROM notes_fts "
        f"WHERE notes_fts MATCH ?{where} ORDER BY {bm25} LIMIT 10",
        (match, kind) if kind else (match,),
    ).fetchall()
    fields = {
        row[0]: row[1:]
        for row in conn.execute(
            "SELECT rowid, id, title, path, type, repo, tag_list, confidence, date FROM notes "
            f"WHERE rowid IN ({','.join('?' * len(ranked))})",
            [row[0] for row in ranked],
        )
    }
    keys = ("id", "title", "path", "type", "repo", "tags", "confidence", "date")
    results = []
    for rowid, score, snippet in ranked:
        result = dict(zip(keys, fields[rowid], strict=True))
        result["repo"] = json.loads(result["repo"])
        result["tags"] = json.loads(result["tags"])
        results.append({**result, "score": score, "snippet": snippet})
    return json.dumps({"version": 1, "query": match, "results": results})


def connect(path: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


if __name__ == "__main__":
    kind = sys.argv[4] if len(sys.argv) > 4 else None
    print(answer(connect(sys.argv[1]), sys.argv[2], sys.argv[3], kind))
