"""The built-in layered layout's geometry: where each node's box goes, each edge's polyline and
each label, for a diagram drawn without Graphviz (`svg`). `layers` ranks and orders; here each
band is spaced out and the vertices are pulled towards their neighbours, and the edges are
routed through their dummies' slots.

Texts are measured by estimate (no font is at hand): a generous width per character, double for
wide East Asian characters, none for combining marks.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

from .diagram import Arc, Diagram, Node, plain
from .layers import Chain, Vertex, chains, neighbours, order

NODE_FONT, LABEL_FONT, TITLE_FONT = 12.0, 10.0, 14.0
NODE_HEIGHT, LABEL_HEIGHT = 34.0, 14.0
SLOT = 10.0  # room for an edge's line through a band; its label starts after it
GAP, BAND_GAP, MARGIN = 18.0, 14.0, 12.0
TITLE_HEIGHT = 26.0
#: How far the pointed ends of a kind's shape reach in from its box's sides.
BEVEL = {"decision": NODE_HEIGHT / 2, "ask": 10.0, "review": NODE_HEIGHT / 2}


class Point(NamedTuple):
    x: float
    y: float


class Box(NamedTuple):
    x: float  # left
    y: float  # top
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h


class Route(NamedTuple):
    arc: Arc
    points: tuple[Point, ...]  # from the source's box to the target's, as drawn
    label: Box  # where the arc's label is written


class Layout(NamedTuple):
    width: float
    height: float
    boxes: dict[str, Box]  # node key -> its box
    routes: tuple[Route, ...]  # in the diagram's arc order


def text_width(text: str, size: float) -> float:
    """An estimate, on the wide side, of `text`'s width at font `size` in a sans-serif font."""
    units = 0.0
    for c in plain(text):
        if unicodedata.combining(c):
            continue
        units += 1.0 if unicodedata.east_asian_width(c) in "WF" else 0.62
    return units * size


def node_size(node: Node) -> tuple[float, float]:
    """A node's box: its label plus padding, with room for its shape's pointed ends."""
    if node.kind == "end":
        return NODE_HEIGHT * 1.4, NODE_HEIGHT
    pad = BEVEL.get(node.kind, 0.0) + 10.0
    return text_width(node.label, NODE_FONT) + 2 * pad, NODE_HEIGHT


def label_size(label: str) -> tuple[float, float]:
    return SLOT + text_width(label, LABEL_FONT) + 4.0, LABEL_HEIGHT


def layout(d: Diagram) -> Layout:
    """Boxes for every node, a polyline and a label box for every arc."""
    vertices, found = chains(d, node_size, label_size, SLOT)
    near = neighbours(len(vertices), found)
    bands = order(vertices, near)
    centres = _place(vertices, bands, near)
    left = min(centres[v] - vertices[v].width / 2 for v in range(len(vertices)))
    centres = [c - left + MARGIN for c in centres]
    heights = [max((vertices[v].height for v in band), default=0.0) for band in bands]
    tops, y = [], MARGIN + TITLE_HEIGHT
    for height in heights:
        tops.append(y)
        y += height + BAND_GAP
    boxes = [Box(centres[i] - v.width / 2, tops[v.band] + (heights[v.band] - v.height) / 2,
                 v.width, v.height) for i, v in enumerate(vertices)]
    routes = _routes(d, vertices, found, boxes, heights)
    width = max(max(b.right for b in boxes), MARGIN + text_width(d.title, TITLE_FONT)) + MARGIN
    return Layout(width, y - BAND_GAP + MARGIN, {v.key: boxes[i] for i, v in enumerate(vertices)
                                                 if v.key}, routes)


def _place(vertices: Sequence[Vertex], bands: Sequence[Sequence[int]],
           near: Sequence[Sequence[int]], rounds: int = 24) -> list[float]:
    """Each vertex's centre: bands packed left to right, then, band after band, each moved as
    near the mean of its neighbours as the order and the gaps allow (least squares). What is
    lined up is where edges pass: a node's centre, a dummy's slot."""
    x = [0.0] * len(vertices)
    line = [0.0 if v.key else SLOT / 2 - v.width / 2 for v in vertices]  # from the centre
    for band in bands:
        edge = 0.0
        for v in band:
            x[v] = edge + vertices[v].width / 2
            edge += vertices[v].width + GAP
    for _ in range(rounds):
        for band in bands:
            wanted = [sum(x[n] + line[n] for n in near[v]) / len(near[v]) - line[v]
                      if near[v] else x[v] for v in band]
            weights = [float(len(near[v])) or 1e-3 for v in band]
            for v, at in zip(band, _fit(wanted, weights, [vertices[v].width for v in band]),
                             strict=True):
                x[v] = at
    return x


def _fit(wanted: Sequence[float], weights: Sequence[float],
         widths: Sequence[float]) -> list[float]:
    """Centres in the given order, each at least the gap apart from the next, as near the
    wanted ones as weighted least squares allows: pool adjacent violators over the centres
    less their packed offsets."""
    offsets = [0.0]
    for a, b in pairwise(widths):
        offsets.append(offsets[-1] + (a + b) / 2 + GAP)
    blocks: list[list[float]] = []  # [weight, weighted sum, count]
    for want, weight, offset in zip(wanted, weights, offsets, strict=True):
        blocks.append([weight, weight * (want - offset), 1])
        while len(blocks) > 1 and (blocks[-2][1] / blocks[-2][0] > blocks[-1][1] / blocks[-1][0]):
            weight2, total, count = blocks.pop()
            blocks[-1][0] += weight2
            blocks[-1][1] += total
            blocks[-1][2] += count
    shifted = [block[1] / block[0] for block in blocks for _ in range(int(block[2]))]
    return [s + offset for s, offset in zip(shifted, offsets, strict=True)]


def _routes(d: Diagram, vertices: Sequence[Vertex], found: Sequence[Chain],
            boxes: Sequence[Box], heights: Sequence[float]) -> tuple[Route, ...]:
    kinds = {n.key: n.kind for n in d.nodes}
    # Each chain's ends, per node and side (below or above), ordered by where their first
    # dummy is, so that ports do not cross; every chain has a dummy next to each end.
    ends: dict[tuple[int, bool], list[tuple[float, int, int]]] = {}
    for c, chain in enumerate(found):
        for end, (node, beside) in enumerate(((chain.path[0], chain.path[1]),
                                              (chain.path[-1], chain.path[-2]))):
            below = vertices[beside].band > vertices[node].band
            ends.setdefault((node, below), []).append((boxes[beside].x, c, end))
    ports: dict[tuple[int, int], Point] = {}
    for (node, below), items in ends.items():
        box = boxes[node]
        kind = kinds[vertices[node].key]
        # Ports keep off a shape's pointed or rounded ends, and near the top of the end's oval.
        span = box.w * 0.3 if kind == "end" else box.w - 2 * BEVEL.get(kind, box.w * 0.2)
        for i, (_, c, end) in enumerate(sorted(items)):
            x = box.x + box.w / 2 + span * ((i + 0.5) / len(items) - 0.5)
            ports[c, end] = Point(x, box.bottom if below else box.y)
    routes = []
    for c, chain in enumerate(found):
        points = [ports[c, 0]]
        for before, v, after in zip(chain.path, chain.path[1:-1], chain.path[2:], strict=False):
            box, band = boxes[v], vertices[v].band
            top = box.y + box.h / 2 - heights[band] / 2
            x, low = box.x + SLOT / 2, top + heights[band]
            if vertices[before].band == vertices[after].band:  # dips into the band and back
                points.append(Point(x, (top + low) / 2))
            elif vertices[after].band > band:
                points += [Point(x, top), Point(x, low)]
            else:
                points += [Point(x, low), Point(x, top)]
        points.append(ports[c, 1])
        box = boxes[chain.path[1]]
        label = Box(box.x + SLOT, box.y, box.w - SLOT, box.h)
        routes.append(Route(chain.arc, tuple(points), label))
    return tuple(routes)

