"""The curator's judgement of note pairs: same lesson, or opposite claims.

Pure functions over two notes' texts and fields and an IDF (`Callable[[str], float]`):
no I/O, no SQLite, no curator context. `terms` tokenises and stems, `notes` reads a
note's prose and profile, `similarity` scores a pair as the same lesson, `quantities`
and `claims` find clauses that cannot both hold, and `verdict` decides what the
curator reports. The curator's rules choose the pairs (`lore.curator.context.candidates`).
"""
