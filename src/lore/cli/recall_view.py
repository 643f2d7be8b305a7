"""How `lore recall` looks to people: a rich table, and the score explained term by term."""

from __future__ import annotations

from pathlib import Path

from lore.cli.output import console, safe
from lore.recall.model import MultiResult, RecallResult
from lore.recall.snippet import HIGHLIGHT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.console import Console

    from lore.recall.changes import ChangesResult


def _snippet(text: str) -> str:
    # Escape first, then turn the highlight markers into bold.
    start, end = HIGHLIGHT
    pieces: list[str] = []
    for chunk in text.split(start):
        inner, sep, rest = chunk.partition(end)
        if sep:
            pieces.append(f"[bold yellow]{safe(inner)}[/]{safe(rest)}")
        else:
            pieces.append(safe(chunk))
    return "".join(pieces)


def show_result(result: RecallResult | MultiResult, *, vault_root: Path, explain: bool) -> None:
    from rich.table import Table

    out = console()
    err = console(stderr=True)
    for message in result.notices:
        err.print(f"[yellow]lore:[/] {safe(message)}")
    if result.plan.empty:
        err.print("No searchable words in the query; try different words.")
        return
    if not result.hits:
        out.print(f"No notes match [bold]{safe(result.query)}[/].", soft_wrap=True)
        return
    labels = getattr(result, "labels", None)
    several = labels is not None and len(getattr(result, "vaults", ())) > 1
    if not out.is_terminal:
        _plain(result, labels if several else None)
        if explain:
            _explain(out, result)
        return
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("#", justify="right", style="dim")
    table.add_column("score", justify="right")
    table.add_column("note", overflow="fold", ratio=1)
    for number, hit in enumerate(result.hits, start=1):
        repo = safe(", ".join(hit.repo)) if hit.repo else "org-wide"
        vault = f"[green]{safe(labels[number - 1])}[/] · " if several and labels else ""
        note = (
            f"[bold]{safe(hit.title)}[/]\n{vault}[cyan]{safe(hit.id)}[/]\n"
            f"[dim]{safe(hit.type)} · {repo} · {safe(hit.confidence)} confidence · {hit.date}[/]"
        )
        if hit.replaces:
            note += f"\n[magenta]replaces {safe(hit.replaces)}, which also matched[/]"
        if not hit.active:
            note += f"\n[red]inactive: {safe(hit.inactive_reason)}[/]"
        if hit.snippet:
            note += f"\n{_snippet(hit.snippet)}"
        table.add_row(str(number), f"{hit.score:.2f}", note)
        if number < len(result.hits):
            table.add_row("", "", "")
    repo = f" · repo boost: {safe(result.repo)}" if result.repo else ""
    asked = "[dim] or [/]".join(f"[bold]{safe(text)}[/]" for text in result.phrasings)
    fused = " · fused by rank" if len(result.phrasings) > 1 else ""
    out.print(
        f"[dim]{len(result.hits)} result(s) for[/] {asked}"
        f"[dim] · engine {result.engine}{repo}{fused}[/]"
    )
    out.print(table)
    if explain:
        _explain(out, result)
    if several:
        names = ", ".join(
            f"{safe(v.name)} {safe(str(v.root))}" for v in getattr(result, "vaults", ())
        )
        out.print(f"[dim]Read a note: lore show ID --vault PATH   (vaults: {names})[/]")
    else:
        out.print(f"[dim]Read a note: lore show ID   (vault: {safe(str(vault_root))})[/]")


def _plain(result: RecallResult | MultiResult, labels: list[str] | None) -> None:
    """Results for a program or a pipe: plain lines, never wrapped, so an id stays whole."""
    import sys

    asked = " or ".join(result.phrasings)
    fused = ", fused by rank" if len(result.phrasings) > 1 else ""
    lines = [f"{len(result.hits)} result(s) for {asked} (engine {result.engine}{fused})"]
    for number, hit in enumerate(result.hits, start=1):
        repo = ", ".join(hit.repo) if hit.repo else "org-wide"
        vault = f"{labels[number - 1]}: " if labels else ""
        lines.append(f"{number}. {hit.score:.2f}  {hit.title}")
        lines.append(f"   {vault}{hit.id}")
        lines.append(f"   {hit.type} · {repo} · {hit.confidence} confidence · {hit.date}")
        if hit.replaces:
            lines.append(f"   replaces {hit.replaces}, which also matched")
        if not hit.active:
            lines.append(f"   inactive: {hit.inactive_reason}")
        if hit.snippet:
            start, end = HIGHLIGHT
            lines.append("   " + hit.snippet.replace(start, "**").replace(end, "**"))
    lines.append("Read a note: lore show ID")
    sys.stdout.write("\n".join(lines) + "\n")


def _explain(out: Console, result: RecallResult | MultiResult) -> None:
    from rich.table import Table

    terms = ", ".join(
        safe(t.label)
        + (f" [dim](alias {safe(t.origin[6:])})[/]" if t.origin.startswith("alias:") else "")
        for t in result.plan.terms
    )
    out.print(f"\n[bold]Query terms[/] (OR): {terms}", soft_wrap=True)
    if len(result.phrasings) > 1:
        from lore.recall.fusion import RRF_K

        for number, (text, plan) in enumerate(
            zip(result.phrasings, result.plans, strict=True), start=1
        ):
            words = ", ".join(safe(t.label) for t in plan.terms) or "no searchable words"
            out.print(f"[dim]phrasing {number}:[/] {safe(text)} [dim]({words})[/]", soft_wrap=True)
        out.print(
            f"[dim]Each phrasing ranked alone; fused score = sum of 1/({RRF_K} + rank) over "
            "the phrasings that found the note, 1.0 = first for every one[/]",
            soft_wrap=True,
        )
    for vault in result.vaults if isinstance(result, MultiResult) else []:
        served = f"{safe(vault.branch)} at " if vault.branch else ""
        commit = (vault.commit or "")[:12] or "the files"
        out.print(
            f"[dim]Served from {safe(vault.name)}: {served}{safe(commit)} (the reviewed "
            "branch, whatever is checked out)[/]",
            soft_wrap=True,
        )
    if isinstance(result, MultiResult) and result.statistics is not None:
        out.print(
            f"[dim]idf from all {result.statistics.rows} notes of the {len(result.vaults)} "
            "vaults searched, as if they were one[/]",
            soft_wrap=True,
        )
    for number, hit in enumerate(result.hits, start=1):
        out.print(f"\n[bold]#{number}[/] [cyan]{safe(hit.id)}[/]", soft_wrap=True)
        if hit.ranks:
            ranks = ", ".join(
                f"phrasing {index}: " + (f"#{rank}" if rank else "not in its top")
                for index, rank in enumerate(hit.ranks, start=1)
            )
            out.print(
                f"[dim]ranks: {ranks}; below, the score under phrasing {hit.phrasing + 1}[/]",
                soft_wrap=True,
            )
        table = Table(show_edge=False, header_style="bold")
        table.add_column("part")
        table.add_column("idf", justify="right")
        table.add_column("value", justify="right")
        for term in hit.terms:
            label = f"bm25 “{safe(term.term)}”"
            if term.origin.startswith("alias:"):
                label += f" [dim]({safe(term.origin[6:])})[/]"
            idf = f"{term.idf:.3f}" + (" [dim](floor)[/]" if term.floored else "")
            table.add_row(label, idf, f"{term.score:.3f}")
        carried = hit.from_replaced()
        if carried:
            table.add_row(
                f"+ the replaced note {safe(hit.replaces or '')} matched more strongly",
                "",
                f"{carried:.3f}",
            )
        table.add_row("[bold]bm25 total[/]", "", f"[bold]{hit.base_score:.3f}[/]")
        if hit.boosts is not None:
            repo_label = "× repo" + (
                " (same repository)"
                if hit.boosts.repo > 1
                else " (other repository)"
                if hit.boosts.repo < 1
                else ""
            )
            table.add_row(repo_label, "", f"{hit.boosts.repo:.3f}")
            table.add_row(
                f"× confidence ({safe(hit.confidence)})", "", f"{hit.boosts.confidence:.3f}"
            )
            table.add_row(f"× recency ({hit.date})", "", f"{hit.boosts.recency:.3f}")
        if hit.ranks:
            under = hit.base_score * hit.boosts.total if hit.boosts is not None else 0.0
            table.add_row(f"[bold]= score under phrasing {hit.phrasing + 1}[/]", "", f"{under:.3f}")
            table.add_row("[bold]fused score[/]", "", f"[bold]{hit.score:.3f}[/]")
        else:
            table.add_row("[bold]= score[/]", "", f"[bold]{hit.score:.3f}[/]")
        out.print(table)


def show_changes(found: ChangesResult) -> None:
    """`lore recall --since`: the notes added or changed, newest first."""
    out = console()
    err = console(stderr=True)
    for message in found.notices:
        err.print(f"[yellow]lore:[/] {safe(message)}")
    several = len(found.vaults) > 1
    since = safe(found.since.text)
    if not found.changes and not found.removed:
        out.print(f"No note was added or changed since [bold]{since}[/].", soft_wrap=True)
        return
    lines = [f"{len(found.changes)} note(s) added or changed since {since}, newest first"]
    for number, (change, name) in enumerate(found.changes, start=1):
        hit = change.hit
        vault = f"{name}: " if several else ""
        repo = ", ".join(hit.repo) if hit.repo else "org-wide"
        lines.append(f"{number}. {change.change} {change.committed[:10]}  {hit.title}")
        lines.append(f"   {vault}{hit.id}")
        lines.append(f"   {hit.type} · {repo} · {hit.confidence} confidence · {hit.date}")
        if not hit.active:
            lines.append(f"   inactive: {hit.inactive_reason}")
    if found.more:
        lines.append(f"{found.more} more; raise --limit to see them.")
    for gone, name in found.removed:
        vault = f"{name}: " if several else ""
        lines.append(f"removed {gone.committed[:10]}  {vault}{gone.id}")
    lines.append("Read a note: lore show ID")
    if not out.is_terminal:
        import sys

        sys.stdout.write("\n".join(lines) + "\n")
        return
    out.print(safe(lines[0]), style="dim")
    for line in lines[1:]:
        out.print(safe(line), soft_wrap=True)
