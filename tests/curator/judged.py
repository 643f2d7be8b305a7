"""A note as the judgement reads it (the `JudgedNote` protocol), for the judgement's tests,
and a flat weight for every term."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    id: str
    title: str | None
    body: str
    tags: tuple[str, ...] = ()
    repo: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    files_touched: tuple[str, ...] = ()


def flat(term: str) -> float:
    return 2.0
