"""The value types of the original skills API, kept so scripts written against it keep working,
and exported at their documented path `skills.lib.workflow.types`. Each is plain data; `adapt`
turns a STEPS dict of them into a validated Workflow. (Fragment, what the format_* functions
return, lives in graph/model.py: a StepDef's actions may hold one too.)"""


from enum import StrEnum
from typing import NamedTuple

from ..graph.model import Fragment

__all__ = ["AgentRole", "BranchRouting", "Fragment", "GateConfig", "LinearRouting", "QRState",
           "Routing", "Step", "TerminalRouting"]


class LinearRouting(NamedTuple):
    """Go on to the next step number."""


class BranchRouting(NamedTuple):
    """The agent judges the step: `if_pass` when its work succeeded, `if_fail` when not."""

    if_pass: int
    if_fail: int


class TerminalRouting(NamedTuple):
    """The run ends after this step."""


Routing = LinearRouting | BranchRouting | TerminalRouting


class QRState(NamedTuple):
    """Where a review loop stands: its 1-based `iteration`, whether the last review failed,
    and the reported `status` ('pass', 'fail' or None when not reported yet)."""

    iteration: int = 1
    failed: bool = False
    status: str | None = None


class GateConfig(NamedTuple):
    """Makes a step the script-decided gate of a review loop named `qr_name`. The step before
    the gate is the review; `work_step` (which must lead straight to the review) is redone on a
    failed review. A pass goes to `pass_step`, or ends the run with `pass_message` when None.

    A failed review goes back to the work step in fix mode, within the loop's passes.
    `self_fix`: the agent makes the fixes itself; when False, it hands them to a `fix_target`
    sub-agent (default 'developer')."""

    qr_name: str
    work_step: int
    pass_step: int | None
    pass_message: str = "The review passed."
    self_fix: bool = True
    fix_target: str | None = None


class AgentRole(StrEnum):
    """The sub-agent types the original skills dispatched to (`.claude/agents/<name>.md`)."""

    QUALITY_REVIEWER = "quality-reviewer"
    DEVELOPER = "developer"
    TECHNICAL_WRITER = "technical-writer"
    ARCHITECT = "architect"
    EXPLORE = "explore"
    GENERAL_PURPOSE = "general-purpose"


class Step(NamedTuple):
    """One numbered step: a title, its actions (plain instructions, or pieces made by the
    format_* functions), how it routes, and optionally the review gate it is."""

    title: str
    actions: tuple[str, ...] | list[str] = ()
    routing: Routing = LinearRouting()
    gate: GateConfig | None = None
