"""`StepDef`, one step of a workflow: its fields, and what is derived from them (who decides
it, the memory keys it writes)."""

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..base.errors import FieldError, raise_at_author
from .fields import built, signed
from .forms import Fragment, handed_over, with_fragments
from .types import (
    VERIFY_OUTPUT,
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Handler,
    QRRole,
    Resource,
    Target,
    Text,
)

if TYPE_CHECKING:
    from .context import StepContext

_EMPTY: Mapping[str, Any] = MappingProxyType({})

# The graph types are NamedTuples rather than frozen dataclasses: as immutable, and defining
# dataclasses (and importing `dataclasses`) costs ~7 ms that every `--step` invocation would pay.
# Each public class normalises what authors pass (lists, dicts) in __new__.


class _StepFields(NamedTuple):
    id: str
    title: str
    actions: tuple[Action | str, ...] = ()
    next: Mapping[str, Target] = _EMPTY
    when: Mapping[str, str] = _EMPTY
    handler: Handler | None = None
    args: tuple[Arg, ...] = ()
    reads: tuple[str, ...] = ()
    optional_reads: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    resources: tuple[Resource, ...] = ()
    conventions: tuple[ConventionRef, ...] = ()
    ask_user: AskUser | None = None
    dispatch: Dispatch | None = None
    qr: QRRole | None = None
    complete: str = "The workflow is finished. Give the user the result of your last step."
    expect: str = ""
    verify: Text = ""
    tools: tuple[str, ...] | None = None
    prepare: Callable[["StepContext", str], None] | None = None


class StepDef(_StepFields):
    """One step of a workflow: what the agent is told to do, the values it reports, and where
    each outcome leads. `StepDef("gather", "Gather evidence", actions=[...], next={"ok":
    "report"})`; lists and dicts given for its fields are kept as tuples and read-only maps.

    Who decides the outcome: the script when `handler` is set or `verify` names a check (the
    run passes through such a step without printing it, and the next printed step notes the
    decision), the user when `ask_user` is set, otherwise the agent, choosing by `when`.

    Attributes:
        id: The step's name, unique in its workflow, in lowercase-kebab (W015); `--step ID`
            names it, as does its 1-based position.
        title: A short title, shown at the head of the step and in the lists of steps.
        actions: The step's instructions, in order: strings, `Action`s, and the pieces the
            `format_*` functions make (a forbidden list, an expected output, a dispatch, a
            banner), each of which becomes the step's own part.
        next: Each outcome mapped to where it leads: a step id, a `Rework` edge (a counted
            loop), or None (the run ends). Every outcome of the step is a key here.
        when: For a step the agent decides with more than one outcome: each outcome mapped to
            the condition under which the agent picks it (W010).
        handler: Makes the script decide: a function of the `StepContext` that returns the
            outcome, or `(outcome, state)`, whose state (a dict of JSON values) the run keeps
            and the handler's next call reads as `ctx.step_state`. `@decides(...)` declares
            its outcomes. A `Dispatch` here (the original system's form) hands the actions to
            that sub-agent, whose verdict picks the outcome.
        args: The values the next command asks the agent to report (`Arg`); the keys they
            write are the step's `writes`.
        reads: Memory keys the step shows, in `<memory>`; every path to the step must have
            written them (W011).
        optional_reads: Memory keys shown when present, e.g. what the previous pass of a
            loop reported.
        forbidden: What the agent must not do in this step, one item each; nothing carries
            over from earlier steps.
        resources: Supporting files of the skill the step lists or inlines (`Resource`).
        conventions: Shared conventions the step lists or inlines (`ConventionRef`).
        ask_user: Makes the user decide the step (`AskUser(question, {outcome: label})`).
        dispatch: Hands the step's work to sub-agents (`Dispatch`).
        qr: The step's part in a review loop; `qr_loop` sets it: leave it None.
        complete: What the agent tells the user when an outcome of this step ends the run,
            shown as `<complete>`.
        expect: The shape of what the step must produce, shown as `<expected_output>`.
        verify: A check that decides the step: a command (e.g. `"python3
            ${SKILL_DIR}/scripts/check.py"`), or a function of the `StepContext` that returns
            one. The script runs it through the security gateway (docs/gateway.md: no shell,
            the project's allow-list, paths kept in the project, once the user has trusted
            the skill); exit status 0 is the outcome `"ok"`, anything else (a refusal and a
            timeout included) `"fail"`, so `next` maps those two. The tail of its output is
            kept in memory as `VERIFY_OUTPUT`, for a fix step to read. W018 refuses a command
            with shell syntax, or a step that also has a `handler`.
        tools: The tools the agent may use during this step, in Claude Code's permission-rule
            syntax (`"Read"`, `"Bash(git:*)"`); None: the skill's `allowed-tools`, or any.
            The PreToolUse hook enforces it where hooks are installed.
        prepare: For `skillrail simulate` only: `prepare(ctx, outcome)` sets up the world the
            handler reads (files, say) so that it decides `outcome`.
    """

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> "StepDef":
        raw: StepDef = built(_StepFields, cls, args, kwargs)
        _no_bare_strings(raw)
        # Authors write plain lists and dicts; freeze them so a registered graph cannot change.
        made = raw._replace(
            actions=tuple(raw.actions), args=tuple(raw.args), reads=tuple(raw.reads),
            optional_reads=tuple(raw.optional_reads), forbidden=tuple(raw.forbidden),
            resources=tuple(raw.resources), conventions=tuple(raw.conventions),
            next=_frozen(raw.next), when=_frozen(raw.when),
            tools=None if raw.tools is None else tuple(raw.tools))
        if any(isinstance(a, Fragment) for a in made.actions):
            made = with_fragments(made)
        return handed_over(made) if isinstance(made.handler, Dispatch) else made

    @property
    def decided_by(self) -> str:
        """'script', 'user' or 'agent': who picks the outcome. A `verify` check is the
        script's: its command's exit status decides (routing.decide)."""
        if self.handler is not None or self.verify:
            return "script"
        return "user" if self.ask_user is not None else "agent"

    @property
    def is_terminal(self) -> bool:
        """A step some outcome of which ends the run."""
        return any(t is None for t in self.next.values())

    @property
    def writes(self) -> tuple[str, ...]:
        """The memory keys this step's commands may write: its args, derived, never declared
        twice; and VERIFY_OUTPUT, which a `verify` step's check writes."""
        keys = [a.key for a in self.args] + ([VERIFY_OUTPUT] if self.verify else [])
        return tuple(dict.fromkeys(keys))

    def written_on(self, outcome: str) -> set[str]:
        """The keys a move by `outcome` certainly writes: its required args, and the check's
        output of a `verify` step."""
        keys = {a.key for a in self.args_for(outcome) if a.required}
        return keys | {VERIFY_OUTPUT} if self.verify else keys

    def args_for(self, outcome: str) -> tuple[Arg, ...]:
        """The args the command of `outcome` asks for."""
        return tuple(a for a in self.args if a.asked_on(outcome))


#: The StepDef fields that hold a list: a bare string there would become one item per character.
_LISTS = ("actions", "args", "reads", "optional_reads", "forbidden", "resources", "conventions",
          "tools")


def _no_bare_strings(step: "_StepFields") -> None:
    for name in (n for n in _LISTS if isinstance(getattr(step, n), str)):
        raise_at_author(FieldError, f"StepDef '{step.id}': {name} is a string, not a list (each "
                        "of its characters would be one item)", f"Write {name}=[...]")


def _frozen(mapping: Mapping[Any, Any]) -> Mapping[str, Any]:
    return MappingProxyType({str(k): v for k, v in mapping.items()})


signed(StepDef, _StepFields)
