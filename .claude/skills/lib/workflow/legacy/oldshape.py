"""The commands of the original script protocol, for scripts that print the format_* documents
themselves: such a script parses its own argv (`--step N --total-steps T`, and in a review loop
`--qr-iteration N`, `--qr-fail`, `--qr-status pass|fail`), so the commands its steps print must be
in that shape, not the runner's (`--step ID --from ...`, `--loop`, `--run`).

A step of the adapted workflow that has no number in the original (a review loop's escalation,
or its finish when the gate's pass_step is None) ends the printed document instead: the
original's script had no step to go to there.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from ..graph.model import Rework, StepContext
from ..protocol.view import ActionView, InvokeView, StepView
from ..step.routing import interpreter, leg


def old_command(script: str, number: int, total: int, flags: Sequence[str] = ()) -> str:
    """`python3 SCRIPT --step N --total-steps T [flags]`, shell-quoted."""
    return shlex.join([interpreter(), script, "--step", str(number), "--total-steps", str(total),
                       *flags])


def in_old_shape(view: StepView, ctx: StepContext, decided: str | None,
                 numbers: Mapping[str, int], total: int, carry: Sequence[str] = ()) -> StepView:
    """`view` with each command in the original shape; `carry` are flags every plain move keeps
    (the review loop's `--qr-iteration`). A move to a step without a number ends the document."""
    outcomes = [decided] if decided is not None else list(ctx.step.next)
    legs = [went for went in (leg(ctx.step, o, dict(ctx.counts)) for o in outcomes)
            if went.target is not None]
    invokes: list[InvokeView] = []
    ends: list[str] = []
    for invoke, went in zip(view.invokes, legs, strict=True):
        assert went.target is not None
        if went.target not in numbers:
            ends.append(_ending(ctx, went.target))
            continue
        flags = _fix_pass(ctx, went.outcome, went.counts) if went.exhausted is None else None
        invokes.append(invoke._replace(cmd=old_command(
            ctx.workflow.source, numbers[went.target], total, carry if flags is None else flags)))
    if invokes:
        return view._replace(invokes=tuple(invokes))
    return view._replace(invokes=(), complete=" ".join(ends) or view.complete)


def invoked_iteration(argv: Sequence[str]) -> int | None:
    """The `--qr-iteration` this script was invoked with (either spelling), if a number."""
    for n, item in enumerate(argv):
        value = item.partition("=")[2] if item.startswith("--qr-iteration=") else (
            argv[n + 1] if item == "--qr-iteration" and n + 1 < len(argv) else None)
        if value is not None:
            return int(value) if value.isascii() and value.isdigit() else None
    return None


def _fix_pass(ctx: StepContext, outcome: str, counts: Mapping[str, int]) -> list[str] | None:
    """The flags of a review loop's way back to its work step: its next pass, in fix mode."""
    if not isinstance(ctx.step.next[outcome], Rework):
        return None
    return [f"--qr-iteration={counts[f'{ctx.step.id}:{outcome}'] + 1}", "--qr-fail"]


def _ending(ctx: StepContext, target: str) -> str:
    step = ctx.workflow.by_id[target]
    if step.qr is not None and step.qr.role == "escalate":
        return (f"The review loop '{step.qr.checkpoint}' failed on all {step.qr.limit} passes. "
                "Stop here: show the user the open findings and ask how to go on.")
    return step.complete


def verdict_missing(view: StepView, script: str, number: int, total: int,
                    iteration: int) -> StepView:
    """The gate's document when the review's verdict was not given: one command per verdict."""
    def with_verdict(verdict: str, when: str) -> InvokeView:
        flags = [f"--qr-iteration={iteration}", "--qr-status", verdict]
        return InvokeView(old_command(script, number, total, flags), outcome=verdict, when=when)

    return view._replace(
        do=(ActionView("This gate goes on from the review's verdict, which the command that "
                       "led here did not carry. Run the command below for the verdict your "
                       "review reached."),), memory=(), complete=None,
        invokes=(with_verdict("pass", "the review found no blocking issue"),
                 with_verdict("fail", "the review found blocking issues")))
