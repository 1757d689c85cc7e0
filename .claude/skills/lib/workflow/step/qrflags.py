"""The original script protocol's review-loop flags (PROTOCOL.md section 7): in stateless mode a
command into a step of a review loop carries the loop's pass as `--qr-iteration N` (and
`--qr-fail` on a fix pass of the work step) instead of a `--loop` counter, and they are read back
into that counter."""

from collections.abc import Mapping

from ..base.errors import UsageError
from ..graph.model import StepDef


def iteration_flags(step: StepDef, counts: Mapping[str, int]) -> tuple[list[str], dict[str, int]]:
    """A stateless command into a step of a review loop carries the loop's pass as the original
    protocol did: `--qr-iteration N`, and `--qr-fail` on a fix pass of the work step. Returns
    those flags and the counters still to carry as --loop."""
    role = step.qr
    assert role is not None
    rest = dict(counts)
    iteration = 1 + rest.pop(role.counter, 0) + sum(rest.get(c, 0) for c in role.extra)
    fix = ["--qr-fail"] if role.role == "work" and iteration > 1 else []
    return [f"--qr-iteration={iteration}", *fix], rest


def counts_from_flags(step: StepDef, counts: Mapping[str, int], iteration: int | None,
                      fix: bool) -> dict[str, int]:
    """The loop counters a stateless invocation's --qr-iteration and --qr-fail stand for."""
    where = f"step '{step.id}'"
    role = step.qr
    if role is None:
        raise UsageError("--qr-iteration and --qr-fail belong to the steps of a review loop",
                         where, "Run the printed command unchanged")
    if iteration is None:
        raise UsageError("--qr-fail needs --qr-iteration", where,
                         "Run the printed command unchanged")
    if role.counter in counts:
        raise UsageError(f"--qr-iteration and --loop {role.counter} both give the loop's pass",
                         where, "Give one of them")
    fails = iteration - 1 - sum(counts.get(c, 0) for c in role.extra)
    if fails < 0:
        raise UsageError(f"--qr-iteration {iteration} is below the passes the run has made",
                         where, "Run the printed command unchanged")
    if fix and (role.role != "work" or iteration < 2):
        raise UsageError("--qr-fail marks a fix pass: the work step of a review loop, with "
                         "--qr-iteration 2 or more", where, "Run the printed command unchanged")
    return {**counts, role.counter: fails} if fails else dict(counts)
