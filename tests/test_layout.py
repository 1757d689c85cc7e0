"""The pictures: the built-in layered layout's geometry over random workflow graphs (every node
placed, nothing on top of a node, every edge from its source's box to its target's), its SVG
(well-formed whatever the titles hold, styled by kind), and dot's SVG, normalised."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skills.lib.workflow import StepDef, Workflow
from skills.lib.workflow.graph.diagram import Diagram, diagram
from skills.lib.workflow.graph.layout import Box, Point, layout
from skills.lib.workflow.graph.svg import SVG_NS, drawn, through_dot

from .strategies import texts, workflows
from .test_diagram import HOSTILE
from .test_skills import WORKFLOWS

SVG = "{http://www.w3.org/2000/svg}"
DOT = shutil.which("dot")
EPSILON = 0.01


def overlap(a: Box, b: Box) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def on_border(p: Point, box: Box) -> bool:
    """`p` lies on the top or bottom side of `box`, where edges leave and arrive."""
    return (box.x - EPSILON <= p.x <= box.right + EPSILON
            and min(abs(p.y - box.y), abs(p.y - box.bottom)) < EPSILON)


def enters(a: Point, b: Point, box: Box) -> bool:
    """Whether segment a-b passes through the inside of `box` (Liang-Barsky clipping)."""
    low, high = 0.0, 1.0
    dx, dy = b.x - a.x, b.y - a.y
    for step, room in ((-dx, a.x - box.x - EPSILON), (dx, box.right - EPSILON - a.x),
                       (-dy, a.y - box.y - EPSILON), (dy, box.bottom - EPSILON - a.y)):
        if step == 0:
            if room < 0:
                return False
        elif step < 0:
            low = max(low, room / step)
        else:
            high = min(high, room / step)
    return low < high


def check_geometry(d: Diagram) -> None:
    lay = layout(d)
    assert set(lay.boxes) == {n.key for n in d.nodes}, "every node is placed"
    labels = [r.label for r in lay.routes]
    for a, b in combinations([*lay.boxes.values(), *labels], 2):
        assert not overlap(a, b), (a, b)
    assert [r.arc for r in lay.routes] == list(d.arcs)
    for route in lay.routes:
        first, last = route.points[0], route.points[-1]
        assert on_border(first, lay.boxes[route.arc.source]), route
        assert on_border(last, lay.boxes[route.arc.target]), route
        for a, b in pairwise(route.points):
            assert not any(enters(a, b, box) for box in lay.boxes.values()), (route, a, b)
    for box in [*lay.boxes.values(), *labels]:
        assert min(box.x, box.y) >= 0 and box.right <= lay.width and box.bottom <= lay.height


@pytest.mark.slow  # hundreds of generated graphs
@settings(max_examples=300, deadline=None)
@given(workflows(max_steps=9, dangling=False))
def test_the_layout_places_every_node_apart_and_every_edge_between_its_boxes(
        wf: Workflow) -> None:
    """Random graphs (cycles of plain edges, self-loops, rework and exhaustion edges): each
    node has a box, no two boxes or labels overlap, each edge starts on its source's box and
    ends on its target's, and no line runs through a node."""
    check_geometry(diagram(wf))


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_the_layout_of_every_shipped_workflow_holds_too(name: str) -> None:
    check_geometry(diagram(WORKFLOWS[name]))


def parsed(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def groups(root: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in root.iter(SVG + "g") if kind in g.get("class", "").split()]


def hostile(titles: list[str]) -> Workflow:
    steps = [StepDef(f"s{n}", title, next={"ok": f"s{n + 1}" if n + 1 < len(titles) else None})
             for n, title in enumerate(titles)]
    return Workflow("hostile-titles", steps)


@settings(max_examples=200, deadline=None)
@given(st.lists(texts(), min_size=1, max_size=4))
def test_the_drawing_is_well_formed_whatever_the_titles_hold(titles: list[str]) -> None:
    """Markup, controls, surrogates and line breaks in titles: the SVG parses, and each step's
    node says its id."""
    root = parsed(drawn(diagram(hostile(titles))))
    steps = [g for g in groups(root, "node") if "end" not in g.get("class", "")]
    assert ["".join(g.itertext()).split(":")[0].strip() for g in steps] == [
        f"s{n}" for n in range(len(titles))]


def test_kinds_are_styled_apart() -> None:
    """Each node's class is its kind, ask, decision and review filled as Mermaid has them;
    rework edges are dashed and exhaustion edges bold."""
    wf = WORKFLOWS["planner"]
    root = parsed(drawn(diagram(wf)))
    kinds = {n.step: n.kind for n in diagram(wf).nodes if n.step}
    nodes = {g.get("data-step"): g for g in groups(root, "node") if g.get("data-step")}
    assert {step: g.get("class") for step, g in nodes.items()} == {
        step: f"node {kind}" for step, kind in kinds.items()}
    fills = {kind: {list(nodes[s])[1].get("fill") for s, k in kinds.items() if k == kind}
             for kind in ("ask", "decision", "review", "step")}
    assert fills == {"ask": {"#fff3cd"}, "decision": {"#e7f0ff"}, "review": {"#eaf7ea"},
                     "step": {"#ffffff"}}
    lines = {kind: {g.find(SVG + "polyline").get("stroke-dasharray")  # type: ignore[union-attr]
                    for g in groups(root, kind)} for kind in ("plain", "rework", "exhausted")}
    assert lines == {"plain": {None}, "rework": {"6 4"}, "exhausted": {None}}
    widths = {g.find(SVG + "polyline").get("stroke-width")  # type: ignore[union-attr]
              for g in groups(root, "exhausted")}
    assert widths == {"2.6"}


def test_the_drawing_loads_nothing() -> None:
    """No element or attribute that could fetch or run anything."""
    svg = drawn(diagram(WORKFLOWS["planner"]))
    for word in ("href", "url(", "<image", "<script", "@import", "<foreignObject", "<a "):
        assert word not in svg


@pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed")
class TestThroughDot:
    def test_dots_svg_is_normalised_and_the_same_each_time(self) -> None:
        """No version comment, doctype or ids (a page holds several); marked as dot's; one
        node per step, classed by kind, with its label."""
        assert DOT is not None
        first, second = through_dot(HOSTILE, DOT), through_dot(HOSTILE, DOT)
        assert first == second
        assert "<!--" not in first and "DOCTYPE" not in first and ' id="' not in first
        root = parsed(first)
        assert root.get("data-renderer") == "dot"
        nodes = groups(root, "node")
        assert [g.get("class") for g in nodes] == ["node decision", "node ask", "node end",
                                                   "node step"]
        # The label's lines are <text> elements of their own: the id, then the title.
        assert [t.text for t in nodes[3].iter(f"{{{SVG_NS}}}text")] == ["start:",
                                                                       'Say "hi" <b> & go']

    @settings(max_examples=25, deadline=None)
    @given(st.lists(texts(), min_size=1, max_size=3))
    def test_dots_svg_is_well_formed_whatever_the_titles_hold(self, titles: list[str]) -> None:
        assert DOT is not None
        root = parsed(through_dot(hostile(titles), DOT))
        assert len([g for g in groups(root, "node") if "end" not in g.get("class", "")]) == len(
            titles)
