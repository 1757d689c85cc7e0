"""The graph checks run at registration (docs/DESIGN.md section 7), each a small pure function
yielding findings; `validate_workflow` runs them all so an author sees every problem at once.
Codes are stable (DESIGN.md lists them): W001-W011, W013, W014, W020 and W021 are here; W015 is
names.py's, W019 model.py's (the original forms); W012, W016 and W018 look outside the graph
(references.py); W017 (a STEPS dict that cannot be adapted) is legacy/adapt.py's. registry.py
runs them all."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from ..base.errors import Finding, did_you_mean
from .dataflow import unwritten_reads
from .index import StepGraph, reach, reverse_of, step_graph, topological
from .model import (
    FIX_FINDINGS,
    VERIFY_OUTCOMES,
    Action,
    Rework,
    Workflow,
    check_pieces,
    handler_outcomes,
    target_id,
)
from .names import check_names
from .scc import components_of, cycle_through, is_cycle, part_of


class Graph(NamedTuple):
    """The workflow's graph as the checks share it, derived once per validation so that every
    check stays linear in steps and edges: the numbered graph (index.py), each step's
    predecessors, and the strongly connected parts of the whole graph (scc.py, sinks first)."""

    steps: StepGraph
    pred: list[tuple[int, ...]]
    parts: list[tuple[int, ...]]


def graph_of(wf: Workflow) -> Graph:
    steps = step_graph(wf)
    return Graph(steps, reverse_of(steps.succ), components_of(steps.succ))


Check = Callable[[Workflow, Graph], Iterator[Finding]]



def _finding(wf: Workflow, code: str, message: str, step: str | None = None,
             outcome: str | None = None, fix: str = "") -> Finding:
    return Finding(code, wf.name, message, step, outcome, fix)


def check_duplicates(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W001: two steps share an id."""
    seen: set[str] = set()
    for step in wf.steps:
        if step.id in seen:
            yield _finding(wf, "W001", "duplicate step id", step.id,
                           fix="Give each step its own id")
        seen.add(step.id)


def check_entry(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W002: the entry step does not exist."""
    if not wf.steps:
        yield _finding(wf, "W002", "the workflow has no steps", fix="Add at least one StepDef")
    elif wf.entry not in wf.by_id:
        yield _finding(wf, "W002", f"entry step '{wf.entry}' is not a step",
                       fix="Name an existing step as entry." + did_you_mean(wf.entry, wf.by_id))


def check_targets(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W003: a transition (or a rework's on_exhausted) names no step."""
    for step in wf.steps:
        for outcome, target in step.next.items():
            named = [("routes", target_id(target))]
            if isinstance(target, Rework):
                named.append(("on exhaustion goes", target.on_exhausted))
            for verb, name in named:
                if name is not None and name not in wf.by_id:
                    yield _finding(
                        wf, "W003", f"{verb} to '{name}', which is not a step", step.id, outcome,
                        "Name an existing step, or None to end the run."
                        + did_you_mean(name, wf.by_id))


def check_unreachable(wf: Workflow, graph: Graph) -> Iterator[Finding]:
    """W004: no path from the entry leads to the step."""
    if wf.entry not in wf.by_id:
        return
    number = graph.steps.number
    seen = reach(graph.steps.succ, [number[wf.entry]])
    for step in wf.steps:
        if not seen[number[step.id]]:
            yield _finding(wf, "W004", "unreachable from the entry step", step.id,
                           fix="Route an outcome of an earlier step to it, or remove it")


def check_dead_ends(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W005: a step with no outcome at all (neither a next step nor the end of the run)."""
    for step in wf.steps:
        if not step.next:
            yield _finding(wf, "W005", "dead end: the step has no outcomes", step.id,
                           fix="Add next={Outcome.OK: '<step>'}, or {Outcome.OK: None} to end")


def check_trapped(wf: Workflow, graph: Graph) -> Iterator[Finding]:
    """W006: a step (with outcomes) from which no path reaches a terminal step."""
    number = graph.steps.number
    finishing = reach(graph.pred, _ending(graph))
    for step in wf.steps:
        if step.next and not finishing[number[step.id]]:
            yield _finding(wf, "W006", "no path from this step ever ends the run", step.id,
                           fix="Route some outcome of the loop out to a step that ends the run")


def check_unbounded(wf: Workflow, graph: Graph) -> Iterator[Finding]:
    """W007: a cycle that no counted rework edge bounds."""
    plain, ids = graph.steps.plain, graph.steps.ids
    if topological(plain) is not None:
        return  # no cycle: the search for each cycle's steps below is not needed
    for cycle in (part for part in components_of(plain) if is_cycle(part, plain)):
        path = " -> ".join(ids[n] for n in cycle_through(cycle, plain))
        yield _finding(wf, "W007", f"unbounded cycle {path} (loop steps: "
                       f"{', '.join(ids[n] for n in cycle)})", ids[cycle[0]],
                       fix="Make one edge of the cycle a Rework(target, max_iterations, "
                           "on_exhausted)")


def check_exhaustion(wf: Workflow, graph: Graph) -> Iterator[Finding]:
    """W008: a rework cap below 2, or an exhausted loop that leads neither to an ask_user step
    nor, without re-entering the loop, to an ask_user or terminal step."""
    number = graph.steps.number
    loop_of = part_of(graph.parts, len(number))
    # An exhaustion edge leaves the loop, so a step it reaches outside the loop cannot lead back
    # in (it would be part of the loop): what that step reaches, it reaches without re-entering.
    settles = reach(graph.pred, _ending(graph) + [number[s.id] for s in wf.steps
                                                  if s.ask_user is not None])
    caps: dict[str, int] = {}
    for edge in wf.rework_edges:
        rework = edge.rework
        assert rework is not None
        if caps.setdefault(edge.key, rework.max_iterations) != rework.max_iterations:
            yield _finding(wf, "W008", f"counter '{edge.key}' is shared by edges with different "
                           f"caps ({caps[edge.key]} and {rework.max_iterations})", edge.source,
                           edge.outcome, "Give every edge of a shared counter one max_iterations")
        if rework.max_iterations < 2:
            yield _finding(wf, "W008", f"max_iterations={rework.max_iterations}: the rework "
                           "edge could never be taken", edge.source, edge.outcome,
                           "Use max_iterations >= 2, or make it a plain transition")
        if rework.on_exhausted not in wf.by_id:
            continue  # W003 reports it
        if wf.by_id[rework.on_exhausted].ask_user is not None:
            continue  # the user decides what follows an exhausted loop: safe by definition
        after = number[rework.on_exhausted]
        if loop_of[after] == loop_of[number[edge.source]] or not settles[after]:
            yield _finding(wf, "W008", f"when the loop is exhausted, '{rework.on_exhausted}' "
                           "leads back into the loop or to no ask_user or terminal step",
                           edge.source, edge.outcome,
                           "Set on_exhausted to a step outside the loop that asks the user or "
                           "ends the run")


def _ending(graph: Graph) -> list[int]:
    """The steps some outcome of which ends the run."""
    return [node for node, ends in enumerate(graph.steps.ends) if ends]


def check_handler_outcomes(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W009: a handler's declared outcomes (`@decides`) differ from the outcomes `next` maps,
    or a step is decided by both a handler and the user."""
    for step in wf.steps:
        if step.handler is None and not step.verify:
            continue
        if step.ask_user is not None:
            yield _finding(wf, "W009", "a step is decided by a handler or by the user, not both",
                           step.id, fix="Drop the handler or the ask_user")
        declared = handler_outcomes(step.handler) if step.handler else VERIFY_OUTCOMES
        if declared is None:  # undeclared: it may return any outcome next maps (checked on use)
            continue
        for outcome in sorted(declared - set(step.next)):
            yield _finding(wf, "W009", "the handler may return this outcome, but next does not "
                           "map it", step.id, outcome, "Map it in next, or stop returning it")
        for outcome in sorted(set(step.next) - declared):
            yield _finding(wf, "W009", "next maps this outcome, but the handler never returns "
                           "it", step.id, outcome, "Add it to @decides(...), or drop it")


def check_conditions(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W010: an agent-decided branch without a `when` for every outcome (or a user-decided step
    without an option for every outcome)."""
    for step in wf.steps:
        if step.decided_by == "script":
            continue
        if step.ask_user is not None:  # decided by the user
            labels, kind = step.ask_user.options, "ask_user option"
        elif len(step.next) > 1 or step.when:
            labels, kind = step.when, "when condition"
        else:
            continue
        for outcome in step.next:
            if outcome not in labels:
                yield _finding(wf, "W010", f"no {kind} for this outcome", step.id, outcome,
                               f"Add one, so the agent knows when to choose '{outcome}'")
        for outcome in labels:
            if outcome not in step.next:
                yield _finding(wf, "W010", f"{kind} for an outcome next does not map",
                               step.id, outcome, "Map it in next, or remove it."
                               + did_you_mean(outcome, step.next))
        ask = step.ask_user
        if ask is not None and isinstance(ask.in_advance, str) and ask.in_advance not in labels:
            yield _finding(wf, "W010", "in_advance names no option of the question", step.id,
                           ask.in_advance, "Name the option a standing approval chooses."
                           + did_you_mean(ask.in_advance, labels))


def check_memory(wf: Workflow, graph: Graph) -> Iterator[Finding]:
    """W011: a step reads a key that some path to it has not written (or that no step writes).
    FIX_FINDINGS, which the runner writes as a fix pass's sub-run starts, may be an optional
    read of any step."""
    anywhere = {k for s in wf.steps for k in s.writes} | {FIX_FINDINGS}
    missing = unwritten_reads(wf, graph.steps, graph.parts, anywhere)
    for step in wf.steps:
        for key in step.reads:
            if key not in anywhere:
                yield _finding(wf, "W011", f"reads {key}, which no step asks for", step.id,
                               fix="Declare Arg('" + key + "', ...) on the step that produces "
                               "it." + did_you_mean(key, anywhere))
            elif key in missing.get(step.id, ()):
                yield _finding(wf, "W011", f"reads {key}, which some path to this step has not "
                               "written", step.id, fix="Make it a required arg on every path "
                               "here, or move it to optional_reads")
        for key in step.optional_reads:
            if key not in anywhere:
                yield _finding(wf, "W011", f"optional_reads names {key}, which no step asks for",
                               step.id, fix="Fix the key." + did_you_mean(key, anywhere))


def check_outputs(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W013: an action's `out` names no arg of the step, an arg names an unknown outcome, an
    arg has no description and no action says what it holds, or one command would ask for the
    same key twice."""
    for step in wf.steps:
        keys = {a.key for a in step.args}
        outs = {a.out for a in step.actions if isinstance(a, Action) and a.out}
        for action in step.actions:
            out = action.out if isinstance(action, Action) else None
            if out is not None and out != "reply" and out not in keys:
                yield _finding(wf, "W013", f"an action's out='{out}' names no arg of the step",
                               step.id, fix="Declare Arg('" + out + "', ...) on the step, or "
                               "use out='reply'." + did_you_mean(out, keys))
        for key in sorted({a.key for a in step.args if not a.describe} - outs):
            yield _finding(wf, "W013", f"arg {key} has no description", step.id,
                           fix=f"Give Arg('{key}', 'what it holds'), or an action with "
                               f"out='{key}' that says it.")
        for outcome in step.next if len(step.args) > 1 else ():  # one arg is asked once
            asked = [a.key for a in step.args_for(outcome)]
            for key in sorted({k for k in asked if asked.count(k) > 1}):
                yield _finding(wf, "W013", f"arg {key} is asked twice on one command", step.id,
                               outcome, "Limit each declaration to other outcomes with "
                               "Arg(..., outcomes=(...))")
        for arg in step.args:
            for outcome in arg.outcomes:
                if outcome not in step.next:
                    yield _finding(wf, "W013", f"arg {arg.key} is asked on an outcome next "
                                   "does not map", step.id, outcome,
                                   "Fix the outcome name." + did_you_mean(outcome, step.next))


def check_mixed_ending(wf: Workflow, _: Graph) -> Iterator[Finding]:
    """W014: an agent- or user-decided step that both ends the run and continues: <NEXT> holds
    either commands or <complete>, never both."""
    for step in wf.steps:
        if len(step.next) > 1 and step.is_terminal and step.decided_by != "script":
            yield _finding(wf, "W014", "an agent- or user-decided step cannot both end the run "
                           "and continue", step.id, fix="Route the ending outcome to a final "
                           "step whose only outcome is None")


# -- loops that cannot do what a loop is for (section 7 of docs/DESIGN.md): W020, a loop whose
# every step the script decides, so the agent never acts inside it and each pass decides again
# on the same facts; W021, a counted `Rework` edge that closes no loop, so its count means
# nothing (its first pass would read "pass 2"). Both are linear: one strongly connected search
# each.

def check_script_loops(wf: Workflow, graph: Graph) -> Iterator[Finding]:
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


def check_open_reworks(wf: Workflow, graph: Graph) -> Iterator[Finding]:
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


CHECKS: tuple[Check, ...] = (
    check_duplicates, check_entry, check_targets, check_unreachable, check_dead_ends,
    check_trapped, check_unbounded, check_exhaustion, check_handler_outcomes, check_conditions,
    check_memory, check_outputs, check_mixed_ending, check_names, check_pieces,
    check_script_loops, check_open_reworks)


def validate_workflow(wf: Workflow) -> list[Finding]:
    """Every finding of every check, in check order."""
    graph = graph_of(wf)
    return [finding for check in CHECKS for finding in check(wf, graph)]
