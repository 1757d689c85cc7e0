"""The combinatorial half of the built-in layered (Sugiyama-style) layout: ranks, the chains of
dummy vertices that carry edges across ranks, and the order of the vertices within each band.

Nodes sit on even bands (twice their rank); every edge passes through the odd bands between its
ends, one dummy vertex per band, and its first dummy carries its label. An edge between nodes of
one rank (a self-loop too) dips into the odd band below them and comes back. So no two things
ever share a place: the geometry (`layout`) only spaces each band out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import NamedTuple

from .diagram import END, Arc, Diagram, Node


class Vertex(NamedTuple):
    band: int
    width: float
    height: float
    key: str = ""  # the node's key; '' for a dummy


class Chain(NamedTuple):
    arc: Arc
    path: tuple[int, ...]  # vertex indexes: source, dummies (path[1] has the label), target


def ranks(keys: Sequence[str], arcs: Sequence[Arc]) -> dict[str, int]:
    """Each node's rank: the longest path to it over the arcs that are not rework, once the
    arcs that close a cycle on a depth-first walk (in node order) are left out. The end is
    ranked below every step."""
    out: dict[str, list[str]] = {k: [] for k in keys}
    for arc in arcs:
        if arc.kind != "rework" and arc.source != arc.target:
            out[arc.source].append(arc.target)
    state: dict[str, bool] = {}  # True while on the walk's path, False when done
    kept: dict[str, list[str]] = {k: [] for k in keys}
    finished: list[str] = []
    for root in keys:
        if root in state:
            continue
        state[root] = True
        stack = [(root, iter(out[root]))]
        while stack:
            node, todo = stack[-1]
            target = next(todo, None)
            if target is None:
                state[node] = False
                finished.append(node)
                stack.pop()
            elif not state.get(target, False):  # an arc back onto the path closes a cycle
                kept[node].append(target)
                if target not in state:
                    state[target] = True
                    stack.append((target, iter(out[target])))
    rank = dict.fromkeys(keys, 0)
    for node in reversed(finished):  # every kept arc goes from earlier to later here
        for target in kept[node]:
            rank[target] = max(rank[target], rank[node] + 1)
    if END in rank:
        rank[END] = 1 + max((r for k, r in rank.items() if k != END), default=-1)
    return rank


def chains(d: Diagram, node_size: Callable[[Node], tuple[float, float]],
           label_size: Callable[[str], tuple[float, float]],
           slot: float) -> tuple[list[Vertex], list[Chain]]:
    """The vertices (the nodes first, in order, then the dummies) and one chain per arc. A
    dummy without a label is `slot` wide: room for the line alone."""
    rank = ranks([n.key for n in d.nodes], d.arcs)
    vertices = [Vertex(2 * rank[n.key], *node_size(n), key=n.key) for n in d.nodes]
    index = {n.key: i for i, n in enumerate(d.nodes)}
    found = []
    for arc in d.arcs:
        start, end = 2 * rank[arc.source], 2 * rank[arc.target]
        step = 1 if end >= start else -1
        bands = [start + 1] if start == end else list(range(start + step, end, step))
        path = [index[arc.source]]
        for n, band in enumerate(bands):
            width, height = label_size(arc.label) if n == 0 else (slot, 0.0)
            path.append(len(vertices))
            vertices.append(Vertex(band, width, height))
        path.append(index[arc.target])
        found.append(Chain(arc, tuple(path)))
    return vertices, found


def neighbours(count: int, found: Sequence[Chain]) -> list[list[int]]:
    """For each vertex, the vertices next to it on some chain (once per chain step)."""
    near: list[list[int]] = [[] for _ in range(count)]
    for chain in found:
        for a, b in pairwise(chain.path):
            near[a].append(b)
            near[b].append(a)
    return near


def order(vertices: Sequence[Vertex], near: Sequence[Sequence[int]],
          sweeps: int = 12) -> list[list[int]]:
    """The vertices of each band, left to right: barycentre sweeps down and up the bands,
    keeping the order with the fewest crossings."""
    bands: list[list[int]] = [[] for _ in range(1 + max(v.band for v in vertices))]
    for i, vertex in enumerate(vertices):
        bands[vertex.band].append(i)
    best, fewest = [list(b) for b in bands], _crossings(bands, vertices, near)
    for sweep in range(sweeps):
        downward = sweep % 2 == 0
        for b in range(1, len(bands)) if downward else range(len(bands) - 2, -1, -1):
            side = b - 1 if downward else b + 1
            place = {v: i for i, v in enumerate(bands[side])}

            def centre(item: tuple[int, int], side: int = side,
                       place: dict[int, int] = place) -> tuple[float, int]:
                i, v = item
                seen = [place[n] for n in near[v] if vertices[n].band == side]
                return (sum(seen) / len(seen) if seen else float(i), i)

            bands[b] = [v for _, v in sorted(enumerate(bands[b]), key=centre)]
        count = _crossings(bands, vertices, near)
        if count < fewest:
            best, fewest = [list(b) for b in bands], count
    return best


def _crossings(bands: Sequence[Sequence[int]], vertices: Sequence[Vertex],
               near: Sequence[Sequence[int]]) -> int:
    """How many pairs of links between adjacent bands cross."""
    place = {v: i for band in bands for i, v in enumerate(band)}
    total = 0
    for band in bands[:-1]:
        links = [(place[v], place[n]) for v in band for n in near[v]
                 if vertices[n].band == vertices[v].band + 1]
        total += sum(1 for i, (a, b) in enumerate(links) for c, e in links[i + 1:]
                     if (a - c) * (b - e) < 0)
    return total
