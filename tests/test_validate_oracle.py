"""The graph checks and the worst-case bound against brute-force oracles written here, on random
graphs. The oracles follow the definitions in validate.py and graph.adjacency, not their code:
every transition to a known step is an edge, and so is the edge a rework takes once exhausted;
edges to unknown steps and terminal (None) edges are ignored. They relax closures, search from
each step and enumerate paths and runs, sharing nothing with the linear-time algorithms."""

from __future__ import annotations

import functools
import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from skills.lib.workflow import InvalidWorkflow, Rework, StepDef, Workflow, register_workflow
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.analysis import worst_case_steps
from skills.lib.workflow.types import VERIFY_OUTPUT

from .strategies import asking_workflows, memory_workflows, workflows

pytestmark = pytest.mark.slow  # thousands of generated examples

GRAPH_CODES = {"W004", "W005", "W006"}

Graph = dict[str, set[str]]


def findings_of(wf: Workflow) -> list:
    """Every finding registration reports for `wf` (registering and dropping it when valid)."""
    try:
        register_workflow(wf)
    except InvalidWorkflow as exc:
        return exc.findings
    unregister(wf.name)
    return []


def edges(wf: Workflow, *, with_rework: bool) -> Graph:
    """Successor sets; `with_rework=False` drops the counted rework edges but keeps exhaustion
    edges."""
    known = {s.id for s in wf.steps}
    succ: Graph = {s.id: set() for s in wf.steps}
    for step in wf.steps:
        for target in step.next.values():
            if isinstance(target, Rework):
                ends = [target.on_exhausted] + ([target.target] if with_rework else [])
            else:
                ends = [target]
            succ[step.id] |= {t for t in ends if t in known}
    return succ


def closure(succ: Graph) -> Graph:
    """For each node, the nodes reachable by one or more edges (relaxed until nothing grows)."""
    reach = {n: set(s) for n, s in succ.items()}
    grown = True
    while grown:
        grown = False
        for node in reach:
            more = set().union(*(reach[m] for m in reach[node])) - reach[node]
            if more:
                reach[node] |= more
                grown = True
    return reach


def oracle(wf: Workflow) -> set[tuple[str, str]]:
    """The (code, step) pairs of W004, W005 and W006 by definition."""
    reach = closure(edges(wf, with_rework=True))
    ids = [s.id for s in wf.steps]
    terminals = {s.id for s in wf.steps if None in s.next.values()}
    expected = set()
    if wf.entry in ids:
        expected |= {("W004", n) for n in ids if n != wf.entry and n not in reach[wf.entry]}
    for step in wf.steps:
        if not step.next:
            expected.add(("W005", step.id))
        elif not ({step.id} | reach[step.id]) & terminals:
            expected.add(("W006", step.id))
    return expected


def unbounded_cycles(wf: Workflow) -> set[frozenset[str]]:
    """The node sets of the cycles of the graph minus rework edges: each node on a cycle with
    every node it reaches and is reached from."""
    reach = closure(edges(wf, with_rework=False))
    return {frozenset({n} | {m for m in reach[n] if n in reach[m]})
            for n in reach if n in reach[n]}


def cycle_named(message: str) -> list[str]:
    """The path of a W007 message: 'unbounded cycle a -> b -> a (loop steps: a, b, c)' gives
    [a, b, a]."""
    return message.removeprefix("unbounded cycle ").partition(" (")[0].split(" -> ")


def loop_named(message: str) -> list[str]:
    """The steps of a W007 message's loop: '... (loop steps: a, b, c)' gives [a, b, c]."""
    return message.partition("(loop steps: ")[2].removesuffix(")").split(", ")


class TestGraphChecks:
    """W004-W007 on random graphs, against the oracles."""

    @given(workflows())
    @settings(max_examples=300, deadline=None)
    def test_unreachable_dead_end_and_trapped_findings_match_the_oracle(self, wf):
        """W004, W005 and W006 name exactly the steps the definitions name, once each."""
        found = [(f.code, f.step) for f in findings_of(wf) if f.code in GRAPH_CODES]
        assert len(found) == len(set(found))
        assert set(found) == oracle(wf)

    @given(workflows())
    @settings(max_examples=300, deadline=None)
    def test_unbounded_cycle_findings_match_the_oracle(self, wf):
        """W007 reports each cycle of the graph minus rework edges once, by its steps."""
        found = [f for f in findings_of(wf) if f.code == "W007"]
        named = [frozenset(loop_named(f.message)) for f in found]
        assert len(named) == len(set(named))
        assert set(named) == unbounded_cycles(wf)
        assert all(f.step in members for f, members in zip(found, named, strict=True))

    @given(workflows())
    @settings(max_examples=300, deadline=None)
    @example(Workflow("w007-path", [
        StepDef("a", "A", next={"x": "b", "y": "c"}, when={"x": "1", "y": "2"}),
        StepDef("b", "B", next={"ok": "a"}), StepDef("c", "C", next={"ok": "a"})]))
    def test_the_cycle_named_by_w007_follows_edges_of_the_graph(self, wf):
        """Each W007 message shows a closed path whose every hop is an edge of the graph."""
        succ = edges(wf, with_rework=False)
        for finding in findings_of(wf):
            if finding.code == "W007":
                path = cycle_named(finding.message)
                assert path[0] == path[-1] == finding.step
                hops = list(itertools.pairwise(path))
                assert [h for h in hops if h[1] not in succ[h[0]]] == []


def exhaustion_findings(wf: Workflow) -> set[tuple[str, str, str]]:
    """(step, outcome, 'cap' or 'exit') of each W008 by definition: a rework cap below 2; and
    an exhausted loop whose on_exhausted step (known, and not asking the user) is in the loop
    (the steps the source reaches and is reached from), or reaches no ask_user or terminal step
    by a path that keeps out of the loop."""
    succ = edges(wf, with_rework=True)
    reaches = closure(succ)
    by_id = {s.id: s for s in wf.steps}
    safe = {s.id for s in wf.steps if None in s.next.values() or s.ask_user is not None}
    expected = set()
    for step in wf.steps:
        for outcome, target in step.next.items():
            if not isinstance(target, Rework):
                continue
            if target.max_iterations < 2:
                expected.add((step.id, outcome, "cap"))
            after = by_id.get(target.on_exhausted)
            if after is None or after.ask_user is not None:
                continue
            loop = {step.id} | {n for n in reaches[step.id] if step.id in reaches[n]}
            outside = {n: nexts - loop for n, nexts in succ.items() if n not in loop}
            if after.id in loop or not reach(outside, after.id) & safe:
                expected.add((step.id, outcome, "exit"))
    return expected


class TestExhaustion:
    """W008 against the oracle."""

    @given(asking_workflows())
    @settings(max_examples=300, deadline=None)
    def test_exhaustion_findings_match_the_oracle(self, wf: Workflow) -> None:
        """W008 names exactly the rework edges whose cap is below 2, and those whose exhausted
        loop leads back into it or to no question and no end, once each."""
        found = [(f.step, f.outcome, "cap" if "max_iterations" in f.message else "exit")
                 for f in findings_of(wf) if f.code == "W008"]
        assert len(found) == len(set(found))
        assert set(found) == exhaustion_findings(wf)


def unwritten_reads(wf: Workflow) -> set[tuple[str, str]]:
    """(step, key) for each read some path leaves unwritten: the step is reachable from the
    entry by edges that do not ask for the key as a required arg, nor, for VERIFY_OUTPUT, leave
    a `verify` step (an empty path counts). A rework's exhausted edge (a cap of 2 or more)
    follows only an arrival at its step from inside the step's loop (its strongly connected
    part): the loop went round first. Searched over (step, arrived from inside) states."""
    known = {s.id for s in wf.steps}
    if wf.entry not in known:
        return set()
    asked_anywhere = {a.key for s in wf.steps for a in s.args}
    asked_anywhere |= {VERIFY_OUTPUT} if any(s.verify for s in wf.steps) else set()
    every: Graph = {s.id: set() for s in wf.steps}
    for src in wf.steps:
        for target in src.next.values():
            ends = [target.target, target.on_exhausted] if isinstance(target, Rework) else [target]
            every[src.id] |= {e for e in ends if e in known}
    part = {s: frozenset(t for t in reach(every, s) if s in reach(every, t)) for s in known}
    found = set()
    for step in wf.steps:
        for key in step.reads:
            if key not in asked_anywhere:
                continue  # reported as "no step asks for it", not a dataflow finding
            moves: dict[str, list[tuple[str, bool]]] = {s.id: [] for s in wf.steps}
            for src in wf.steps:
                for outcome, target in src.next.items():
                    if any(a.key == key and a.required for a in src.args_for(outcome)) or (
                            key == VERIFY_OUTPUT and src.verify):
                        continue
                    if isinstance(target, Rework):
                        moves[src.id].append((target.target, False))
                        moves[src.id].append((target.on_exhausted,
                                              target.max_iterations >= 2))
                    else:
                        moves[src.id].append((target, False))
            seen = {(wf.entry, False)}
            todo = [(wf.entry, False)]
            while todo:
                here, inside = todo.pop()
                for there, after_loop in moves[here]:
                    if there not in known or (after_loop and not inside):
                        continue
                    state = (there, there in part[here] and here in reach(every, there))
                    if state not in seen:
                        seen.add(state)
                        todo.append(state)
            if any(s == step.id for s, _ in seen):
                found.add((step.id, key))
    return found


def reach(succ: Graph, start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in succ[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


class TestMemoryDataflow:
    """W011 against the path oracle."""

    @given(memory_workflows())
    @settings(max_examples=300, deadline=None)
    def test_unwritten_reads_match_the_oracle(self, wf: Workflow) -> None:
        """W011's dataflow findings are exactly the reads some path from the entry leaves
        unwritten."""
        found = {(f.step, f.message.split()[1].rstrip(","))
                 for f in findings_of(wf) if f.code == "W011" and "some path" in f.message}
        assert found == unwritten_reads(wf)


def longest_run(wf: Workflow) -> int:
    """The most steps any run prints, by exploring every run from the entry: a rework edge is
    taken max_iterations - 1 times, after which its outcome leads to on_exhausted; a None edge
    ends the run. Memoized on (step, counters), which covers every run exactly once per state."""
    by_id = wf.by_id

    @functools.cache
    def longest(step_id: str, counts: frozenset[tuple[str, int]]) -> int:
        taken = dict(counts)
        best = 0
        for outcome, target in by_id[step_id].next.items():
            if target is None:
                continue
            after = taken
            if isinstance(target, Rework):
                key = target.counter or f"{step_id}:{outcome}"
                if taken.get(key, 0) < target.max_iterations - 1:
                    target, after = target.target, {**taken, key: taken.get(key, 0) + 1}
                else:
                    target = target.on_exhausted
            best = max(best, longest(target, frozenset(after.items())))
        return 1 + best

    return longest(wf.entry, frozenset())


def longest_path(dag: Graph, start: str, end: str) -> int:
    """Steps on the longest path from `start` to `end` of an acyclic graph, by trying every
    path (0: there is none)."""
    if start == end:
        return 1
    longest = max((longest_path(dag, nxt, end) for nxt in dag[start]), default=0)
    return longest + 1 if longest else 0


def documented_bound(wf: Workflow) -> int:
    """The bound worst_case_steps documents, each of its longest pieces found by trying every
    path: the longest run without rework, or every rework edge taken max_iterations - 1 times,
    charged the longest piece from a rework target to its source, plus the first piece's excess
    over its charge and the longest last piece."""
    dag = edges(wf, with_rework=False)
    reworks = [(s.id, t.target, t.max_iterations, t.counter or f"{s.id}:{o}")
               for s in wf.steps for o, t in s.next.items()
               if isinstance(t, Rework) and t.target in dag]
    targets = {target for _, target, _, _ in reworks}

    def piece(end: str) -> int:
        return max((longest_path(dag, target, end) for target in targets), default=0)

    no_rework = max(longest_path(dag, wf.entry, node) for node in dag)
    if not reworks:
        return no_rework
    # A counter's edges share its cap: its traversals are charged the longest piece to any of them.
    counters = {key for _, _, _, key in reworks}
    charged = sum((max(c for _, _, c, k in reworks if k == key) - 1)
                  * max(piece(s) for s, _, _, k in reworks if k == key) for key in counters)
    excess = max([0] + [longest_path(dag, wf.entry, source) - piece(source)
                        for source, _, _, _ in reworks])
    return max(no_rework, charged + excess + max(piece(node) for node in dag))


@st.composite
def shared_workflows(draw: st.DrawFn) -> Workflow:
    """An acyclic-but-for-reworks random graph whose rework edges, some or all, share one
    counter 'budget' with one cap."""
    wf = draw(workflows(5, acyclic=True, dangling=False))
    cap = draw(st.integers(2, 4))

    def shared(target: object) -> object:
        if isinstance(target, Rework) and draw(st.booleans()):
            return target._replace(max_iterations=cap, counter="budget")
        return target

    return wf._replace(steps=tuple(s._replace(next={o: shared(t) for o, t in s.next.items()})
                                   for s in wf.steps))


class TestWorstCaseSteps:
    """graph.worst_case_steps bounds the length of every run."""

    @given(workflows(5, acyclic=True, dangling=False))
    @settings(max_examples=200, deadline=None)
    def test_no_run_prints_more_steps_than_the_bound(self, wf):
        """Every run from the entry, loops taken as often as their caps allow, fits the bound."""
        bound = worst_case_steps(wf)
        assert bound is not None
        assert longest_run(wf) <= bound

    @given(workflows(5, acyclic=True, dangling=False))
    @settings(max_examples=200, deadline=None)
    def test_the_bound_is_the_documented_formula(self, wf):
        """The bound is exactly what its docstring says, each longest piece found by trying
        every path (a looser bound would still pass the test above)."""
        assert worst_case_steps(wf) == documented_bound(wf)

    @given(shared_workflows())
    @settings(max_examples=200, deadline=None)
    def test_edges_sharing_a_counter_share_its_cap(self, wf):
        """Rework edges that share a counter (a run's budget) pass against one cap: every run
        fits the bound, and the bound charges each counter once."""
        assert longest_run(wf) <= worst_case_steps(wf) == documented_bound(wf)

    @given(workflows(5, acyclic=True, dangling=False))
    @settings(max_examples=100, deadline=None)
    def test_without_rework_edges_the_bound_is_the_longest_run(self, wf):
        """With no loops at all, the bound is exact: the longest path from the entry."""
        plain = Workflow(wf.name, [
            StepDef(s.id, s.title, next={o: t for o, t in s.next.items()
                                         if not isinstance(t, Rework)})
            for s in wf.steps])
        assert worst_case_steps(plain) == longest_run(plain)

    @given(workflows(5))
    @settings(max_examples=200, deadline=None)
    def test_an_uncounted_cycle_leaves_the_bound_unknown(self, wf):
        """The bound is None exactly when the graph minus rework edges has a cycle (or the entry
        is not a step)."""
        unknown = bool(unbounded_cycles(wf)) or wf.entry not in wf.by_id
        assert (worst_case_steps(wf) is None) == unknown
