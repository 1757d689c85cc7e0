"""Workflow diagrams as SVG pictures: through Graphviz's `dot` when it is on PATH, else drawn
from the built-in layered layout (`layout`), which needs nothing installed.

Either picture is self-contained (no fonts, scripts or links to fetch) and marks its renderer
(`data-renderer`), each step node (`g.node`, with its kind as a class: step, decision, ask,
review, end) and each edge (`g.edge`, with plain, rework or exhausted). dot's output is
normalised: its version comment, doctype and element ids go, so it is the same run after run
and can sit several to a page.
"""

from __future__ import annotations

import html
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterable

from ..base.errors import SkillrailError
from .diagram import COLOURS, Diagram, Node, diagram, plain, to_dot
from .layout import BEVEL, LABEL_FONT, MARGIN, NODE_FONT, TITLE_FONT, Box, Layout, Point, layout
from .model import Workflow

SVG_NS = "http://www.w3.org/2000/svg"
DOT_SECONDS = 30
INK = "#333333"
#: The hover text of each node kind, as the diagram's legend would say it.
KINDS = {"step": "the agent's step", "decision": "decided by a script",
         "ask": "asks the user", "review": "a review", "end": "the run ends"}
EDGE_STYLE = {"plain": 'stroke-width="1.2"', "rework": 'stroke-width="1.2" stroke-dasharray="6 4"',
              "exhausted": 'stroke-width="2.6"'}


def to_svg(wf: Workflow) -> str:
    """The workflow's picture: through Graphviz's `dot` when it is on PATH, else drawn by the
    built-in layout."""
    dot = shutil.which("dot")
    return through_dot(wf, dot) if dot else drawn(diagram(wf))


def through_dot(wf: Workflow, dot: str) -> str:
    """`dot -Tsvg` of the workflow's DOT text (no shell, a time limit), normalised."""
    where = f"workflow '{wf.name}'"
    fix = "Check that `dot -V` works, or take dot off PATH to use the built-in layout"
    try:
        done = subprocess.run([dot, "-Tsvg"], input=to_dot(wf).encode(), capture_output=True,
                              timeout=DOT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise SkillrailError(f"dot took more than {DOT_SECONDS}s", where, fix) from None
    except OSError as exc:
        raise SkillrailError(f"cannot run {dot}: {exc.strerror}", where, fix) from None
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
        raise SkillrailError(f"dot failed: {said[0][:200]}", where, fix)
    return _normalised(done.stdout.decode(errors="replace"), where)


def _normalised(text: str, where: str) -> str:
    """dot's SVG from its root element on, without comments or ids, marked as dot's."""
    start = text.find("<svg")
    svg = re.sub(r"<!--.*?-->", "", text[max(start, 0):], flags=re.DOTALL)
    svg = re.sub(r'(<[a-z]+) id="[^"]*"', r"\1", svg)
    svg = svg.replace("<svg", '<svg data-renderer="dot"', 1)
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        raise SkillrailError(f"dot wrote no well-formed SVG: {exc}", where,
                             "Report this as a bug, with the output of --format dot") from None
    if root.tag != f"{{{SVG_NS}}}svg":
        raise SkillrailError("dot wrote no SVG", where, "Report this as a bug")
    return svg.strip() + "\n"


def drawn(d: Diagram) -> str:
    """The diagram drawn from the built-in layout, as a standalone SVG document."""
    lay = layout(d)
    title = _text(d.title)
    parts = [f'<svg xmlns="{SVG_NS}" data-renderer="skillrail" width="{lay.width:.0f}" '
             f'height="{lay.height:.0f}" viewBox="0 0 {lay.width:.1f} {lay.height:.1f}" '
             f'font-family="Helvetica, Arial, sans-serif" role="img" aria-label="{title}">',
             f"<title>{title}</title>",
             f'<rect width="{lay.width:.1f}" height="{lay.height:.1f}" fill="#ffffff"/>',
             f'<text x="{MARGIN:.1f}" y="{MARGIN + TITLE_FONT:.1f}" font-size="{TITLE_FONT:.0f}" '
             f'font-weight="bold" fill="{INK}">{title}</text>']
    by_key = {n.key: n for n in d.nodes}
    parts += [_edge(lay, i, by_key) for i in range(len(lay.routes))]
    parts += [_node(n, lay.boxes[n.key]) for n in d.nodes]
    # Labels last, each on a white halo: readable where another edge's line crosses it.
    parts += ['<g class="labels">', *(_label(r.arc.label, r.label) for r in lay.routes), "</g>"]
    return "\n".join([*parts, "</svg>"]) + "\n"


def _node(node: Node, box: Box) -> str:
    fill, stroke = COLOURS.get(node.kind, ("#ffffff", INK))
    paint = f'fill="{fill}" stroke="{stroke}" stroke-width="1.2"'
    cx, cy = box.x + box.w / 2, box.y + box.h / 2
    if node.kind == "end":
        shape = (f'<ellipse cx="{cx:.1f}" cy="{cy:.1f}" rx="{box.w / 2:.1f}" '
                 f'ry="{box.h / 2:.1f}" {paint}/><ellipse cx="{cx:.1f}" cy="{cy:.1f}" '
                 f'rx="{box.w / 2 - 3:.1f}" ry="{box.h / 2 - 3:.1f}" fill="none" '
                 f'stroke="{stroke}"/>')
        text = "end"
    else:
        shape = _outline(node.kind, box, paint)
        rest = node.label[len(node.step):]
        text = f'<tspan font-weight="bold">{_text(node.step)}</tspan>{_text(rest)}'
    hover = _text(f"{node.step or 'end'}: {KINDS[node.kind]}")
    return (f'<g class="node {node.kind}" data-step="{_text(node.step)}"><title>{hover}</title>'
            f'{shape}<text x="{cx:.1f}" y="{cy + NODE_FONT * 0.35:.1f}" text-anchor="middle" '
            f'font-size="{NODE_FONT:.0f}" fill="{INK}">{text}</text></g>')


def _outline(kind: str, box: Box, paint: str) -> str:
    """A step's rectangle, a review's stadium, or the pointed ends of an ask (a hexagon) or a
    script's decision (a rhombus drawn out to hold its label)."""
    if kind in ("step", "review"):
        round_ = f' rx="{box.h / 2:.1f}"' if kind == "review" else ""
        return (f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.w:.1f}" '
                f'height="{box.h:.1f}"{round_} {paint}/>')
    bevel, cy = BEVEL[kind], box.y + box.h / 2
    corners = [(box.x, cy), (box.x + bevel, box.y), (box.right - bevel, box.y), (box.right, cy),
               (box.right - bevel, box.bottom), (box.x + bevel, box.bottom)]
    return f'<polygon points="{_points(Point(*p) for p in corners)}" {paint}/>'


def _edge(lay: Layout, index: int, nodes: dict[str, Node]) -> str:
    route = lay.routes[index]
    arc, points = route.arc, list(route.points)
    tip, before = points[-1], points[-2]
    length = math.hypot(tip.x - before.x, tip.y - before.y) or 1.0
    ux, uy = (tip.x - before.x) / length, (tip.y - before.y) / length
    size = 9.0 if arc.kind == "exhausted" else 7.0
    base = Point(tip.x - ux * size, tip.y - uy * size)
    head = [tip, Point(base.x - uy * size / 2, base.y + ux * size / 2),
            Point(base.x + uy * size / 2, base.y - ux * size / 2)]
    source, target = nodes[arc.source].step or "end", nodes[arc.target].step or "end"
    hover = _text(f"{source} \u2192 {target}: {arc.label}")
    return (f'<g class="edge {arc.kind}"><title>{hover}</title>'
            f'<polyline points="{_points([*points[:-1], base])}" fill="none" stroke="{INK}" '
            f'{EDGE_STYLE[arc.kind]}/><polygon points="{_points(head)}" fill="{INK}"/></g>')


def _label(text: str, box: Box) -> str:
    return (f'<text x="{box.x + 2:.1f}" y="{box.bottom - 3:.1f}" font-size="{LABEL_FONT:.0f}" '
            f'fill="{INK}" stroke="#ffffff" stroke-width="3" paint-order="stroke">'
            f"{_text(text)}</text>")


def _points(points: Iterable[Point]) -> str:
    return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in points)


def _text(text: str) -> str:
    """A text or attribute value, escaped, on one line, without what XML cannot carry."""
    return html.escape(plain(text), quote=True)
