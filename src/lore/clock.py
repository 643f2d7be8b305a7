"""Today's date, which decides expiry and recency.

`LORE_TODAY=YYYY-MM-DD` pins it, so that the retrieval eval and tests give the same
answer on any day; nothing else should set it.
"""

from __future__ import annotations

import os
from datetime import date


def today() -> date:
    pinned = os.environ.get("LORE_TODAY")
    if pinned:
        try:
            return date.fromisoformat(pinned)
        except ValueError:
            pass
    return date.today()
