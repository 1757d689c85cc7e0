"""A run's shape: what judging its ledger history, and holding the agent to each step's tools,
need of its workflow (Shape), which the hooks keep from the first time they see the run; and the
judging (forged). Apart from runs.py so that a hook loads neither the graph nor the step path."""

from __future__ import annotations

from collections.abc import Mapping

from ..ledger.workspace import folder_of

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import NamedTuple

    from ..graph.model import StepDef, Workflow
    from ..guard.askgate import Asked
    from ..guard.evidence import Evidence
    from ..ledger.store import Ledger, Run
else:
    from ..base.records import NamedTuple


class Shape(NamedTuple):
    """What judging a run's ledger history needs of its workflow: where it starts, which steps
    ask the user, and every move it allows (routing.edges); and what PreToolUse needs, each
    step's tools. The hooks keep it, as JSON, from the first time they see a run, so a script
    edited later cannot change the judgement."""

    entry: str
    asks: frozenset[str]
    edges: frozenset[tuple[str, str, str]]
    #: Each ask_user step's question as the gate needs it (askgate.Asked, as a pair).
    asked: Mapping[str, tuple[str, str | None]] = {}
    #: Each step's allowed-tool rules (its own, else SKILL.md's `allowed-tools`; None: any
    #: tool), which PreToolUse holds the agent to without loading the workflow. None for a
    #: shape kept before they were (the hook loads the workflow then).
    tools: Mapping[str, tuple[str, ...] | None] | None = None
    #: The steps that dispatch sub-agents (the sub-agent tool is theirs).
    dispatches: frozenset[str] = frozenset()

    @classmethod
    def of(cls, workflow: Workflow, allowed: tuple[str, ...] | None = None) -> Shape:
        """`allowed`: the skill's SKILL.md `allowed-tools`, for the steps naming no tools."""
        from .routing import edges  # the graph's moves: only where a workflow is at hand

        return cls(workflow.entry, frozenset(s.id for s in workflow.steps if s.ask_user),
                   frozenset(edges(workflow)),
                   {s.id: (asked(s).kind, asked(s).advance) for s in workflow.steps
                    if s.ask_user},
                   {s.id: allowed if s.tools is None else tuple(s.tools)
                    for s in workflow.steps},
                   frozenset(s.id for s in workflow.steps if s.dispatch is not None))

    def dumps(self) -> str:
        import json

        data: dict[str, object] = {"entry": self.entry, "asks": sorted(self.asks),
                                   "edges": sorted(self.edges), "asked": dict(self.asked)}
        if self.tools is not None:
            data["tools"] = {k: None if v is None else list(v) for k, v in self.tools.items()}
            data["dispatches"] = sorted(self.dispatches)
        return json.dumps(data)

    @classmethod
    def loads(cls, text: str) -> Shape:
        import json

        data = json.loads(text)
        tools = data.get("tools")
        return cls(data["entry"], frozenset(data["asks"]),
                   frozenset(tuple(e) for e in data["edges"]),
                   {k: (str(v[0]), v[1]) for k, v in data.get("asked", {}).items()},
                   None if tools is None else
                   {k: None if v is None else tuple(map(str, v)) for k, v in tools.items()},
                   frozenset(data.get("dispatches", ())))


def asked(step: StepDef) -> Asked:
    """What the ask_user gate needs of `step`'s question (a function choosing the option an
    approval given in advance takes is '*': the step script decides at each visit)."""
    from ..guard.askgate import Asked

    ask = step.ask_user
    assert ask is not None
    advance = "*" if callable(ask.in_advance) else ask.in_advance
    return Asked(ask.kind, advance)


def forged(ledger: Ledger, shape: Shape, run: Run, store: Evidence | None = None
           ) -> str | None:
    """Why `run`'s ledger cannot be skillrail's own doing (askgate.audit, judged by the
    workflow as skillrail's hooks first saw it when they did), or why the hooks found it so
    before; None for a run whose history holds. `store`: the evidence store, where the caller
    has it open (a hook), else it is opened read-only."""
    from ..guard.askgate import audit, seen, tampered

    found = tampered(run.id) if store is None else store.tampered(run.id)
    if found is not None:
        return found
    first = seen(run.id) if store is None else store.seen_run(run.id)
    if first is not None:
        if first[2] != run.fingerprint:
            return (f"run {run.id}'s workflow is not the one skillrail's hooks saw it run "
                    "(its fingerprint in the ledger changed)")
        shape = Shape.loads(first[3])
    from ..guard.askgate import Asked

    return audit(run, ledger.transitions(run.id), shape.entry, shape.asks, set(shape.edges),
                 folder_of(run.workspace, run.folder),
                 {k: Asked(*v) for k, v in shape.asked.items()})
