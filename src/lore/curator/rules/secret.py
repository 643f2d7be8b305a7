"""`secret/`: credentials in any file the change touches, and in every commit of it.

A secret pushed to a pull request is exposed even if a later commit removes it,
so in pull-request mode every blob the range introduced is scanned, not only the
final files. Text is scanned as written and again with invisible characters
removed (a token split by a zero-width space is still a token). Findings show a
mask, never the value; the values go to `context.redactions` so that no other
output can leak them either.
"""

from __future__ import annotations

from lore.curator.context.model import CuratorContext
from lore.curator.finding import ERROR, Finding
from lore.sanitize import sanitize_text
from lore.sanitize.secret_scan import SECRET_RULES, SecretMatch, scan_secrets
from lore.vault import git

NAME = "secret"
RULES = {rule.id: rule.description for rule in SECRET_RULES}

MAX_SCAN_BYTES = 1024 * 1024
FIX = (
    "Remove it and rotate it: a pushed secret is exposed. Say where it lives instead, "
    'e.g. "in Secrets Manager under payments/stripe".'
)


def _is_binary(raw: bytes) -> bool:
    return b"\0" in raw[:8000]


def _matches(text: str, allowed: tuple[str, ...]) -> list[tuple[int, SecretMatch]]:
    """(line, match), also looking through invisible characters."""
    found = {(text.count("\n", 0, m.start) + 1, m.rule): m for m in scan_secrets(text, allowed)}
    visible = sanitize_text(text)
    if visible != text:
        for match in scan_secrets(visible, allowed):
            found.setdefault((visible.count("\n", 0, match.start) + 1, match.rule), match)
    return sorted(((line, m) for (line, _), m in found.items()), key=lambda x: (x[0], x[1].rule))


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    allowed = context.settings.allowed_placeholders
    for checked in context.files:
        if not checked.raw or len(checked.raw) > MAX_SCAN_BYTES or _is_binary(checked.raw):
            continue
        for line, match in _matches(checked.decoded(), allowed):
            context.redactions.add(match.value)
            findings.append(
                Finding(
                    match.rule,
                    ERROR,
                    checked.display,
                    line,
                    f"{match.description} ({match.masked})",
                    FIX,
                )
            )
    reported = set(context.redactions)  # each value once: in the final files if it is there
    for blob in context.history:
        if _is_binary(blob.raw):
            continue
        text = blob.raw.decode("utf-8", "replace").replace("\r\n", "\n")
        matches = [(line, m) for line, m in _matches(text, allowed) if m.value not in reported]
        if not matches:
            continue
        where = "an earlier commit of this pull request"
        if context.commits is not None:
            commits = git.commits_with_blob(context.root, *context.commits, blob.sha)
            if commits:
                where = f"commit {commits[0][:12]} of this pull request"
        for line, match in matches:
            if match.value in reported:
                continue
            reported.add(match.value)
            context.redactions.add(match.value)
            findings.append(
                Finding(
                    match.rule,
                    ERROR,
                    blob.path,
                    line,
                    f"{match.description} ({match.masked}) in {where}, though not in its final "
                    "files: it stays in the git history",
                    "Rotate it, then drop it from the branch's history (squash or rebase the "
                    "commits) before merging.",
                )
            )
    return findings
