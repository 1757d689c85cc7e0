"""The graph API: StepDef, Workflow and StepContext. Registering a workflow (registry.py) validates
it."""


import os
import sys
from collections.abc import Callable, Mapping
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple

from ..base.errors import FieldError, UsageError, did_you_mean, raise_at_author
from .context import StepContext as StepContext  # its documented home is here
from .forms import Fragment, handed_over, with_fragments
from .types import (
    VERIFY_OUTPUT,
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Edge,
    Handler,
    Param,
    QRRole,
    Resource,
    Rework,
    Target,
    Text,
    built,
)

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
    expect: str = ""  # the shape of what the step must produce, shown as <expected_output>
    # A check run through the gateway (gateway.py) whose exit status decides the outcome:
    # 0 -> 'ok', else 'fail'; its output tail is remembered as VERIFY_OUTPUT for the fix step.
    verify: Text = ""
    # The tools the agent may use during this step (Claude Code permission-rule syntax, e.g.
    # "Read", "Bash(git:*)"); None: the skill's `allowed-tools`, or unrestricted. Enforced by
    # the PreToolUse hook where hooks are installed (hooks/).
    tools: tuple[str, ...] | None = None
    # For simulation only: make the world (files the handler reads) yield the given outcome.
    prepare: Callable[["StepContext", str], None] | None = None


class StepDef(_StepFields):
    """One step. `next` maps each outcome to a step id, a `Rework` edge, or None (the run ends).

    Who decides the outcome: the script when `handler` is set, the user when `ask_user` is set,
    otherwise the agent, choosing by `when` (one condition per outcome when there are several).
    A handler returns the outcome, or `(outcome, state)`: the state is kept in the run and seen
    by the handler's next call as `ctx.step_state`. A `Dispatch` as the handler (the original
    system's form) hands the step's actions to that sub-agent, whose verdict picks the outcome.

    `actions` are instructions (strings or `Action`s) and may hold the pieces the format_*
    functions make (a forbidden list, an expected output, a dispatch, a banner): each becomes
    the step's own part.

    `reads` are memory keys the step shows and that every path to it must have written (W011);
    `optional_reads` are shown when present, e.g. what the previous pass of a loop reported.
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


class _WorkflowFields(NamedTuple):
    name: str
    steps: tuple[StepDef, ...]
    description: str = ""
    skill: str = ""
    entry: str = ""
    params: tuple[Param, ...] = ()
    source: str = ""
    legacy: bool = False  # adapted from a script written against the original API (legacy/)
    # Built at run time from data (a skill-runner plan): its steps differ per run, so the
    # generated SKILL.md and README sections do not list them as the skill's way in.
    generated: bool = False
    # Commands the user approved, word for word, for this workflow's `verify` checks beyond the
    # gateway's policy (a plan's test runner); they still run through the gateway. A function
    # of the invocation when the approval is the run's (read from its plan and ledger).
    approved_commands: "tuple[str, ...] | Callable[[StepContext], tuple[str, ...]]" = ()
    # How a completed run ended, from the step it ends at: 'success' (None: always) or
    # 'partial', which the ledger records (a plan that ran out of budget with steps unmet).
    result: "Callable[[StepContext], str] | None" = None
    # Seconds each `verify` check may take at most, under the gateway's own limit (None: that).
    timeout: float | None = None


class Workflow(_WorkflowFields):
    """A named graph of steps. The entry is the first step unless `entry` names another; the
    skill is the workflow's name unless `skill` names another. The steps may follow the name
    as positional arguments, the form the original system documented:
    `Workflow("my-skill", StepDef(...), StepDef(...), description=...)`."""

    # No `__slots__ = ()` here, unlike the other graph types: the instance dict holds what is
    # derived from the steps once (`by_id`). The fields stay read-only, and __setattr__ refuses
    # any other attribute, so the cache cannot go stale: `_replace` makes a new Workflow.

    def __new__(cls, *args: Any, **kwargs: Any) -> "Workflow":
        if len(args) > 1 and all(isinstance(a, StepDef) for a in args[1:]):
            if "steps" in kwargs:
                raise TypeError("Workflow: give the steps either after the name or as "
                                "steps=[...], not both")
            args = (args[0], args[1:])
        elif len(args) == 1 and "steps" not in kwargs:
            args = (args[0], ())  # no step yet: registration says so (W002), not a TypeError
        raw: Workflow = built(_WorkflowFields, cls, args, kwargs)
        steps = tuple(raw.steps)
        return raw._replace(steps=steps, params=tuple(raw.params), skill=raw.skill or raw.name,
                            entry=raw.entry or (steps[0].id if steps else ""))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Workflow is immutable; _replace({name}=...) makes a new one")

    @cached_property
    def by_id(self) -> Mapping[str, StepDef]:
        """Each step by id (of a duplicated id, the last; W001 reports it). Built on first use
        and read-only: validation looks steps up once per edge."""
        return MappingProxyType({s.id: s for s in self.steps})

    @property
    def edges(self) -> tuple[Edge, ...]:
        """Every transition, rework edges included (exhaustion edges are listed separately)."""
        found: list[Edge] = []
        for step in self.steps:
            for outcome, target in step.next.items():
                if isinstance(target, Rework):
                    found.append(Edge(step.id, outcome, target.target, target))
                else:
                    found.append(Edge(step.id, outcome, target))
        return tuple(found)

    @property
    def rework_edges(self) -> tuple[Edge, ...]:
        """Every counted rework edge, in step order."""
        return tuple(Edge(s.id, outcome, target.target, target) for s in self.steps
                     for outcome, target in s.next.items() if isinstance(target, Rework))

    @property
    def reworks(self) -> dict[str, Edge]:
        """The loop counters, each by its key (Edge.key: `step:outcome`, or the name a shared
        counter's edges share) with its first edge."""
        found: dict[str, Edge] = {}
        for edge in self.rework_edges:
            found.setdefault(edge.key, edge)
        return found

    def position(self, step_id: str) -> int:
        """1-based position in definition order."""
        return [s.id for s in self.steps].index(step_id) + 1

    def step(self, ref: str) -> StepDef:
        """The step named by id or by 1-based number; UsageError with did-you-mean otherwise."""
        by_id = self.by_id
        if ref in by_id:
            return by_id[ref]
        if ref.isascii() and ref.isdigit() and 1 <= int(ref) <= len(self.steps):
            return self.steps[int(ref) - 1]
        raise UsageError(
            f"unknown step '{ref}'", f"workflow '{self.name}'",
            f"Use a step id or a number from 1 to {len(self.steps)}; `--help` lists them."
            + did_you_mean(ref, by_id))


def skill_folder(script: str) -> str:
    """The skill folder of a step script: the parent of the scripts/ folder holding it, however
    deep (sub-agent scripts live in scripts/qr/ and the like)."""
    here = os.path.dirname(os.path.abspath(script))
    probe = here
    while os.path.basename(probe) != "scripts":
        parent = os.path.dirname(probe)
        if parent == probe:  # not under a scripts/ folder: its parent, as before
            return os.path.dirname(here)
        probe = parent
    return os.path.dirname(probe)


def skill_dir(workflow: Workflow) -> str:
    """The skill folder of a workflow: the parent of the scripts/ folder holding its script."""
    return skill_folder(os.path.realpath(workflow.source or sys.argv[0]))


def render_text(text: Text, ctx: StepContext) -> str:
    """Resolve a static or invocation-dependent text."""
    return text(ctx) if callable(text) else text
