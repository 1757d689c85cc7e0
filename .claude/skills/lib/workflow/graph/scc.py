"""Strongly connected components of a numbered graph (index.py), and a cycle through one.

Tarjan's algorithm, iterative (an explicit stack), so a chain of 50,000 steps cannot reach the
recursion limit. It is linear in nodes and edges, and emits each component after every component
it leads to: reversed, the components are in topological order, which the dataflow relies on."""

from collections import deque
from collections.abc import Sequence

from .index import Lists


def components_of(succ: Lists) -> list[tuple[int, ...]]:
    """The components, sinks first; each lists its nodes in the order the search found them.
    The search starts from nodes 0, 1, ... in turn."""
    # The search's position in each node's successors is an int per node rather than an
    # iterator on the stack: a chain of 50,000 steps would keep 50,000 iterators alive, and
    # the garbage collector would scan the whole heap for them (see index.py).
    index = [-1] * len(succ)
    low = [0] * len(succ)
    done = [0] * len(succ)  # how many of its successors the search has looked at
    on_stack = bytearray(len(succ))
    stack: list[int] = []
    found: list[tuple[int, ...]] = []
    count = 0
    for root in range(len(succ)):
        if index[root] >= 0:
            continue
        work = [root]
        index[root] = low[root] = count
        count += 1
        stack.append(root)
        on_stack[root] = 1
        while work:
            node = work[-1]
            child = _next_new(node, succ[node], done, index, low, on_stack)
            if child >= 0:  # descend; `node` resumes where it stopped
                index[child] = low[child] = count
                count += 1
                stack.append(child)
                on_stack[child] = 1
                work.append(child)
                continue
            work.pop()
            if work and low[node] < low[work[-1]]:
                low[work[-1]] = low[node]
            if low[node] == index[node]:
                found.append(_pop_component(node, stack, on_stack))
    return found


def _next_new(node: int, children: Sequence[int], done: list[int], index: list[int],
              low: list[int], on_stack: bytearray) -> int:
    """The next child of `node` the search has not met (-1: none is left), lowering `low[node]`
    for each child on the stack passed on the way."""
    for at in range(done[node], len(children)):
        child = children[at]
        if index[child] < 0:
            done[node] = at + 1
            return child
        if on_stack[child] and index[child] < low[node]:
            low[node] = index[child]
    done[node] = len(children)
    return -1


def _pop_component(root: int, stack: list[int], on_stack: bytearray) -> tuple[int, ...]:
    at = len(stack) - 1
    while stack[at] != root:
        at -= 1
    component = tuple(stack[at:])  # a tuple: see index.py on the garbage collector
    del stack[at:]
    for node in component:
        on_stack[node] = 0
    return component


def part_of(parts: Sequence[Sequence[int]], count: int) -> list[int]:
    """For each of the `count` nodes, the number of its component in `parts`."""
    found = [0] * count
    for i, part in enumerate(parts):
        for node in part:
            found[node] = i
    return found


def is_cycle(component: Sequence[int], succ: Lists) -> bool:
    """A component holds a cycle: more than one node, or a node with an edge to itself."""
    return len(component) > 1 or component[0] in succ[component[0]]


def cycle_through(component: Sequence[int], succ: Lists) -> list[int]:
    """A real cycle inside a strongly connected `component`, starting and ending at its first
    node (the shortest such, found breadth-first), for messages that show a path."""
    start, members = component[0], set(component)
    came_from: dict[int, int] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in succ[node]:
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if nxt in members and nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    return [start]
