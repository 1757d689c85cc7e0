"""Workflow diagrams: a neutral model of the graph (nodes, arcs, loop clusters, the static step
bound), written out by two small renderers, Mermaid and Graphviz DOT. Neither needs a rendering
library; `svg` draws the same model as a picture."""

from __future__ import annotations

import re
from typing import NamedTuple

from .analysis import adjacency, cycles, worst_case_steps
from .model import Rework, StepDef, Workflow

END = "finish"  # the node every terminal outcome leads to ("end" is a Mermaid keyword)

#: Mermaid's class colours (fill, stroke) per node kind, which DOT and SVG pictures share.
COLOURS = {"ask": ("#fff3cd", "#b8860b"), "decision": ("#e7f0ff", "#3b6fb6"),
           "review": ("#eaf7ea", "#3c8d3c")}

# What no picture can carry: characters XML 1.0 lacks, C1 controls, and line breaks (labels are
# one line).
_UNDRAWABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u2028\u2029]")


class Node(NamedTuple):
    key: str  # a renderer-safe id: n1, n2, ... in step order; END for the end
    step: str
    label: str
    kind: str  # step | decision (script-decided) | ask (the user) | review | end


class Arc(NamedTuple):
    source: str
    target: str
    label: str
    kind: str  # plain | rework (counted, goes back) | exhausted (when a loop's passes run out)


class Diagram(NamedTuple):
    title: str
    nodes: tuple[Node, ...]
    arcs: tuple[Arc, ...]
    loops: tuple[tuple[str, tuple[str, ...]], ...]  # (cluster label, node keys)


def diagram(wf: Workflow) -> Diagram:
    """The diagram model of `wf`."""
    keys = {s.id: f"n{n}" for n, s in enumerate(wf.steps, 1)}
    nodes = [Node(keys[s.id], s.id, f"{s.id}: {s.title}", _kind(s)) for s in wf.steps]
    arcs: list[Arc] = []
    for step in wf.steps:
        for outcome, target in step.next.items():
            arcs += _arcs(keys, step.id, outcome, target)
    if any(a.target == END for a in arcs):
        nodes.append(Node(END, "", "end", "end"))
    bound = worst_case_steps(wf)
    steps = "step" if bound == 1 else "steps"
    title = f"{wf.name}: at most {bound} {steps} per run" if bound else f"{wf.name}: unbounded"
    clusters = tuple((f"loop: {' / '.join(c)}", tuple(keys[s] for s in c))
                     for c in cycles(adjacency(wf)))
    return Diagram(title, tuple(nodes), tuple(arcs), clusters)


def _kind(step: StepDef) -> str:
    if step.ask_user is not None:
        return "ask"
    if step.qr is not None and step.qr.role == "review":
        return "review"
    return "decision" if step.decided_by == "script" else "step"


def _arcs(keys: dict[str, str], source: str, outcome: str,
          target: str | Rework | None) -> list[Arc]:
    if target is None:
        return [Arc(keys[source], END, outcome, "plain")]
    if isinstance(target, Rework):
        cap = (f"at most {target.max_iterations} in all, '{target.counter}'" if target.counter
               else f"at most {target.max_iterations} passes")
        return [Arc(keys[source], keys[target.target], f"{outcome} ({cap})", "rework"),
                Arc(keys[source], keys[target.on_exhausted], f"{outcome}, passes used up",
                    "exhausted")]
    return [Arc(keys[source], keys[target], outcome, "plain")]


def to_mermaid(wf: Workflow) -> str:
    """A Mermaid flowchart: ask_user steps as hexagons, script decisions as rhombi, reviews
    as stadiums, rework arcs dotted with their caps, exhaustion arcs thick, loops as
    subgraphs, the static step bound in the title."""
    d = diagram(wf)
    shape = {"step": '["{}"]', "decision": '{{"{}"}}', "ask": '{{{{"{}"}}}}',
             "review": '(["{}"])', "end": '(("{}"))'}
    # The title sits in YAML front matter: quoted, since it holds ': '.
    lines = ["---", f'title: "{_mermaid_text(d.title)}"', "---", "flowchart TD"]
    clustered = {k for _, keys in d.loops for k in keys}
    node_line = {n.key: f"{n.key}{shape[n.kind].format(_mermaid_text(n.label))}"
                 for n in d.nodes}
    lines += [f"  {node_line[n.key]}" for n in d.nodes if n.key not in clustered]
    for number, (label, keys) in enumerate(d.loops, 1):
        lines.append(f'  subgraph loop{number} ["{_mermaid_text(label)}"]')
        lines += [f"    {node_line[k]}" for k in keys]
        lines.append("  end")
    arrow = {"plain": "-->", "rework": "-.->", "exhausted": "==>"}
    lines += [f"  {a.source} {arrow[a.kind]}|\"{_mermaid_text(a.label)}\"| {a.target}"
              for a in d.arcs]
    lines += [f"  classDef {kind} fill:{fill},stroke:{stroke}"
              for kind, (fill, stroke) in COLOURS.items()]
    for kind in COLOURS:
        members = [n.key for n in d.nodes if n.kind == kind]
        if members:
            lines.append(f"  class {','.join(members)} {kind}")
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    """Text inside a quoted Mermaid label: quotes and markup characters as entity codes."""
    return (text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;")
            .replace(">", "#gt;").replace("\n", " "))


def plain(text: str) -> str:
    """`text` as a one-line picture label: line breaks and tabs as spaces, and without the
    characters XML 1.0 or a terminal cannot carry."""
    return _UNDRAWABLE.sub(lambda m: " " if m[0] in "\t\n\r\u2028\u2029" else "", text)


def to_dot(wf: Workflow) -> str:
    """The same diagram in Graphviz DOT; each node and edge carries its kind as its SVG class,
    and ask, decision and review steps Mermaid's shapes and colours."""
    d = diagram(wf)
    shape = {"step": "box", "decision": "diamond", "ask": "hexagon", "review": "box",
             "end": "doublecircle"}
    style = {"plain": "", "rework": ", style=dashed", "exhausted": ", style=bold"}
    lines = [f"digraph {_dot_text(wf.name)} {{", f"  label={_dot_text(d.title)};",
             "  labelloc=t;", "  graph [fontname=Helvetica];",
             "  node [fontname=Helvetica, fontsize=12];",
             "  edge [fontname=Helvetica, fontsize=10];"]
    clustered = {k for _, keys in d.loops for k in keys}

    def node(n: Node) -> str:
        fill, stroke = COLOURS.get(n.kind, ("", ""))
        paint = (f', style="{"rounded," if n.kind == "review" else ""}filled", '
                 f'fillcolor="{fill}", color="{stroke}"') if fill else ""
        return (f"{n.key} [label={_dot_lines(n.label, ': ')}, shape={shape[n.kind]}, "
                f'class="{n.kind}"{paint}];')

    lines += [f"  {node(n)}" for n in d.nodes if n.key not in clustered]
    by_key = {n.key: n for n in d.nodes}
    for number, (label, keys) in enumerate(d.loops):
        lines += [f"  subgraph cluster_{number} {{", f"    label={_dot_lines(label, ': ', 60)};",
                  "    style=dashed;"]
        lines += [f"    {node(by_key[k])}" for k in keys]
        lines.append("  }")
    lines += [f"  {a.source} -> {a.target} [label={_dot_text(a.label)}{style[a.kind]}, "
              f'class="{a.kind}"];' for a in d.arcs]
    return "\n".join(lines + ["}"]) + "\n"


#: Characters a line of a node's label holds in a DOT picture before it wraps: long one-line
#: labels make the picture wide, and a page then shrinks it until its text cannot be read.
DOT_LINE = 28


def _dot_lines(text: str, head: str, width: int = DOT_LINE) -> str:
    """`text` as a DOT label of short lines: what precedes the first `head` (a step's id) on a
    line of its own, the rest wrapped at `width` characters."""
    import textwrap

    first, found, rest = plain(text).partition(head)
    lines = [first + found.rstrip()] if found else []
    lines += textwrap.wrap(rest if found else first, width, break_long_words=False,
                           break_on_hyphens=False) or [""]
    escaped = [line.replace("\\", "\\\\").replace('"', '\\"') for line in lines]
    return '"' + "\\n".join(escaped) + '"'


def _dot_text(text: str) -> str:
    return '"' + plain(text).replace("\\", "\\\\").replace('"', '\\"') + '"'
