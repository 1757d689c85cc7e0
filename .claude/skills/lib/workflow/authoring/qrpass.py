"""Where a review loop stands (qr.py): which pass this is, and which severities of the
reviewer's findings block the gate on it. Shared by the loop's steps and by the report gate
(qrreport.py), so neither needs the other."""

from __future__ import annotations

from ..graph.model import StepContext


def review_pass(ctx: StepContext) -> int:
    """The 1-based review pass the run is in: failed gates plus extra rounds granted, plus one."""
    role = ctx.step.qr
    assert role is not None
    return 1 + ctx.passes(role.counter) + sum(ctx.passes(c) for c in role.extra)


def blocking(ctx: StepContext) -> tuple[str, ...]:
    """The severities that fail the gate this pass (conventions/severity.md): MUST and SHOULD on
    the first two passes, MUST alone from the third, or when the user asked for blocking
    issues only."""
    role = ctx.step.qr
    assert role is not None
    if review_pass(ctx) >= 3 or ctx.passes(role.extra[1]) > 0:
        return ("MUST",)
    return ("MUST", "SHOULD")
