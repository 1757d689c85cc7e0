"""The edges of a workflow as simulation walks see them: every edge a run can take, the edges of
a walk's printed steps and of the script-decided steps it passed through, and the distance from
each step to a goal."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import NamedTuple

from ..graph.model import Workflow
from ..protocol.reading import command, decided
from ..protocol.reading import outcome as named_outcome

#: (source step, outcome or "-" when the step has one, target step or END)
EdgeKey = tuple[str, str, str]
END = "(end)"


class Hop(NamedTuple):
    """One printed step of a walk: the command that printed it, its document, its size."""

    cmd: list[str]
    root: ET.Element
    chars: int


def graph_edges(wf: Workflow) -> frozenset[EdgeKey]:
    """Every edge a run can take, exhaustion edges and endings included."""
    edges = set()
    for e in wf.edges:
        outcome = e.outcome if len(wf.by_id[e.source].next) > 1 else "-"
        edges.add((e.source, outcome, e.target if e.target is not None else END))
        if e.rework is not None:
            edges.add((e.source, outcome, e.rework.on_exhausted))
    return frozenset(edges)


_DISTANCES: dict[tuple[str, str], dict[str, int]] = {}


def distances(wf: Workflow, goal: str) -> dict[str, int]:
    """Steps from each step to `goal`, over every edge a run can take (exhaustion included)."""
    key = (wf.name, goal)
    if key not in _DISTANCES:
        into: dict[str, set[str]] = {}
        for e in wf.edges:
            for target in (e.target, e.rework.on_exhausted if e.rework else None):
                if target is not None:
                    into.setdefault(target, set()).add(e.source)
        found, frontier = {goal: 0}, [goal]
        while frontier:
            step = frontier.pop(0)
            for before in into.get(step, ()):
                if before not in found:
                    found[before] = found[step] + 1
                    frontier.append(before)
        _DISTANCES[key] = found
    return _DISTANCES[key]


def passed_edges(hop: Hop, wf: Workflow) -> list[EdgeKey]:
    """The edges of the script-decided steps the run passed through before printing `hop`
    (its `<decided>` elements, in order; each led to the next one, the last to the step
    printed)."""
    passed = decided(hop.root)
    if not passed:
        return []
    targets = [d.step for d in passed[1:]] + [hop.root.get("id", "")]
    edges = []
    for node, target in zip(passed, targets, strict=True):
        source, outcome = node.step, node.outcome
        step = wf.by_id.get(source)
        edges.append((source, outcome if step is None or len(step.next) > 1 else "-", target))
    return edges


def edge_of(hop: Hop, invoke: ET.Element, wf: Workflow | None = None) -> EdgeKey:
    """The edge the command of an invoke follows (labelled '-' when its step has one
    outcome, as in graph_edges, even if the command names it)."""
    cmd = command(invoke)
    target = cmd[cmd.index("--step") + 1]
    source = hop.root.get("id", "")
    outcome = named_outcome(invoke) or "-"
    step = wf.by_id.get(source) if wf is not None else None
    if step is not None and len(step.next) == 1:
        outcome = "-"
    return source, outcome, target
