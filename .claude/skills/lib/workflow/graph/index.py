"""A workflow's graph with its steps numbered: what the graph checks, the dataflow and the step
bound walk. Lists indexed by number are several times faster to walk in Python than dicts keyed
by step id, which matters at tens of thousands of steps; `analysis` gives the same facts keyed
by id to everyone else."""

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from .model import Rework, Target, Workflow

#: Successors (or predecessors) of each step, by number.
Lists = Sequence[Sequence[int]]


class StepGraph(NamedTuple):
    """Steps numbered in definition order (a duplicated id once, where it first appears; its
    steps' edges are merged). An edge is a transition to a known step, or the edge a rework
    takes once exhausted; each step's successors are listed once, in the order of its `next`."""

    ids: list[str]
    number: dict[str, int]
    succ: list[tuple[int, ...]]  # every edge
    plain: list[tuple[int, ...]]  # without the counted rework edges (their exhaustion edges kept)
    ends: bytearray  # 1 for a step some outcome of which ends the run


# The graph is built of tuples made one step at a time, never of one list per step kept until
# the end: Python's full garbage collection scans every container of the heap, the whole
# workflow included, and runs again each time the containers that outlived the young
# collections reach a quarter of the heap. At 50,000 steps, lists kept for the whole build set
# off several such scans; a tuple of ints leaves the collector's care at its first collection.


def step_graph(wf: Workflow) -> StepGraph:
    number: dict[str, int] = {}
    for step in wf.steps:
        number.setdefault(step.id, len(number))
    succ: list[tuple[int, ...]] = [()] * len(number)
    plain: list[tuple[int, ...]] = [()] * len(number)
    ends = bytearray(len(number))
    for step in wf.steps:
        at = number[step.id]
        every, kept, ends[at] = _edges(step.next.values(), number, ends[at])
        if succ[at] or plain[at]:  # a duplicated id: its steps' edges merge
            every, kept = succ[at] + every, plain[at] + kept
        succ[at] = tuple(dict.fromkeys(every)) if len(every) > 1 else every
        plain[at] = tuple(dict.fromkeys(kept)) if len(kept) > 1 else kept
    return StepGraph(list(number), number, succ, plain, ends)


def _edges(targets: Iterable[Target], number: Mapping[str, int],
           ends: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The known steps `targets` lead to: every edge, and those that are not counted reworks;
    and `ends`, set to 1 when a target ends the run."""
    every: list[int] = []
    kept: list[int] = []
    for target in targets:
        if isinstance(target, str):
            end = number.get(target)
            if end is not None:
                every.append(end)
                kept.append(end)
        elif isinstance(target, Rework):  # its target, then where it goes once exhausted
            end = number.get(target.target)
            if end is not None:
                every.append(end)
            end = number.get(target.on_exhausted)
            if end is not None:
                every.append(end)
                kept.append(end)
        elif target is None:
            ends = 1
    return tuple(every), tuple(kept), ends


def reverse_of(succ: Lists) -> list[tuple[int, ...]]:
    """Predecessors of each step. Counted into one flat list first (see above on lists)."""
    start = [0] * (len(succ) + 1)
    for nexts in succ:
        for nxt in nexts:
            start[nxt + 1] += 1
    for node in range(len(succ)):
        start[node + 1] += start[node]
    flat = [0] * start[-1]
    fill = start[:-1]
    for node, nexts in enumerate(succ):
        for nxt in nexts:
            flat[fill[nxt]] = node
            fill[nxt] += 1
    return [tuple(flat[start[node]:start[node + 1]]) for node in range(len(succ))]


def reach(succ: Lists, starts: Iterable[int]) -> bytearray:
    """A mark (1) for each step reachable from `starts`, the starts included."""
    seen = bytearray(len(succ))
    queue = deque(starts)
    for node in queue:
        seen[node] = 1
    while queue:
        for nxt in succ[queue.popleft()]:
            if not seen[nxt]:
                seen[nxt] = 1
                queue.append(nxt)
    return seen


def topological(succ: Lists) -> list[int] | None:
    """Every node, each after all that lead to it (Kahn's algorithm), or None when the graph
    has a cycle."""
    waiting = [0] * len(succ)  # how many edges into each node are not yet passed
    for nexts in succ:
        for nxt in nexts:
            waiting[nxt] += 1
    order = [node for node, count in enumerate(waiting) if not count]
    for node in order:  # `order` grows as the loop runs
        for nxt in succ[node]:
            waiting[nxt] -= 1
            if not waiting[nxt]:
                order.append(nxt)
    return order if len(order) == len(succ) else None
