"""`Workflow`, a named graph of steps: its fields, and the views of its edges and loop
counters that validation, rendering and the runner share."""

from collections.abc import Callable, Mapping
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..base.errors import UsageError, did_you_mean
from .fields import built, signed
from .step import StepDef
from .types import Edge, Param, Rework

if TYPE_CHECKING:
    from .context import StepContext


class _WorkflowFields(NamedTuple):
    name: str
    steps: tuple[StepDef, ...]
    description: str = ""
    skill: str = ""
    entry: str = ""
    params: tuple[Param, ...] = ()
    source: str = ""
    legacy: bool = False
    generated: bool = False
    approved_commands: "tuple[str, ...] | Callable[[StepContext], tuple[str, ...]]" = ()
    result: "Callable[[StepContext], str] | None" = None
    timeout: float | None = None


class Workflow(_WorkflowFields):
    """A named graph of steps, which a skill script registers (`register_workflow`) and runs
    (`main`). The steps may follow the name as positional arguments, the form the original
    system documented: `Workflow("my-skill", StepDef(...), StepDef(...), description=...)`.

    Attributes:
        name: The workflow's name, in lowercase-kebab, unique among the registered ones.
        steps: The steps, in the order `--step N` numbers them.
        description: One sentence on what the workflow is for, shown on the first step the
            agent sees, in `--help` and in the generated SKILL.md section.
        skill: The skill (SKILL.md `name`) the workflow belongs to; empty: its `name`. A skill
            may own several workflows (a planner and an executor, a sub-agent's script).
        entry: The step a run starts at; empty: the first step.
        params: The workflow's flags (`Param`), given on the entry step's command.
        source: The script that defines the workflow; `register_workflow` fills it in.
        legacy: Set when the workflow was adapted from a script written against the original
            API; leave it False.
        generated: Built at run time from data (a skill-runner plan): its steps differ per
            run, so the generated SKILL.md and README sections do not list it as the skill's
            way in.
        approved_commands: Commands the user approved, word for word, for this workflow's
            `verify` checks beyond the gateway's policy; they still run through the gateway.
            Or a function of the `StepContext` that returns them, when the approval is the
            run's (read from its plan and ledger).
        result: How a completed run ended, from the step it ends at: a function of the
            `StepContext` that returns `"success"` or `"partial"`, which the ledger records;
            None: always `"success"`.
        timeout: Seconds each `verify` check may take at most, under the gateway's own limit;
            None: that limit.
    """

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


signed(Workflow, _WorkflowFields)
