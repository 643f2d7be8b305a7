"""Work counted in steps, not seconds: a test that bounds how work grows holds on any machine.

`python_steps(call)` counts the lines of Python the interpreter runs for `call()` (the
trace function's events), which is the same number on a quiet laptop and a loaded CI
machine. `grows_linearly` runs the call at three sizes and compares the increments: a
linear pass doubles its increment when the size doubles, a quadratic one quadruples it.

What it cannot see is work inside C: a regular expression that backtracks runs in one
step here. That timing lives in bench/bench_hostile_input.py, as a ratio against a plain
input of the same size measured in the same run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def python_steps(call: Callable[[], object]) -> int:
    """The lines of Python run by `call()` (calls, lines and returns, in every frame)."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(previous)
    return count


def growth(run: Callable[[int], object], size: int) -> tuple[int, int]:
    """The steps `run` adds from size/4 to size/2, and from size/2 to size (after one run
    that is not counted: what happens once, a lazy import or a cache, is not growth)."""
    run(size // 4)
    quarter, half, whole = (python_steps(lambda n=n: run(n)) for n in (size // 4, size // 2, size))
    return half - quarter, whole - half


def grows_linearly(run: Callable[[int], object], size: int, slack: int = 2_000) -> bool:
    """Whether doubling the input at most about doubles the work added (a quadratic pass
    would quadruple it). `slack` absorbs a few steps that do not depend on the size."""
    first, second = growth(run, size)
    return second <= 3 * max(first, 0) + slack
