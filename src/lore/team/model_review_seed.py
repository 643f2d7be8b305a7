"""The model review `lore init --github` turns on: the `[curator.semantic]` block it writes
into the new vault's `lore.toml`, in place of the template's commented-out one.

A vault on GitHub gets GitHub Models with the workflow's own token, so the review needs
no secret (`lore.curator.review.github_models`); the block says what it does, that it
never fails a check, and how to turn it off. `lore.curator.context.settings` reads it.
"""

from __future__ import annotations

from lore.curator.context.settings import DEFAULT_MODELS, GITHUB

TEMPLATE_START = "# [curator.semantic]\n"  # the template's commented-out section
TEMPLATE_NEXT = "\n# ["  # the next commented-out section after it

BLOCK = f"""[curator.semantic]
# The model review, turned on by `lore init --github`. After the rules, GitHub Models
# reads each note a pull request adds or edits against its closest notes, in one call
# per note, with the workflow's own GITHUB_TOKEN (no secret to store; the curator job
# grants `permissions: models: read`). What it judges a duplicate or a contradiction
# is a warning for the reviewer, quoting both notes. When it cannot run (GitHub Models
# not enabled for the organisation, a rate limit, a timeout) the pull-request comment
# says it was skipped and why; nothing fails. docs/curator.md, "The github provider".
# To turn it off, set enabled = false (or delete this section).
enabled = true
provider = "{GITHUB}"
model = "{DEFAULT_MODELS[GITHUB]}"
# org = "your-org"   # attribute the calls, and their rate limits, to an organisation
# max_calls = 10     # calls (notes judged) per pull request at most
"""

SUMMARY = (
    f"Model review: on, through GitHub Models ({DEFAULT_MODELS[GITHUB]}) with the workflow's "
    "own token; set enabled = false under [curator.semantic] in lore.toml to turn it off."
)


def with_model_review(lore_toml: str) -> str:
    """`lore_toml` with the review enabled: the template's commented-out section replaced
    by `BLOCK` (appended when the template has no such section)."""
    start = lore_toml.find(TEMPLATE_START)
    if start < 0 or (start and lore_toml[start - 1] != "\n"):
        return lore_toml.rstrip("\n") + "\n\n" + BLOCK
    end = lore_toml.find(TEMPLATE_NEXT, start)
    end = len(lore_toml) if end < 0 else end + 1
    rest = lore_toml[end:]
    return lore_toml[:start] + BLOCK + ("\n" + rest if rest else "")
