"""`skillrail list`: every discovered workflow, one line each."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..step.discovery import discover_workflows
from .common import add_json, add_root

HELP = "list the skills and workflows found under .claude/skills"


def add_parser(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    found = discover_workflows(ns.root)
    rows: list[dict[str, Any]] = [{"skill": wf.skill, "workflow": wf.name, "steps": len(wf.steps),
             "script": wf.source, "description": wf.description} for wf in found.workflows]
    errors = [line for e in found.errors for line in e.lines()]
    status = 1 if errors else 0
    if ns.json:
        return status, json.dumps({"workflows": rows, "errors": errors,
                                   "original_shape_scripts": found.originals}, indent=2) + "\n"
    width = max((len(r["workflow"]) for r in rows), default=0)
    lines = [f"{r['workflow']:<{width}}  {r['steps']:>2} steps  {r['script']}" for r in rows]
    lines += [f"(original shape: prints its own documents, no workflow)  {path}"
              for path in found.originals]
    lines += [f"error: {line}" for line in errors]
    return status, "\n".join(lines) + "\n"
