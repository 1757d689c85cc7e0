"""`skillrail graph`: a workflow's diagram as Mermaid or DOT text, or an SVG picture (through
Graphviz's dot when it is installed, else the built-in layout)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..graph.diagram import to_dot, to_mermaid
from ..graph.svg import to_svg
from .common import add_root, find_workflow

HELP = "print a workflow's diagram (mermaid, dot, or an svg picture)"
RENDERERS = {"mermaid": to_mermaid, "dot": to_dot, "svg": to_svg}


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="a workflow name, or a skill with one workflow")
    parser.add_argument("--format", choices=sorted(RENDERERS), default="mermaid",
                        help="mermaid (default) or dot text; svg: a picture, drawn by Graphviz's "
                             "dot when it is on PATH, else by the built-in layout")
    parser.add_argument("--output", type=Path, metavar="FILE",
                        help="write the diagram to FILE instead of printing it")
    add_root(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    text = RENDERERS[ns.format](find_workflow(ns.name, ns.root))
    if ns.output is None:
        return 0, text
    ns.output.write_text(text, encoding="utf-8")
    return 0, f"wrote {ns.output}\n"
