"""Proposals: what the team is asked to merge, each a `lore/` branch and a pull request.

`note` proposes one note (`lore remember`, the MCP `remember` tool); `changes` proposes
edits to several files (the gardener's cleanup, drift's review marks); both commit on a
branch of their own (`branches`) and open the pull request `pr_body` writes. `listing`
lists what is open, with the curator's verdict (`lore proposals`).
"""
