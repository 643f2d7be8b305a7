"""Recall across several vaults: a team vault and an org-wide one, searched together.

`lore.vaults.search_vaults` says which vaults to search (one named vault, or every
registered one, the default first); each is searched through its own index, and
the hits are merged by score and labelled with their vault. BM25 scores from
different indexes are close enough to interleave: each is computed with the same
weights and boosts.
"""

from __future__ import annotations

from pathlib import Path

from lore.errors import VaultError
from lore.recall import engine
from lore.recall.model import MultiResult, RecallRequest, RecallResult, SearchedVault
from lore.vaults import VaultRef


def recall_many(vaults: list[VaultRef], request: RecallRequest) -> MultiResult:
    results: list[tuple[str, Path, RecallResult]] = []
    notices: list[str] = []
    several = len(vaults) > 1
    for ref in vaults:
        name, root = ref.name, ref.root
        if not root.is_dir():
            if not several:
                raise VaultError(
                    f"The vault folder {root} (the vault '{name}' in the user config) does "
                    "not exist.",
                    fix="Connect it again with `lore connect`, or check the path with "
                    "`lore vaults`.",
                )
            notices.append(
                f"The vault '{name}' ({root}) does not exist and was not searched; connect it "
                "again or remove it with `lore vaults --remove`."
            )
            continue
        result = engine.recall(root, request)
        results.append((name, root.resolve(), result))
        notices += [f"[{name}] {text}" if several else text for text in result.notices]
    if not results:
        raise VaultError(
            "None of the registered vaults exists on disk.",
            fix="`lore vaults` lists them; `lore connect` clones one again.",
        )
    merged = [
        (hit, name, order) for order, (name, _, result) in enumerate(results) for hit in result.hits
    ]
    merged.sort(key=lambda item: (-item[0].score, item[2]))
    merged = merged[: request.limit]
    first = results[0][2]
    used = "fts5" if all(r.engine == "fts5" for _, _, r in results) else "scan"
    return MultiResult(
        query=first.query,
        engine=used,
        hits=[hit for hit, _, _ in merged],
        labels=[name for _, name, _ in merged],
        plan=first.plan,
        repo=first.repo,
        vaults=[SearchedVault(name, root, r.vault_version or None) for name, root, r in results],
        notices=notices,
    )
