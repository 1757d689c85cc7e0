"""Memory dataflow: the keys some path to a step leaves unwritten (W011 reports those it reads).

A forward analysis, kept linear in steps and moves: the strongly connected parts of the graph are
visited in topological order, so a step's value is final once its part is done and is passed on
once; only inside a loop are steps visited again, each at most once per key its value gains. A
value is a set of keys held as the bits of one int (bit i: the i-th key), so passing it along a
move and merging two are each one int operation, run in C a machine word of keys at a time.

A rework's exhausted move (`Rework(target, n, on_exhausted)`, n of 2 or more) is taken only
once the loop went round at least once: what it passes on is what the step holds on arriving
from inside its loop, so a value every pass of the loop writes counts as written there."""

from collections import deque
from collections.abc import Collection, Iterator, Mapping, Sequence

from .index import StepGraph, step_graph
from .model import Rework, Workflow
from .scc import components_of, part_of

#: Where a run moves from each step (by number): each step it may reach, with the bit numbers
#: of the keys the move certainly writes (positions, not a mask: a high key's mask is large),
#: and whether the move is taken only after the loop went round (an exhausted rework).
#: Tuples, for the garbage collector (see index.py).
Moves = Sequence[tuple[tuple[int, tuple[int, ...], bool], ...]]


def unwritten(wf: Workflow, graph: StepGraph, keys: Sequence[str],
              parts: Sequence[tuple[int, ...]]) -> Iterator[tuple[int, int]]:
    """Each step reachable from the entry, once, by number, with the bits of the `keys` (bit i:
    keys[i]) that some path to it leaves unwritten. `parts` are the strongly connected
    components of `graph.succ`, sinks first, as `components_of` returns them."""
    entry = graph.number.get(wf.entry)
    if entry is None:
        return
    moves = _moves(wf, graph, {key: i for i, key in enumerate(keys)})
    loop_of = part_of(parts, len(graph.ids))
    value = {entry: (1 << len(keys)) - 1}  # the empty path has written nothing
    looped: dict[int, int] = {}  # what a step holds on arriving from inside its loop
    for part in reversed(parts):
        if len(part) > 1 or any(t == part[0] for t, _, _ in moves[part[0]]):
            _settle(part, moves, value, looped, loop_of)
        here = loop_of[part[0]]
        for node in part:
            got = value.pop(node, None)  # final now, and no longer needed once passed on
            if got is None:
                continue  # no path from the entry reaches it
            for target, writes, after_loop in moves[node]:
                if loop_of[target] != here:
                    source = looped.get(node) if after_loop else got
                    if source is None:
                        continue  # the loop never goes round: its cap is never reached
                    passed = _without(source, writes) if writes else source
                    old = value.get(target)
                    value[target] = passed if old is None else old | passed
            looped.pop(node, None)
            yield node, got


def _settle(part: tuple[int, ...], moves: Moves, value: dict[int, int],
            looped: dict[int, int], loop_of: Sequence[int]) -> None:
    """Pass values round one loop until none grows, keeping apart what each step holds on
    arriving from inside the loop (`looped`). A value only gains bits, so a step is queued
    again at most twice per key."""
    here = loop_of[part[0]]
    queue = deque(node for node in part if node in value)
    queued = set(queue)
    while queue:
        node = queue.popleft()
        queued.discard(node)
        for target, writes, after_loop in moves[node]:
            if loop_of[target] != here:
                continue
            source = looped.get(node) if after_loop else value.get(node)
            if source is None:
                continue  # an exhausted move before the loop went round: not yet
            came = _without(source, writes)
            old, old_looped = value.get(target), looped.get(target)
            new, new_looped = came | (old or 0), came | (old_looped or 0)
            if new != old or new_looped != old_looped:
                value[target], looped[target] = new, new_looped
                if target not in queued:
                    queued.add(target)
                    queue.append(target)


def _without(bits: int, writes: tuple[int, ...]) -> int:
    for i in writes:
        bits &= ~(1 << i)
    return bits


def _moves(wf: Workflow, graph: StepGraph, bit: Mapping[str, int]) -> Moves:
    """Every move to a known step (a rework outcome moves to its target, or once exhausted to
    on_exhausted, writing the same keys: the latter only after the loop went round when its
    cap lets it round at all), with the tracked keys it certainly writes. Built a
    step at a time, as tuples (see index.py on the garbage collector)."""
    number = graph.number
    moves: list[tuple[tuple[int, tuple[int, ...], bool], ...]] = [()] * len(graph.ids)
    for step in wf.steps:
        found: list[tuple[int, tuple[int, ...], bool]] = []
        # Most steps write nothing, and most writers write the same keys on every outcome.
        writes: tuple[int, ...] | None = None if step.args or step.verify else ()
        varies = any(arg.outcomes for arg in step.args)
        for outcome, target in step.next.items():
            if writes is None or varies:
                writes = tuple(bit[k] for k in step.written_on(outcome) if k in bit)
            if isinstance(target, Rework):
                if target.target in number:
                    found.append((number[target.target], writes, False))
                if target.on_exhausted in number:
                    found.append((number[target.on_exhausted], writes,
                                  target.max_iterations >= 2))
            elif target in number:
                found.append((number[target], writes, False))
        moves[number[step.id]] += tuple(found)  # a duplicated id: its steps' moves add up
    return moves


def unwritten_reads(wf: Workflow, graph: StepGraph, parts: Sequence[tuple[int, ...]],
                    written: Collection[str]) -> dict[str, set[str]]:
    """The steps reachable from the entry that read a key some path to them has not written,
    with those keys. Only the keys of `written` (those some step writes) are tracked."""
    keys = list(dict.fromkeys(k for s in wf.steps for k in s.reads if k in written))
    if not keys:
        return {}  # no step reads a key some step writes: no path can miss one
    bit = {key: i for i, key in enumerate(keys)}
    reads: dict[int, list[str]] = {}  # only the steps that read a tracked key
    for step in wf.steps:
        mine = [key for key in step.reads if key in bit]
        if mine:
            reads.setdefault(graph.number[step.id], []).extend(mine)
    found: dict[str, set[str]] = {}
    for node, got in unwritten(wf, graph, keys, parts):
        if node in reads:
            missing = {key for key in reads[node] if got >> bit[key] & 1}
            if missing:
                found[graph.ids[node]] = missing
    return found


def definitely_written(wf: Workflow) -> dict[str, set[str]]:
    """For each step reachable from the entry, the memory keys every path to it has written
    (only required args count, since optional ones may be absent)."""
    graph = step_graph(wf)
    every = list(dict.fromkeys(key for step in wf.steps for key in step.writes))
    found = {graph.ids[node]: {key for i, key in enumerate(every) if not got >> i & 1}
             for node, got in unwritten(wf, graph, every, components_of(graph.succ))}
    found.setdefault(wf.entry, set())  # as before: the entry, a step or not, has nothing
    return found
