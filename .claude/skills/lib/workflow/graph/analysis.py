"""Derived facts of a workflow graph: reachability, loops (strongly connected components) and the
static worst-case step count, keyed by step id. Pure functions over adjacency maps; `describe`,
the diagrams and the step view use them. The work is done on the numbered graph (index.py,
scc.py), in time linear in steps and edges."""


from collections import deque
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from .index import Lists, StepGraph, step_graph, topological
from .model import VERIFY_OUTCOMES, Edge, Rework, StepDef, Workflow, handler_outcomes
from .scc import components_of, is_cycle
from .scc import cycle_through as _cycle_through

Adjacency = Mapping[str, Iterable[str]]


def adjacency(workflow: Workflow, *, with_rework: bool = True) -> dict[str, list[str]]:
    """Successors of each step: every transition to a known step, plus the edge each rework
    takes once exhausted. `with_rework=False` drops the counted rework edges themselves."""
    graph = step_graph(workflow)
    ids = graph.ids
    return {ids[node]: [ids[n] for n in nexts]
            for node, nexts in enumerate(graph.succ if with_rework else graph.plain)}


def reachable(succ: Adjacency, starts: Iterable[str]) -> set[str]:
    """Every node reachable from `starts` (starts included)."""
    seen = set(starts)
    queue = deque(seen)
    while queue:
        for nxt in succ.get(queue.popleft(), ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def reverse(succ: Adjacency) -> dict[str, list[str]]:
    """The same graph with every edge turned round."""
    pred: dict[str, list[str]] = {n: [] for n in succ}
    for node, nexts in succ.items():
        for nxt in nexts:
            pred.setdefault(nxt, []).append(node)
    return pred


def components(succ: Adjacency) -> list[list[str]]:
    """Strongly connected components, sinks first (Tarjan, iterative: see scc.py)."""
    ids, lists = _numbered(succ)
    return [[ids[n] for n in part] for part in components_of(lists)]


def _numbered(succ: Adjacency) -> tuple[list[str], list[list[int]]]:
    """`succ` as numbered lists: its keys first, in order, then nodes only named as successors."""
    number = {node: i for i, node in enumerate(succ)}
    lists = [[number.setdefault(n, len(number)) for n in nexts] for nexts in succ.values()]
    lists += [[] for _ in range(len(number) - len(lists))]
    return list(number), lists


def cycles(succ: Adjacency) -> list[list[str]]:
    """The components that hold a cycle: more than one node, or a node with a self-edge."""
    ids, lists = _numbered(succ)
    return [[ids[n] for n in part] for part in components_of(lists) if is_cycle(part, lists)]


def cycle_through(component: list[str], succ: Adjacency) -> list[str]:
    """A real cycle inside a strongly connected `component`, starting and ending at its first
    node (the shortest such, found breadth-first), for messages that show a path."""
    number = {node: i for i, node in enumerate(component)}  # the component alone: linear
    lists = [[number[n] for n in succ.get(node, ()) if n in number] for node in component]
    return [component[n] for n in _cycle_through(range(len(component)), lists)]


class Loop(NamedTuple):
    """A strongly connected part of the graph and the counted rework edges that bound it."""

    steps: tuple[str, ...]
    reworks: tuple[str, ...]
    cap: int | None


def loops(workflow: Workflow) -> list[Loop]:
    """The workflow's loops, each with its rework edges and the passes they allow."""
    found = cycles(adjacency(workflow))
    loop_of = {n: i for i, comp in enumerate(found) for n in comp}
    edges: list[list[Edge]] = [[] for _ in found]
    for edge in workflow.rework_edges:
        at = loop_of.get(edge.source)
        if at is not None and edge.target is not None and loop_of.get(edge.target) == at:
            edges[at].append(edge)
    return [Loop(tuple(comp), tuple(dict.fromkeys(e.key for e in mine)),
                 max((e.rework.max_iterations for e in mine if e.rework), default=None))
            for comp, mine in zip(found, edges, strict=True)]


def worst_case_steps(workflow: Workflow) -> int | None:
    """The most steps any run can print, or None when an uncounted cycle leaves it unbounded.

    Cut a run at its rework traversals e1..ek into pieces, each a path of the acyclic rest of
    the graph: entry -> source(e1), target(e1) -> source(e2), ..., target(ek) -> anywhere. Each
    traversal of e is charged the longest piece from any rework target to e's source (at most
    max_iterations - 1 traversals each); the first piece may be longer than that charge by the
    excess of the path from the entry; the last piece is at most the longest path from a rework
    target. A run with no traversal is at most the longest path from the entry.
    """
    graph = step_graph(workflow)
    order = topological(graph.plain)
    if workflow.entry not in graph.number or order is None:
        return None
    from_entry = _longest_paths(graph.plain, order, [graph.number[workflow.entry]])
    no_rework = max(from_entry)
    edges = _counted(workflow, graph)
    if not edges:
        return no_rework
    # One pass from every rework target at once: the longest piece from any of them.
    from_target = _longest_paths(graph.plain, order, [target for _, _, target, _ in edges])
    # Each counter's traversals (at most its cap - 1, however many edges share it) are charged
    # the longest piece that leads to any of its edges.
    charge: dict[str, tuple[int, int]] = {}
    excess = 0
    for key, source, _, cap in edges:
        cap_was, piece = charge.get(key, (cap, 0))
        charge[key] = (max(cap_was, cap), max(piece, from_target[source]))
        excess = max(excess, from_entry[source] - from_target[source])
    charged = sum((cap - 1) * piece for cap, piece in charge.values())
    return max(no_rework, charged + excess + max(from_target))


def _counted(workflow: Workflow, graph: StepGraph) -> list[tuple[str, int, int, int]]:
    """(counter key, source, target, max_iterations) of each rework edge to a known step."""
    return [(e.key, graph.number[e.source], graph.number[e.target], e.rework.max_iterations)
            for e in workflow.rework_edges
            if e.rework is not None and e.target is not None and e.target in graph.number]


def _longest_paths(dag: Lists, order: list[int], starts: list[int]) -> list[int]:
    """Steps on the longest path from any of `starts` to each node (0: none reaches it), the
    start counted: one pass over the nodes in topological `order`."""
    best = [0] * len(dag)
    for start in starts:
        best[start] = 1
    for node in order:
        if best[node]:
            for nxt in dag[node]:
                best[nxt] = max(best[nxt], best[node] + 1)
    return best


def fingerprint(workflow: Workflow) -> str:
    """What a run depends on, as the repr of plain data (str, int, bool, None, lists, sorted
    pairs): steps, routing, caps, args, reads and params. Prose (titles, actions, conditions) is
    left out, so fixing a typo does not strand live runs. Kept whole rather than hashed, and
    not JSON: exact, and `hashlib` and `json` cost ~4 ms to import on every step of a run."""

    def route(target: object) -> object:
        if isinstance(target, Rework):
            shared = [target.counter] if target.counter else []  # old runs keep their print
            return [target.target, target.max_iterations, target.on_exhausted, *shared]
        return target

    shape = [
        workflow.entry,
        [[p.name, p.required] for p in workflow.params],
        [[s.id, sorted((o, route(t)) for o, t in s.next.items()),
          [[a.key, a.required, list(a.choices), list(a.outcomes)] for a in s.args],
          _decides(s),
          list(s.reads)] for s in workflow.steps],
    ]
    return repr(shape)


def _decides(step: StepDef) -> list[str] | None:
    """The outcomes a script-decided step may take (a `verify` check's: fail, ok)."""
    if step.handler is not None:  # undeclared: any outcome next maps
        return sorted(handler_outcomes(step.handler) or step.next)
    return sorted(VERIFY_OUTCOMES) if step.verify else None
