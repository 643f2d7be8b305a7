"""One module per rule family; each exposes `NAME`, `RULES` (id -> what it catches) and
`check(context) -> list[Finding]`. The registry lists them; nothing else discovers them."""
