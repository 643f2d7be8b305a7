"""`policy/`: changes to what reviews the vault, and state that no commit may hold.

A pull request is checked by the curator the base defines, under the review rules
CODEOWNERS and the workflows set. A change to those is a change to the review
itself, so it must not merge on the strength of the review it changes:

- `policy/lore-folder` (error): `.lore` — the folder where older clients kept the
  index, locks and digests — exists in the head's tree, as a file, a folder or a
  link, in any spelling a checkout would write as `.lore`. A committed index would
  replace the reviewed notes on every machine that pulls it.
- `policy/protected-path` (error): the change adds, edits or deletes anything under
  `.github/`, a CODEOWNERS file (root, `.github/`, `docs/`), a `.gitattributes`
  (anywhere: attributes can hide a diff from review) or `.gitmodules`.
- `policy/policy-file` (warning): the change edits `_taxonomy.md`, `_conventions.md`,
  `lore.toml` or the vault's `README.md`: the rules every later note is held to.

The errors are cleared by a maintainer's recorded approval: the trusted workflow
passes `lore curate --policy-approved-by LOGIN` only after it has read the approval
label and who applied it; they then stay in the report as warnings that name who
cleared them. These rules look at paths, so they run in pull-request mode only.
"""

from __future__ import annotations

from lore.curator.context.model import POLICY_TEXTS, CuratorContext
from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.rules.text import quote
from lore.vault.settings import SETTINGS_FILE

NAME = "policy"
RULES = {
    "policy/lore-folder": "`.lore` (a file, folder or link) is committed: machine-local state "
    "that replaces the reviewed notes on every machine",
    "policy/protected-path": "the change touches `.github/`, CODEOWNERS, `.gitattributes` or "
    "`.gitmodules`: what reviews the vault",
    "policy/policy-file": "the change edits `_taxonomy.md`, `_conventions.md`, `lore.toml` or "
    "the vault README (warning)",
}

CODEOWNERS = frozenset({"codeowners", ".github/codeowners", "docs/codeowners"})
_ROOT_ONLY = frozenset({".gitmodules"})
_POLICY_FILES = frozenset({*POLICY_TEXTS, SETTINGS_FILE})
_VERBS = {"A": "adds", "M": "changes", "T": "changes", "D": "deletes"}
_STATE_FIX = (
    "Remove it from the branch (`git rm -r --cached .lore` and commit); lore keeps its "
    "index outside the work tree, and a `.lore/` line in .gitignore keeps old caches out."
)


def protected(path: str) -> str | None:
    """What a protected path is, or None (case-insensitive: a checkout on macOS or
    Windows writes `.GitHub/` as `.github/`)."""
    folded = path.casefold()
    name = folded.rsplit("/", 1)[-1]
    if folded == ".github" or folded.startswith(".github/"):
        if folded.startswith(".github/workflows/"):
            return "a workflow"
        if folded == ".github/codeowners":
            return "CODEOWNERS"
        return "a file under .github/"
    if folded in CODEOWNERS:
        return "CODEOWNERS"
    if name == ".gitattributes":
        return "a .gitattributes file"
    if folded in _ROOT_ONLY:
        return ".gitmodules"
    return None


def check(context: CuratorContext) -> list[Finding]:
    if context.mode != "range":
        return []
    approver = context.policy_approver
    findings: list[Finding] = []

    def blocking(rule: str, path: str, message: str, fix: str) -> None:
        if approver is None:
            findings.append(Finding(rule, ERROR, path, None, message, fix))
        else:
            cleared = f"{message}; cleared by @{approver}"
            findings.append(Finding(rule, WARNING, path, None, cleared, "Reviewed on its own."))

    for mode, name in context.committed_state:
        kind = {"040000": "folder", "120000": "symbolic link", "160000": "submodule"}.get(
            mode, "file"
        )
        blocking(
            "policy/lore-folder",
            name,
            f"the branch commits '{quote(name, 60)}' (a {kind}): lore's machine-local state "
            "must never be in a commit, since a pulled index would replace the reviewed notes",
            _STATE_FIX,
        )
    for status, path in context.changes:
        what = protected(path)
        verb = _VERBS.get(status, "changes")
        if what is not None:
            blocking(
                "policy/protected-path",
                path,
                f"the pull request {verb} {what}, which decides how the vault is reviewed",
                "Propose it on its own, for a maintainer (a code owner) to review and approve.",
            )
        elif path in _POLICY_FILES:
            findings.append(
                Finding(
                    "policy/policy-file",
                    WARNING,
                    path,
                    None,
                    f"the pull request {verb} {path}: the PR changes the vault's policy; "
                    "review it on its own",
                    "Merge policy changes in a pull request of their own, after a maintainer "
                    "has read them.",
                )
            )
    return findings
