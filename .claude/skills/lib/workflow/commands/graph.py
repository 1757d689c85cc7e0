"""`skillrail graph`: a workflow's diagram as Mermaid or DOT text, or SVG through Graphviz."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..graph.diagram import to_dot, to_mermaid, to_svg
from .common import add_root, find_workflow

HELP = "print a workflow's diagram (mermaid, dot, or svg through Graphviz)"
RENDERERS = {"mermaid": to_mermaid, "dot": to_dot, "svg": to_svg}


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="a workflow name, or a skill with one workflow")
    parser.add_argument("--format", choices=sorted(RENDERERS), default="mermaid",
                        help="mermaid (default) and dot need nothing installed; svg needs dot")
    parser.add_argument("--output", type=Path, metavar="FILE",
                        help="write the diagram to FILE instead of printing it")
    add_root(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    text = RENDERERS[ns.format](find_workflow(ns.name, ns.root))
    if ns.output is None:
        return 0, text
    ns.output.write_text(text, encoding="utf-8")
    return 0, f"wrote {ns.output}\n"
