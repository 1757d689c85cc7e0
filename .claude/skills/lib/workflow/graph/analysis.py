"""Derived facts of a workflow graph: reachability, loops (strongly connected components) and the
static worst-case step count. Pure functions over adjacency maps; validation and `describe` use
them."""


from collections import deque
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from .model import StepDef, Workflow
from .types import VERIFY_OUTCOMES, Rework, handler_outcomes, target_id

Adjacency = Mapping[str, Iterable[str]]


def adjacency(workflow: Workflow, *, with_rework: bool = True) -> dict[str, list[str]]:
    """Successors of each step: every transition to a known step, plus the edge each rework
    takes once exhausted. `with_rework=False` drops the counted rework edges themselves."""
    succ: dict[str, list[str]] = {s.id: [] for s in workflow.steps}
    for edge in workflow.edges:
        targets: list[str | None] = [edge.rework.on_exhausted] if edge.rework else []
        if edge.rework is None or with_rework:
            targets.insert(0, edge.target)
        for target in targets:
            if target in succ and target not in succ[edge.source]:
                succ[edge.source].append(target)
    return succ


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
    """Strongly connected components (Tarjan, iterative so deep graphs cannot overflow)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    for root in succ:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    result.append(_pop_component(node, stack, on_stack))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(succ.get(child, ()))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return result


def _pop_component(root: str, stack: list[str], on_stack: set[str]) -> list[str]:
    component = []
    while True:
        node = stack.pop()
        on_stack.discard(node)
        component.append(node)
        if node == root:
            return component[::-1]


def cycles(succ: Adjacency) -> list[list[str]]:
    """The components that hold a cycle: more than one node, or a node with a self-edge."""
    return [c for c in components(succ) if len(c) > 1 or c[0] in succ.get(c[0], ())]


def cycle_through(component: list[str], succ: Adjacency) -> list[str]:
    """A real cycle inside a strongly connected `component`, starting and ending at its first
    node (the shortest such, found breadth-first), for messages that show a path."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in succ.get(node, ()):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if nxt in members and nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    return [start]


def definitely_written(wf: Workflow) -> dict[str, set[str]]:
    """For each step reachable from the entry, the memory keys every path to it has written
    (a forward must-analysis: only required args count, since optional ones may be absent)."""
    succ = adjacency(wf)
    live = reachable(succ, [wf.entry]) if wf.entry in wf.by_id else set()
    every = {k for s in wf.steps for k in s.writes}
    known: dict[str, set[str]] = {n: set(every) for n in live}
    known[wf.entry] = set()
    changed = True
    while changed:
        changed = False
        for step in (s for s in wf.steps if s.id in live):
            for outcome, target in step.next.items():
                out = known[step.id] | step.written_on(outcome)
                ends = [target_id(target)] + ([target.on_exhausted]
                                              if isinstance(target, Rework) else [])
                for end in ends:
                    if end in known and end != wf.entry and not known[end] <= out:
                        known[end] &= out
                        changed = True
    return known


class Loop(NamedTuple):
    """A strongly connected part of the graph and the counted rework edges that bound it."""

    steps: tuple[str, ...]
    reworks: tuple[str, ...]
    cap: int | None


def loops(workflow: Workflow) -> list[Loop]:
    """The workflow's loops, each with its rework edges and the passes they allow."""
    found = []
    for comp in cycles(adjacency(workflow)):
        members = set(comp)
        keys = tuple(k for k, e in workflow.reworks.items()
                     if e.source in members and e.target in members)
        caps = [workflow.reworks[k].rework.max_iterations for k in keys]  # type: ignore[union-attr]
        found.append(Loop(tuple(comp), keys, max(caps) if caps else None))
    return found


def worst_case_steps(workflow: Workflow) -> int | None:
    """The most steps any run can print, or None when an uncounted cycle leaves it unbounded.

    Cut a run at its rework traversals e1..ek into pieces, each a path of the acyclic rest of
    the graph: entry -> source(e1), target(e1) -> source(e2), ..., target(ek) -> anywhere. Each
    traversal of e is charged the longest piece from any rework target to e's source (at most
    max_iterations - 1 traversals each); the first piece may be longer than that charge by the
    excess of the path from the entry; the last piece is at most the longest path from a rework
    target. A run with no traversal is at most the longest path from the entry.
    """
    dag = adjacency(workflow, with_rework=False)
    if cycles(dag) or workflow.entry not in dag:
        return None
    order = [c[0] for c in reversed(components(dag))]  # Tarjan emits sinks first
    edges = [e for e in workflow.reworks.values() if e.target in dag]
    from_entry = _longest_paths(dag, order, workflow.entry)
    targets = {e.target for e in edges if e.target is not None}
    from_target = {t: _longest_paths(dag, order, t) for t in targets}
    no_rework = max(from_entry.values())
    if not edges:
        return no_rework
    charged, excess = 0, 0
    for edge in edges:
        assert edge.rework is not None
        piece = max((paths.get(edge.source, 0) for paths in from_target.values()), default=0)
        charged += (edge.rework.max_iterations - 1) * piece
        excess = max(excess, from_entry.get(edge.source, 0) - piece)
    last = max(n for paths in from_target.values() for n in paths.values())
    return max(no_rework, charged + excess + last)


def _longest_paths(dag: Adjacency, order: list[str], start: str) -> dict[str, int]:
    """Steps on the longest path from `start` to each node it reaches, `start` counted."""
    best = {start: 1}
    for node in order:
        if node in best:
            for nxt in dag[node]:
                best[nxt] = max(best.get(nxt, 0), best[node] + 1)
    return best


def fingerprint(workflow: Workflow) -> str:
    """What a run depends on, as the repr of plain data (str, int, bool, None, lists, sorted
    pairs): steps, routing, caps, args, reads and params. Prose (titles, actions, conditions) is
    left out, so fixing a typo does not strand live runs. Kept whole rather than hashed, and
    not JSON: exact, and `hashlib` and `json` cost ~4 ms to import on every step of a run."""

    def route(target: object) -> object:
        if isinstance(target, Rework):
            return [target.target, target.max_iterations, target.on_exhausted]
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
    if step.handler is not None:
        return sorted(handler_outcomes(step.handler) or [])
    return sorted(VERIFY_OUTCOMES) if step.verify else None
