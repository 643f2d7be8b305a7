"""The version every JSON object lore prints carries (DESIGN §3), put on in one place.

Each output shape has one builder — a `to_json` or a `*_json` function next to the
type it describes — shared by the CLI and the MCP server; each of them calls
`versioned`, so the contract's version is written once.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

JSON_VERSION = 1


def versioned(fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` as a JSON object of the contract: `version` first, then the rest."""
    return {"version": JSON_VERSION, **fields}
