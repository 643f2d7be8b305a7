"""`lore curate`: review notes with the curator's rules (text, JSON, GitHub or markdown).

Argument parsing and output only; the review is `lore.curator.run.curate`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.cli.options import add_no_semantic, add_vault
from lore.cli.output import DelayedProgress, console, notice, print_json, safe
from lore.curator.report.document import ReportDocument, load_document
from lore.curator.report.formats import summary_line, to_github, to_json, to_markdown
from lore.curator.report.markdown import Links, named_note_ids
from lore.curator.run import curate
from lore.curator.similar import SHOWN
from lore.curator.target import Paths, Range, Target, WholeVault, approver_login
from lore.errors import UsageError
from lore.files import write_atomic
from lore.vaults import one_vault

if TYPE_CHECKING:
    from collections.abc import Iterable

    from lore.curator.finding import Finding
    from lore.curator.run import CurateResult

DESCRIPTION = """\
Check notes against the vault's taxonomy and conventions, and scan them for
secrets, hidden or injected instructions, duplicates and contradictions.

  lore curate --base origin/main --head HEAD   the notes a pull request adds or changes,
                                               checked against the vault at the base; every
                                               commit of the range is scanned for secrets
  lore curate notes/x.md drafts/               these files (folders: their .md files)
  lore curate --all                            audit the whole vault

Formats: text (for people), json ({"version": 1, "findings": [...]}), github
(workflow-command annotations, and a job summary in $GITHUB_STEP_SUMMARY), markdown
(a pull-request comment, with each note as an agent will see it). --report FILE also
writes the markdown comment to FILE from the same review, so a workflow runs the
review (and the optional model review) once for its annotations and its comment.

A pull request that touches .github/, CODEOWNERS, .gitattributes, .gitmodules or
commits .lore gets policy/ errors; --policy-approved-by LOGIN reports them as warnings
cleared by that maintainer (the trusted workflow passes it once it has verified the
approval).

In CI the review and the comment are two jobs: the one that reads the pull request
writes the findings (--json-report FILE), and the one that may write to the pull
request renders them without reviewing anything:
  lore curate --from-report findings.json --format markdown \
      --link-head https://github.com/OWNER/VAULT/blob/HEAD_SHA \
      --link-base https://github.com/OWNER/VAULT/blob/BASE_SHA --vault .

--from-report checks the file (its shape, every field capped) before it renders it;
--link-head links each finding to its file and line, --link-base links each note
already in the vault (--vault: a checkout of the base) that a finding names.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 bad usage."""


def register(subparsers: Any, name: str, help_text: str) -> None:
    parser = subparsers.add_parser(
        name,
        help=help_text,
        description=DESCRIPTION,
    )
    add_vault(parser)
    parser.add_argument("paths", nargs="*", metavar="PATH", help="note files or folders to check")
    parser.add_argument(
        "--base", metavar="REF", help="the pull request's base (branch, tag or commit)"
    )
    parser.add_argument(
        "--head", metavar="REF", help="the pull request's head (default: HEAD when --base is given)"
    )
    parser.add_argument(
        "--all", dest="all_notes", action="store_true", help="check every note in the vault"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "github", "markdown"),
        default="text",
        help="output format (default: text)",
    )
    parser.add_argument(
        "--report",
        metavar="FILE",
        type=Path,
        help="also write the markdown pull-request comment to FILE (whatever --format is)",
    )
    parser.add_argument(
        "--policy-approved-by",
        metavar="LOGIN",
        help="a maintainer (GitHub login) approved this pull request's changes to the "
        "workflows, CODEOWNERS or .lore: report the policy/ errors as warnings that name "
        "them (for the trusted workflow, after it has checked the approval)",
    )
    parser.add_argument(
        "--json-report",
        metavar="FILE",
        type=Path,
        help="also write the findings as a curator report (JSON) to FILE, for --from-report",
    )
    parser.add_argument(
        "--from-report",
        metavar="FILE",
        type=Path,
        help="review nothing: check the report FILE (from --json-report) and print it in "
        "--format markdown or json",
    )
    parser.add_argument(
        "--link-head",
        metavar="URL",
        help="with markdown: link findings to their files under URL, the pull request "
        "head's blob address (https://github.com/OWNER/VAULT/blob/SHA)",
    )
    parser.add_argument(
        "--link-base",
        metavar="URL",
        help="with markdown: link the vault's notes a finding names under URL, the base "
        "branch's blob address",
    )
    add_no_semantic(parser)
    parser.set_defaults(handler=run)


def _vault_root(flag: str | None) -> Path:
    """--vault, the vault checkout you stand in (registered or not: curate is a reviewer's
    command), $LORE_VAULT, the config (`lore.vaults`)."""
    return one_vault(flag, reviewing=True).root


def target_of(args: argparse.Namespace) -> Target:
    """What `lore curate` checks, from its flags: --base/--head, PATHs, or --all."""
    approver = None
    if args.policy_approved_by is not None:
        approver = approver_login(args.policy_approved_by)
        if args.base is None:
            raise UsageError(
                "--policy-approved-by clears a pull request's policy findings, so it needs "
                "--base and --head.",
                fix="E.g. `lore curate --base origin/main --head HEAD "
                "--policy-approved-by octocat`.",
            )
    ranged = args.base is not None or args.head is not None
    if sum((ranged, bool(args.paths), args.all_notes)) != 1:
        raise UsageError(
            "Tell the curator what to check: --base REF --head REF, file paths, or --all "
            "(one of them).",
            fix="E.g. `lore curate --base origin/main --head HEAD`.",
        )
    if ranged:
        return Range(args.base, args.head or "HEAD", policy_approved_by=approver)
    if args.all_notes:
        return WholeVault()
    return Paths(tuple(args.paths))


def run(args: argparse.Namespace) -> int:
    if args.from_report is not None:
        return _render_report(args)
    if args.head is not None and args.base is None:
        raise UsageError("--head needs --base.", fix="Add --base REF, e.g. origin/main.")
    root = _vault_root(args.vault)
    target = target_of(args)

    progress = DelayedProgress("Checking notes")  # on a terminal, after a second
    try:
        result = curate(
            root,
            target,
            semantic=args.semantic,
            similar=0 if args.all_notes else SHOWN,  # "does this replace one of these?"
            progress=progress,
        )
    finally:
        progress.close()
    if args.paths and not result.checked:
        named = ", ".join(str(path) for path in args.paths[:3])
        raise UsageError(
            f"Nothing was checked: {named} holds no note file of the vault {root}.",
            fix="Name .md files or folders inside that vault (e.g. notes/), pass --vault "
            "for another vault, or check every note with --all.",
        )
    if result.notices:
        for message in result.notices:  # about the index (healed, or not usable): stderr
            notice(message)
    if args.report is not None:
        _write_report(args.report, result)
    if args.json_report is not None:
        _write_json_report(args.json_report, result)
    if args.format == "json":
        print_json(to_json(result))
    elif args.format == "github":
        sys.stdout.write("\n".join(to_github(result)) + "\n")
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            try:
                with Path(summary).open("a", encoding="utf-8") as handle:
                    handle.write(to_markdown(result, previews=False))
            except OSError as exc:
                sys.stderr.write(f"lore: could not write the job summary ({exc.strerror}).\n")
    elif args.format == "markdown":
        listed = [note.id for notes in result.similar.values() for note in notes]
        sys.stdout.write(to_markdown(result, links=_links(args, result.findings, listed)))
    else:
        _print_text(result)
    return result.exit_code


def _write_report(path: Path, result: CurateResult) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, to_markdown(result).encode("utf-8"))
    except OSError as exc:
        raise UsageError(
            f"Cannot write the report to {path}: {exc.strerror or exc}.",
            fix="Pass --report a file in a folder you can write to.",
        ) from None


def _write_json_report(path: Path, result: CurateResult) -> None:
    text = json.dumps(ReportDocument.from_result(result).to_json(), ensure_ascii=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (text + "\n").encode("utf-8"))
    except OSError as exc:
        raise UsageError(
            f"Cannot write the curator report to {path}: {exc.strerror or exc}.",
            fix="Pass --json-report a file in a folder you can write to.",
        ) from None


_BLOB_URL = r"^https?://[^\s()<>\[\]`\\]+$"


def _links(args: argparse.Namespace, findings: list[Finding], similar: Iterable[str] = ()) -> Any:
    """The comment's links (`report.markdown.Links`) from --link-head and --link-base: the
    notes the findings name, and the `similar` notes listed, that the base has."""
    for flag, value in (("--link-head", args.link_head), ("--link-base", args.link_base)):
        if value is not None and not re.match(_BLOB_URL, value):
            raise UsageError(
                f"{flag} '{value}' is not a web address.",
                fix=f"Pass {flag} a blob address such as "
                "https://github.com/OWNER/VAULT/blob/COMMIT.",
            )
    notes: frozenset[str] = frozenset()
    if args.link_base is not None:
        root = _vault_root(args.vault)
        notes = frozenset(
            note_id
            for note_id in (*named_note_ids(findings), *similar)
            if (root / "notes" / f"{note_id}.md").is_file()
        )
    return Links(
        head=(args.link_head or "").rstrip("/") or None,
        base=(args.link_base or "").rstrip("/") or None,
        notes=notes,
    )


def _render_report(args: argparse.Namespace) -> int:
    """--from-report: check a report file and print it; nothing is reviewed."""
    others = [
        flag
        for flag, given in (
            ("PATH", bool(args.paths)),
            ("--base", args.base is not None),
            ("--head", args.head is not None),
            ("--all", args.all_notes),
            ("--report", args.report is not None),
            ("--json-report", args.json_report is not None),
            ("--policy-approved-by", args.policy_approved_by is not None),
        )
        if given
    ]
    if others:
        raise UsageError(
            f"--from-report renders a report and reviews nothing; it cannot be used with "
            f"{', '.join(others)}.",
            fix="Run the review first with --json-report FILE, then --from-report FILE.",
        )
    if args.format not in ("markdown", "json"):
        raise UsageError(
            f"--from-report prints markdown or json, not {args.format}.",
            fix="Add --format markdown (the pull-request comment) or --format json.",
        )
    document = load_document(args.from_report)
    if args.format == "json":
        print_json(document.to_json())
    else:
        listed = [note[0] for notes in document.similar.values() for note in notes]
        links = _links(args, document.findings, listed)
        sys.stdout.write(to_markdown(document, links=links))
    return 0


def _print_text(result: CurateResult) -> None:
    from rich.table import Table

    out = console()
    by_path: dict[str, list[Finding]] = {}
    for finding in result.findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, findings in by_path.items():
        out.print(f"[bold]{safe(path or '(vault)')}[/bold]")
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", min_width=5)
        table.add_column(min_width=7)
        table.add_column(overflow="fold")
        for finding in findings:
            colour = "red" if finding.is_error else "yellow"
            text = f"[dim]{safe(finding.rule)}[/dim]  {safe(finding.message)}"
            if finding.suggestion:
                text += f"\n[dim]→ {safe(finding.suggestion)}[/dim]"
            table.add_row(str(finding.line or ""), f"[{colour}]{finding.severity}[/{colour}]", text)
        out.print(table)
    if result.model_review is not None:  # advisory: its state never changes the exit code
        colour = "dim" if result.model_review.state == "ran" else "yellow"
        out.print(f"[{colour}]{safe(result.model_review.line)}[/{colour}]")
    style = "red" if result.errors else ("yellow" if result.warnings else "green")
    out.print(f"[{style}]{safe(summary_line(result))}[/{style}]")
