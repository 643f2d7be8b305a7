"""The one reader of note prose for the whole product.

`headings`: the one heading pattern (CommonMark's ATX heading).
`markdown`: sections, code, quotes, list items (CommonMark's reading).
`prose`: the sentences a note's author wrote, section by section.
`words`: tokens, stems (`porter`, FTS5's own), stop words, word counts.
`cues`, `weighing`, `quantities`, `choices`: what a sentence says — that something is
replaced, that options are weighed, the quantities it names, what a title chooses —
read one note at a time; the judgement compares two notes with them.
`clauses`, `cue_sentences`: what a whole note claims, clause by clause, and the sentences
in which it says something is replaced, as the judgement compares them
(`lore.curator.judgement` holds pair logic only).

The rules, the judgement, recall's snippets and the importers read notes through these;
`tests/test_architecture.py` fails when a module elsewhere compiles its own heading or
word pattern, keeps its own stop-word list or stems words its own way. Nothing here is
imported by this package file, so the recall path loads only what it uses.
"""
