"""`skillrail describe`: a workflow's steps, outcomes, loops with their caps, and the static
worst-case number of steps a run can take."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..graph.analysis import loops, worst_case_steps
from ..graph.model import Rework, Workflow
from .common import add_json, add_root, find_workflow

HELP = "show a workflow's steps, outcomes, loops and worst-case run length"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="a workflow name, or a skill with one workflow")
    add_root(parser)
    add_json(parser)


def describe(wf: Workflow) -> dict[str, Any]:
    """The facts `describe` shows, as plain data."""
    steps = []
    for n, step in enumerate(wf.steps, 1):
        routes = {}
        for outcome, target in step.next.items():
            if isinstance(target, Rework):
                routes[outcome] = {"to": target.target, "max_iterations": target.max_iterations,
                                   "on_exhausted": target.on_exhausted,
                                   "counter": target.counter or None}
            else:
                routes[outcome] = {"to": target}
        steps.append({"n": n, "id": step.id, "title": step.title,
                      "decided_by": step.decided_by, "next": routes,
                      "reads": list(step.reads), "optional_reads": list(step.optional_reads),
                      "writes": list(step.writes)})
    return {"workflow": wf.name, "skill": wf.skill, "entry": wf.entry, "script": wf.source,
            "params": [p.name for p in wf.params], "steps": steps,
            "loops": [{"steps": list(lp.steps), "reworks": list(lp.reworks), "cap": lp.cap}
                      for lp in loops(wf)],
            "worst_case_steps": worst_case_steps(wf)}


def run(ns: argparse.Namespace) -> tuple[int, str]:
    facts = describe(find_workflow(ns.name, ns.root))
    if ns.json:
        return 0, json.dumps(facts, indent=2) + "\n"
    return 0, "\n".join(_text(facts)) + "\n"


def _text(facts: dict[str, Any]) -> list[str]:
    lines = [f"workflow {facts['workflow']} (skill {facts['skill']}), entry {facts['entry']}",
             f"script: {facts['script']}"]
    if facts["params"]:
        lines.append("params: " + ", ".join(f"--{p}" for p in facts["params"]))
    lines.append("steps:")
    for step in facts["steps"]:
        lines.append(f"  {step['n']:>2}. {step['id']}  {step['title']}  "
                     f"[{step['decided_by']}-decided]")
        if step["reads"] or step["writes"]:
            lines.append(f"        memory: reads {', '.join(step['reads']) or '-'}; writes "
                         f"{', '.join(step['writes']) or '-'}")
        for outcome, route in step["next"].items():
            to = route["to"] or "(end of run)"
            shared = f" in all, counter '{route['counter']}'" if route.get("counter") else ""
            cap = (f"  rework, at most {route['max_iterations']} passes{shared}, then "
                   f"{route['on_exhausted']}" if "max_iterations" in route else "")
            lines.append(f"        {outcome} -> {to}{cap}")
    lines.append("loops:" if facts["loops"] else "loops: none")
    for lp in facts["loops"]:
        lines.append(f"  {' -> '.join(lp['steps'])}  bounded by {', '.join(lp['reworks'])}"
                     f" (cap {lp['cap']} passes)")
    bound = facts["worst_case_steps"]
    lines.append(f"worst-case steps per run: {bound if bound is not None else 'unbounded'}")
    return lines
