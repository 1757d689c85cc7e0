"""`skillrail stats`: how each skill's runs went, from the ledger.

Per skill: runs started, completed, abandoned and active; the success rate, completed /
(completed + abandoned), or n/a before any run has ended; escalations; and per rework edge the
passes through its loop.

- An escalation is a move into a step whose id ends with '-escalate', or into an ask_user step
  of the run's workflow as discovery finds it under --root. Runs of workflows not found there
  are judged by the step name alone.
- A loop's passes, per run that left the rework edge's step at least once: 1 + the times the
  edge was taken (the ledger's `loops` count), as the step banners number them, so the worst
  is at most the cap. Exhausted: the runs whose passes ran out, leaving by on_exhausted.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..base.errors import UsageError, did_you_mean
from ..graph.model import Workflow
from ..run.discovery import discover_workflows
from ..run.ledger import Ledger, Run
from ..tools.history import is_escalation, milestone
from .common import add_json, add_root

HELP = "per skill: runs, success rate, passes per loop, escalations"

#: (seq, source, outcome, target, at) as `Ledger.transitions` gives them.
Move = tuple[int, str, str, str, float]


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--skill", help="only this skill")
    add_root(parser)
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    workflows = {wf.name: wf for wf in discover_workflows(ns.root).workflows}
    with Ledger() as ledger:
        runs = ledger.runs(skill=ns.skill)
        if ns.skill and not runs and ns.skill not in {w.skill for w in workflows.values()}:
            known = {r.skill for r in ledger.runs()} | {w.skill for w in workflows.values()}
            raise UsageError(f"no skill '{ns.skill}' in the ledger or among the skills found",
                             fix="`skillrail list` shows the skills."
                                 + did_you_mean(ns.skill, known))
        moves = {r.id: ledger.transitions(r.id) for r in runs}
    skills = {ns.skill} if ns.skill else {w.skill for w in workflows.values()}
    rows = skill_stats(runs, moves, workflows, skills)
    if ns.json:
        return 0, json.dumps(rows, indent=2) + "\n"
    return 0, "\n".join(_text(rows)) + "\n"


def skill_stats(runs: list[Run], moves: dict[str, list[Move]], workflows: dict[str, Workflow],
                skills: Iterable[str] = ()) -> list[dict[str, Any]]:
    """One row per skill that has runs or is named in `skills`, sorted by name."""
    by_skill: dict[str, list[Run]] = {name: [] for name in skills}
    for r in runs:
        by_skill.setdefault(r.skill, []).append(r)
    return [_row(name, by_skill[name], moves, workflows) for name in sorted(by_skill)]


def _row(skill: str, runs: list[Run], moves: dict[str, list[Move]],
         workflows: dict[str, Workflow]) -> dict[str, Any]:
    status = Counter(r.status for r in runs)
    ended = status["completed"] + status["abandoned"]
    escalations = sum(is_escalation(workflows.get(r.workflow), target)
                      for r in runs for _, _, _, target, _ in moves[r.id])
    return {"skill": skill, "runs": len(runs), "completed": status["completed"],
            "abandoned": status["abandoned"], "active": status["active"],
            "success_rate": round(status["completed"] / ended, 3) if ended else None,
            "escalations": escalations, "loops": _loops(runs, moves, workflows)}


def _loops(runs: list[Run], moves: dict[str, list[Move]],
           workflows: dict[str, Workflow]) -> list[dict[str, Any]]:
    passes: dict[tuple[str, str], list[int]] = {}
    exhausted: Counter[tuple[str, str]] = Counter()
    for r in runs:
        wf = workflows.get(r.workflow)
        left = {source for _, source, _, _, _ in moves[r.id]}
        for edge in sorted(set(r.counts) | set(wf.reworks if wf else ())):
            if edge.partition(":")[0] in left:
                passes.setdefault((r.workflow, edge), []).append(r.counts.get(edge, 0) + 1)
        for _, source, outcome, target, _ in moves[r.id]:
            if milestone(wf, source, outcome, target) == "loop-exhausted":
                exhausted[(r.workflow, f"{source}:{outcome}")] += 1
    rows = []
    for (name, edge), seen in sorted(passes.items()):
        rework = workflows[name].reworks[edge].rework if _has_edge(workflows, name, edge) else None
        rows.append({"workflow": name, "edge": edge,
                     "cap": rework.max_iterations if rework else None, "runs": len(seen),
                     "average_passes": round(sum(seen) / len(seen), 2),
                     "worst_passes": max(seen), "exhausted": exhausted[(name, edge)]})
    return rows


def _has_edge(workflows: dict[str, Workflow], name: str, edge: str) -> bool:
    return name in workflows and edge in workflows[name].reworks


def _text(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return ["no skills and no runs"]
    width = max(len(r["skill"]) for r in rows)
    lines = [f"{'skill':<{width}}  runs  completed  abandoned  active  success  escalations"]
    for r in rows:
        rate = "n/a" if r["success_rate"] is None else f"{r['success_rate']:.0%}"
        lines.append(f"{r['skill']:<{width}}  {r['runs']:>4}  {r['completed']:>9}  "
                     f"{r['abandoned']:>9}  {r['active']:>6}  {rate:>7}  {r['escalations']:>11}")
    loops = [(r["skill"], lp) for r in rows for lp in r["loops"]]
    if loops:
        lines.append("loops (passes through the loop, per run that reached it):")
    for skill, lp in loops:
        cap = f" of at most {lp['cap']}" if lp["cap"] else ""
        name = skill if lp["workflow"] == skill else f"{skill}/{lp['workflow']}"
        lines.append(f"  {name}  {lp['edge']}  average {lp['average_passes']:g}, worst "
                     f"{lp['worst_passes']}{cap}; exhausted in {lp['exhausted']} of "
                     f"{lp['runs']} runs")
    return lines
