"""The small value types a workflow graph is made of. All immutable: a graph is data.

NamedTuples rather than frozen dataclasses: equally immutable, and several times cheaper to
define, which every `--step` invocation pays at import."""


from collections.abc import Callable, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ..base.errors import check_fields

if TYPE_CHECKING:
    from .model import StepContext


class Outcome(StrEnum):
    """The standard outcome labels (PROTOCOL.md section 3). Workflows may use their own strings."""

    OK = "ok"
    FAIL = "fail"
    ITERATE = "iterate"
    SKIP = "skip"
    APPROVE = "approve"
    REJECT = "reject"
    ESCALATE = "escalate"


#: Text that may depend on the invocation (params, reported values, loop position).
Text = str | Callable[["StepContext"], str]
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


_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def decides(*outcomes: str) -> Callable[[_Fn], _Fn]:
    """Declare which outcomes a handler may return (checked against `next` by W009)."""

    def mark(fn: _Fn) -> _Fn:
        fn.outcomes = frozenset(str(o) for o in outcomes)  # type: ignore[attr-defined]
        return fn

    return mark


def handler_outcomes(fn: Handler) -> frozenset[str] | None:
    """The outcomes a handler declared with `@decides`, or None when it declared none."""
    return getattr(fn, "outcomes", None)


class Action(NamedTuple):
    """One instruction. `out` names where its result must land: an arg KEY or "reply"."""

    text: Text
    out: str | None = None


class Arg(NamedTuple):
    """A value the agent reports with `--set KEY=VALUE` when it runs the next command.

    `describe` may be left empty when an action of the step with `out=KEY` says what the value
    holds: the step then says it once, in that action (PROTOCOL.md, `<arg>`).
    `outcomes` limits the arg to the commands of those outcomes (empty: every command).
    `check(value, params)` returns what is wrong with a given value (and how to fix it), or
    None: a value it refuses is refused with the command, and the run does not move.
    `distinct`: a value the run already recorded for this key is refused the same way (a
    retry must name an approach not yet tried); a run in the ledger checks it, a stateless
    invocation, which has no history, cannot.
    """

    key: str
    describe: str = ""
    required: bool = True
    choices: tuple[str, ...] = ()
    outcomes: tuple[str, ...] = ()
    check: Callable[[str, Mapping[str, str]], str | None] | None = None
    # For simulation: a value `check` accepts, made in the walk's folder (e.g. a sample file
    # written there, and its path returned).
    sample: Callable[["StepContext"], str] | None = None
    distinct: bool = False

    def asked_on(self, outcome: str) -> bool:
        return not self.outcomes or outcome in self.outcomes


class Param(NamedTuple):
    """A workflow-level flag such as `--decision TEXT`, given on the entry step and kept."""

    name: str
    help: str
    required: bool = False
    default: str | None = None
    choices: tuple[str, ...] = ()  # when given, the only values accepted
    # What is wrong with a given value (and how to fix it), or None; checked before a run
    # starts, so a bad value never leaves a run behind.
    check: Callable[[str], str | None] | None = None
    sample: str | None = None  # the value `skillrail simulate` gives it (else one it makes up)
    # Further values simulate gives it, walk by walk after `sample` (a value per branch it
    # leads to: skill-runner's example skills, one per execution mode).
    samples: tuple[str, ...] = ()


class Rework(NamedTuple):
    """A counted edge back into a loop. `max_iterations` bounds the passes through the loop
    (the first pass included); once used up, the outcome leads to `on_exhausted` instead.

    `counter` names a count that several rework edges share: their passes add up against one
    cap, a budget of the whole run (skill-runner's attempts), and such an edge may lead forward
    as well as back. Empty: the edge counts alone, as `step:outcome`."""

    target: str
    max_iterations: int
    on_exhausted: str
    counter: str = ""


class AskUser(NamedTuple):
    """The step puts a question to the user; each option's outcome routes the run."""

    question: Text
    options: Mapping[str, str]


class Resource(NamedTuple):
    """A supporting file of the skill, listed (or inlined) in `<DO>`. `path` is relative to the
    skill folder."""

    name: str
    path: str
    when: str
    inline: bool = False


class ConventionRef(NamedTuple):
    """A shared convention (`conventions/<name>.md`) a step lists, or inlines when it needs the
    text verbatim. `when` says when to read a listed one."""

    name: str
    when: str = ""
    inline: bool = False


class Dispatch(NamedTuple):
    """Hand work to a sub-agent (PROTOCOL.md section 4). `prompt` is the verbatim brief; with
    `script` (relative to the skill folder) the sub-agent follows that step script, started as
    a sub-run of this run; without, the prompt is the whole brief. `items`, given, yields one
    parallel sub-agent per item; else `instances` identical ones. `vars` are named values the prompt
    lists; `expect` is the reply the orchestrator must relay. `params` are flags the sub-agent's
    script takes on its first command (`--name=value`). `agent` and `model` may be texts
    computed at run time (skill-runner forks a plan to the agent its skill names).

    As a step's `handler` (the original system's form), the step's actions become the brief and
    the sub-agent's verdict picks the outcome (see StepDef)."""

    agent: Text
    prompt: Text = ""
    expect: str = ""
    script: str | None = None
    items: Callable[["StepContext"], list[str]] | None = None
    instances: int = 1
    vars: Mapping[str, Text] = MappingProxyType({})
    model: Text | None = None
    context: str = "fresh"
    required: bool = True
    params: Mapping[str, Text] = MappingProxyType({})


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


def built(fields: Any, cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`fields.__new__(cls, *args, **kwargs)` for a graph type built on the NamedTuple `fields`;
    a call that does not fit its fields (a typo such as `nxt=`, a field left out) is a
    FieldError naming the type, the field and the author's line, not a TypeError about
    `__new__()`."""
    try:
        return fields.__new__(cls, *args, **kwargs)
    except TypeError:
        check_fields(cls.__name__, fields._fields, fields._field_defaults, args, kwargs)
        raise


def _checked(cls: type) -> None:
    """Make calls of the NamedTuple `cls` that do not fit its fields FieldErrors (as `built`).
    Set on the class after it is made, because a NamedTuple's body may not define __new__, and
    so that type checkers still see the fields."""
    new = cls.__new__

    def __new__(klass: type, *args: Any, **kwargs: Any) -> Any:
        try:
            return new(klass, *args, **kwargs)
        except TypeError:
            check_fields(cls.__name__, cls._fields, cls._field_defaults,  # type: ignore[attr-defined]
                         args, kwargs)
            raise

    setattr(cls, "__new__", __new__)  # noqa: B010 - an assignment type checkers refuse


for _author_type in (Action, Arg, Param, Rework, AskUser, Resource, ConventionRef, Dispatch):
    _checked(_author_type)
