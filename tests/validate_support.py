"""Helpers of the validation and registry tests (the `register` fixture is conftest.py's)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from skills.lib.workflow import (
    AskUser,
    Finding,
    InvalidWorkflow,
    StepContext,
    StepDef,
    Workflow,
    decides,
    registered,
)

Register = Callable[[Workflow], Workflow]


def end(step_id: str = "end") -> StepDef:
    return StepDef(step_id, "End", next={"ok": None})


def refused(register: Register, wf: Workflow, pattern: str) -> list[Finding]:
    """The findings of registering `wf`, which must be refused with a message matching
    `pattern`; the workflow must not be registered."""
    with pytest.raises(InvalidWorkflow, match=pattern) as caught:
        register(wf)
    assert wf.name not in registered()
    return caught.value.findings


def where(findings: list[Finding], code: str) -> set[tuple[str | None, str | None]]:
    """The (step, outcome) of every finding with `code`."""
    return {(f.step, f.outcome) for f in findings if f.code == code}


def ask(outcomes: dict[str, str]) -> AskUser:
    return AskUser("Go on?", outcomes)


@decides("ok")
def always_ok(ctx: StepContext) -> str:
    return "ok"
