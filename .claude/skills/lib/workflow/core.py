"""The graph API: StepDef, Workflow, StepContext, and the registry where registering validates."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType

from .errors import Finding, InvalidWorkflow, UsageError, did_you_mean
from .types import Action, Arg, AskUser, Edge, Handler, Param, Resource, Rework, Target, Text


@dataclass(frozen=True)
class StepDef:
    """One step. `next` maps each outcome to a step id, a `Rework` edge, or None (the run ends).

    Who decides the outcome: the script when `handler` is set, the user when `ask_user` is set,
    otherwise the agent, choosing by `when` (one condition per outcome when there are several).

    `reads` are memory keys the step shows and that every path to it must have written (W011);
    `optional_reads` are shown when present, e.g. what the previous pass of a loop reported.
    """

    id: str
    title: str
    actions: tuple[Action | str, ...] = ()
    next: Mapping[str, Target] = field(default_factory=dict)
    when: Mapping[str, str] = field(default_factory=dict)
    handler: Handler | None = None
    args: tuple[Arg, ...] = ()
    reads: tuple[str, ...] = ()
    optional_reads: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    resources: tuple[Resource, ...] = ()
    ask_user: AskUser | None = None
    complete: str = "The workflow is finished. Give the user the result of your last step."

    def __post_init__(self) -> None:
        # Authors write plain lists and dicts; freeze them so a registered graph cannot change.
        for name in ("actions", "args", "reads", "optional_reads", "forbidden", "resources"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in ("next", "when"):
            frozen = {str(k): v for k, v in getattr(self, name).items()}
            object.__setattr__(self, name, MappingProxyType(frozen))

    @property
    def decided_by(self) -> str:
        """'script', 'user' or 'agent': who picks the outcome."""
        if self.handler is not None:
            return "script"
        return "user" if self.ask_user is not None else "agent"

    @property
    def is_terminal(self) -> bool:
        """A step some outcome of which ends the run."""
        return any(t is None for t in self.next.values())

    @property
    def writes(self) -> tuple[str, ...]:
        """The memory keys this step's commands may write: its args, derived, never declared
        twice."""
        return tuple(dict.fromkeys(a.key for a in self.args))

    def args_for(self, outcome: str) -> tuple[Arg, ...]:
        """The args the command of `outcome` asks for."""
        return tuple(a for a in self.args if a.asked_on(outcome))


@dataclass(frozen=True)
class Workflow:
    """A named graph of steps. The entry is the first step unless `entry` names another."""

    name: str
    steps: tuple[StepDef, ...]
    description: str = ""
    skill: str = ""
    entry: str = ""
    params: tuple[Param, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "params", tuple(self.params))
        if not self.skill:
            object.__setattr__(self, "skill", self.name)
        if not self.entry and self.steps:
            object.__setattr__(self, "entry", self.steps[0].id)

    @cached_property
    def by_id(self) -> dict[str, StepDef]:
        return {s.id: s for s in self.steps}

    @cached_property
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

    @cached_property
    def reworks(self) -> dict[str, Edge]:
        """The counted rework edges, by counter key `step:outcome`."""
        return {e.key: e for e in self.edges if e.rework is not None}

    def position(self, step_id: str) -> int:
        """1-based position in definition order."""
        return [s.id for s in self.steps].index(step_id) + 1

    def step(self, ref: str) -> StepDef:
        """The step named by id or by 1-based number; UsageError with did-you-mean otherwise."""
        if ref in self.by_id:
            return self.by_id[ref]
        if ref.isascii() and ref.isdigit() and 1 <= int(ref) <= len(self.steps):
            return self.steps[int(ref) - 1]
        raise UsageError(
            f"unknown step '{ref}'", f"workflow '{self.name}'",
            f"Use a step id or a number from 1 to {len(self.steps)}; `--help` lists them."
            + did_you_mean(ref, self.by_id))


@dataclass(frozen=True)
class StepContext:
    """What a handler or a dynamic text sees of the current invocation."""

    workflow: Workflow
    step: StepDef
    params: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, str] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)
    arrived_by: str | None = None
    run: str | None = None

    def passes(self, edge_key: str) -> int:
        """How many times the rework edge `step:outcome` has been taken in this run."""
        return self.counts.get(edge_key, 0)


def render_text(text: Text, ctx: StepContext) -> str:
    """Resolve a static or invocation-dependent text."""
    return text(ctx) if callable(text) else text


_REGISTRY: dict[str, Workflow] = {}


def register_workflow(workflow: Workflow) -> Workflow:
    """Validate `workflow` and add it to the registry. Registration is validation: a workflow
    with any finding raises one InvalidWorkflow listing them all, and is not registered.

    Registering a name again from the same source file (a re-import) replaces it; from another
    file it is refused.
    """
    from .validate import validate_workflow

    if not workflow.source:  # remember the defining script: rendering and W016 need its folder
        caller = sys._getframe(1).f_globals.get("__file__")
        if caller:
            workflow = replace(workflow, source=os.path.realpath(caller))
    findings = validate_workflow(workflow)
    known = _REGISTRY.get(workflow.name)
    if known is not None and known.source != workflow.source:
        findings.insert(0, Finding(
            "W001", workflow.name, f"duplicate workflow name, already registered from "
            f"{known.source or 'another module'}", fix="Give one of the workflows another name"))
    if findings:
        raise InvalidWorkflow(workflow.name, findings)
    _REGISTRY[workflow.name] = workflow
    return workflow


def registered() -> dict[str, Workflow]:
    """A copy of the registry: workflow name -> Workflow."""
    return dict(_REGISTRY)


def unregister(name: str) -> None:
    """Drop a workflow from the registry (discovery reloads; tests build throwaway graphs)."""
    _REGISTRY.pop(name, None)
