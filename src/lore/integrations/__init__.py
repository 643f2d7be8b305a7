"""Agents use the vault: hook entry points, the session digest, installers, the MCP server.

Only `lore.cli` imports this package. The hook path (`events`, `vaults`, `hook_index`,
`envelope`, `digest`, `prompt`, `hooks`, `launcher`) imports nothing heavy: no YAML,
GitPython, rich, tomllib, dataclasses or typing, so `lore hook session-start` stays a
lean process. Installers and the MCP server are imported only by their commands.
"""
