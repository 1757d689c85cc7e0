"""Loops that cannot do what a loop is for (docs/DESIGN.md section 7): W020, a loop whose every
step the script decides, so the agent never acts inside it and each pass decides again on the
same facts; W021, a counted `Rework` edge that closes no loop, so its count means nothing (its
first pass would read "pass 2"). Both are linear: one strongly connected search each."""

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..base.errors import Finding
from .scc import components_of, cycle_through, is_cycle, part_of
from .types import Rework

if TYPE_CHECKING:
    from .model import Workflow
    from .validate import Graph


def check_script_loops(wf: "Workflow", graph: "Graph") -> Iterator[Finding]:
    """W020: a cycle of script-decided steps only (a handler or a verify check decides each):
    the run passes through it in one invocation, and no agent work happens between passes."""
    ids, succ = graph.steps.ids, graph.steps.succ
    script = bytearray(len(ids))
    for step in wf.steps:
        script[graph.steps.number[step.id]] = step.decided_by == "script"
    inner = [tuple(n for n in nexts if script[n]) if script[at] else ()
             for at, nexts in enumerate(succ)]
    for part in components_of(inner):
        if not is_cycle(part, inner):
            continue
        path = " -> ".join(ids[n] for n in cycle_through(part, inner))
        yield Finding("W020", wf.name, f"the loop {path} holds only steps the script decides: "
                      "the agent never acts in it, so each pass decides again on the same "
                      "facts", ids[part[0]],
                      fix="Give the agent a step in the loop: put the work in a step of its "
                          "own that leads to the deciding one (investigate -> assess -> "
                          "investigate), or take the handler off the step the agent works in")


def check_open_reworks(wf: "Workflow", graph: "Graph") -> Iterator[Finding]:
    """W021: a Rework whose target never leads back to its step: no loop to count (an edge of a
    shared counter, a run's budget, may lead forward: it counts the run, not a loop)."""
    number = graph.steps.number
    part = part_of(graph.parts, len(graph.steps.ids))
    for step in wf.steps:
        for outcome, target in step.next.items():
            if not isinstance(target, Rework) or target.target not in number or target.counter:
                continue  # W003 reports an unknown target; a shared counter may lead forward
            if part[number[target.target]] != part[number[step.id]]:
                yield Finding("W021", wf.name, f"Rework to '{target.target}' closes no loop: "
                              f"no path leads from '{target.target}' back to '{step.id}'",
                              step.id, outcome,
                              fix=f"Use a plain edge: next={{'{outcome}': '{target.target}'}}")
