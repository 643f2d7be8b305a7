"""`lore install AGENT` / `lore uninstall AGENT`: connect an agent to the vault.

Each agent gets, in the files its documentation names: the hook entries that run
`lore hook …`, the two skills, and the MCP server entry. An installer only touches
what it owns, recognised by a marker (`ownership`); every foreign entry is left as
it is. The first time a file is changed its original bytes are saved under
`$LORE_HOME/installs/` (`ledger`); uninstalling restores those exact bytes when
nobody else changed the file since, and otherwise removes only lore's entries.
Installing twice changes nothing the second time.
"""
