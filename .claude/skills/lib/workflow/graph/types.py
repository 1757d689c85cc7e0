"""The small value types a workflow graph is made of (the parts of a step are in parts.py). All
immutable: a graph is data.

NamedTuples rather than frozen dataclasses: equally immutable, and several times cheaper to
define, which every `--step` invocation pays at import."""


from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .fields import checked
from .parts import Action as Action
from .parts import Arg as Arg
from .parts import AskUser as AskUser
from .parts import ConventionRef as ConventionRef
from .parts import Dispatch as Dispatch
from .parts import Param as Param
from .parts import Resource as Resource
from .parts import Text as Text

if TYPE_CHECKING:
    from .context import StepContext


class Outcome(StrEnum):
    """The standard outcome labels (PROTOCOL.md section 3): the keys of a step's `next` and
    `when`. Each is a string (`Outcome.OK == "ok"`), so a workflow may use labels of its own
    beside them (`"design"`, `"retry"`), in lowercase-kebab.

    Attributes:
        OK: The step did what it set out to do; the usual way on. A `verify` check whose
            command exits 0 decides it.
        FAIL: It did not (a check or a test failed); a `verify` check whose command exits with
            any other status decides it.
        ITERATE: Go round a loop once more, usually by a `Rework` edge.
        SKIP: The step's work does not apply this time; go past it.
        APPROVE: A reviewer or the user accepts the work.
        REJECT: A reviewer or the user sends it back.
        ESCALATE: Hand the decision to the user.
    """

    OK = "ok"
    FAIL = "fail"
    ITERATE = "iterate"
    SKIP = "skip"
    APPROVE = "approve"
    REJECT = "reject"
    ESCALATE = "escalate"


#: The memory key of a `verify` step's check output (written by the script, read by fix steps).
VERIFY_OUTPUT = "VERIFY_OUTPUT"
#: The outcomes a `verify` check decides: its command's exit status 0 is 'ok', else 'fail'.
VERIFY_OUTCOMES = frozenset({"ok", "fail"})

#: A script-decided step's handler: computes the outcome from the invocation, or the outcome and
#: the step's state (a dict of JSON values, kept in the run and seen next time as
#: `ctx.step_state`). Declaring the outcomes it may return with `@decides(...)` lets validation
#: compare them with `next` (W009); undeclared, it may return any outcome `next` maps.
Handler = Callable[["StepContext"], "str | tuple[str, Mapping[str, Any]]"]
#: Memory keys under which the runner keeps each step's state: `step_state:<step id>`. No arg can
#: name one (a key is a word), so the agent cannot forge a handler's state.
STEP_STATE = "step_state:"
#: Memory keys the runner writes when an orchestrator does a sub-agent's work itself (`--self`,
#: for want of a sub-agent tool): `run_by` = "self" in the sub-run, and `self_done` in the
#: parent run, one line per such sub-run, which the parent's final step reports to the user.
RUN_BY, SELF_DONE = "run_by", "self_done"


#: The function `@decides` marks, returned unchanged.
HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


def decides(*outcomes: str) -> Callable[[HandlerT], HandlerT]:
    """Declare the outcomes a handler may return: `@decides("ok", "iterate")` above
    `def assess(ctx): ...`. Registration then compares them with the step's `next` (W009): an
    outcome the handler may return that `next` does not map, or one `next` maps that it never
    returns, is a finding. An undeclared handler may return any outcome `next` maps; another is
    an error naming the step when the step runs."""

    def mark(fn: HandlerT) -> HandlerT:
        # A function takes attributes; its type does not declare this one.
        fn.outcomes = frozenset(str(o) for o in outcomes)  # type: ignore[attr-defined]  # above
        return fn

    return mark


def handler_outcomes(fn: Handler) -> frozenset[str] | None:
    """The outcomes a handler declared with `@decides`, or None when it declared none."""
    return getattr(fn, "outcomes", None)


class Rework(NamedTuple):
    """A counted edge back into a loop, as the target of an outcome in `next`:
    `next={"iterate": Rework("draft", 3, "ask-user")}`. Taking it is one more pass through
    the loop; once the passes are used up, the same outcome leads to `on_exhausted` instead.
    Each step of the loop shows the pass it is in and what happens at the limit.

    Attributes:
        target: The step the edge leads back to.
        max_iterations: The passes through the loop at most, the first pass included; at
            least 2 (W008), since a cap of 1 leaves nothing to redo.
        on_exhausted: The step the outcome leads to once the passes are used up: outside the
            loop, and one that asks the user or leads to the end without entering the loop
            again (W008).
        counter: The name of a count several rework edges share (lowercase-kebab): their
            passes add up against one cap, a budget of the whole run, and such an edge may
            lead forward as well as back. Empty: the edge counts alone, as `step:outcome`.
    """

    target: str
    max_iterations: int
    on_exhausted: str
    counter: str = ""


class QRRole(NamedTuple):
    """A step's part in a quality-review loop built by `qr_loop`: 'work', 'review', 'gate' or
    'escalate' of the loop named `checkpoint`, whose failed gates the edge `counter` counts."""

    checkpoint: str
    role: str
    counter: str
    limit: int
    extra: tuple[str, ...] = ()  # counters of the extra rounds the user may grant


#: A transition target: a step id, a counted rework edge, or None (the run ends).
Target = str | Rework | None


def target_id(target: Target) -> str | None:
    """The step a target names, or None for a terminal."""
    return target.target if isinstance(target, Rework) else target


class Edge(NamedTuple):
    """One transition of the graph, as validation and rendering see it."""

    source: str
    outcome: str
    target: str | None
    rework: Rework | None = None

    @property
    def key(self) -> str:
        """How a loop counter names this edge: `step:outcome`, or the counter it shares."""
        if self.rework is not None and self.rework.counter:
            return self.rework.counter
        return f"{self.source}:{self.outcome}"


checked(Rework)
