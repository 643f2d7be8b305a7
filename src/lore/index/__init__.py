"""The local SQLite FTS5 index: schema, build, incremental update, lock, and the scan fallback."""
