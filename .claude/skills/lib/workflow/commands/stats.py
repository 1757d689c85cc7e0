"""`skillrail stats`: how each skill's runs went, from the ledger.

Per skill: runs started, completed, abandoned and active; of the runs that ended (completed
or abandoned), the share that succeeded (completed with result success, or before results were
recorded) and the share completed only in part, or n/a before any run has ended; escalations;
the sub-agent work the orchestrator did itself (`--self`: a sub-run that is no independent
review); the questions an approval the user gave in advance answered, with their words; per
rework edge the passes through its loop; the iterations of a successful run and
how often failed checks recovered (tools/outcomes.py).

- An escalation is a loop's move to the user once its passes ran out: a rework edge's
  `on_exhausted` into a step that asks the user (qr_loop's '<checkpoint>-escalate'), in the
  run's workflow as discovery finds it under --root. An ordinary move into an ask_user step (an
  approval) is none. Runs of workflows not found there are judged by the step name alone
  ('*-escalate').
- A loop's passes, per run that left the rework edge's step at least once: 1 + the times the
  edge was taken (the ledger's `loops` count), as the step banners number them, so the worst
  is at most the cap. Exhausted: the runs whose passes ran out, leaving by on_exhausted (to
  the user or not).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..base.errors import UsageError, did_you_mean
from ..graph.model import Workflow
from ..ledger.listing import Totals, skills, totals
from ..ledger.store import Ledger
from ..step.discovery import discover_workflows
from ..tools.history import exhausted, is_escalation
from ..tools.outcomes import outcome_lines, outcomes, recovery
from .common import add_json, add_root

HELP = ("per skill: runs, success and partial rates, iterations, check recoveries, passes "
        "per loop, escalations")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--skill", help="only this skill")
    add_root(parser)
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    workflows = {wf.name: wf for wf in discover_workflows(ns.root).workflows}
    discovered = {w.skill for w in workflows.values()}
    with Ledger() as ledger:
        summed = totals(ledger, ns.skill)
        if ns.skill and not summed.statuses and ns.skill not in discovered:
            raise UsageError(f"no skill '{ns.skill}' in the ledger or among the skills found",
                             fix="`skillrail list` shows the skills."
                                 + did_you_mean(ns.skill, set(skills(ledger)) | discovered))
    rows = skill_stats(summed, workflows, {ns.skill} if ns.skill else discovered)
    if ns.json:
        return 0, json.dumps(rows, indent=2) + "\n"
    return 0, "\n".join(_text(rows)) + "\n"


def skill_stats(summed: Totals, workflows: dict[str, Workflow],
                named: Iterable[str] = ()) -> list[dict[str, Any]]:
    """One row per skill that has runs or is named in `named`, sorted by name."""
    names = set(named) | {skill for skill, _, _ in summed.statuses}
    return [_row(name, summed, workflows) for name in sorted(names)]


def _row(skill: str, summed: Totals, workflows: dict[str, Workflow]) -> dict[str, Any]:
    status = Counter({state: n for name, state, n in summed.statuses if name == skill})
    escalations = sum(times for name, wf, source, outcome, target, times in summed.moves
                      if name == skill and is_escalation(workflows.get(wf), source, outcome,
                                                         target))
    return {"skill": skill, "runs": status.total(),
            "completed": status["completed"] + status["partial"],
            "abandoned": status["abandoned"], "active": status["active"],
            **outcomes(skill, summed), "escalations": escalations,
            "self_runs": sum(n for name, n in summed.self_runs if name == skill),
            "approved_in_advance": _approved(skill, summed),
            "loops": _loops(skill, summed, workflows),
            "recovery": recovery(skill, summed, workflows)}


def _loops(skill: str, summed: Totals, workflows: dict[str, Workflow]) -> list[dict[str, Any]]:
    """Per rework edge: the runs that left its step, and their passes (1 + the times they
    took the edge). An edge the workflow no longer has counts the runs that took it."""
    left = {(wf, step): n for name, wf, step, n in summed.departures if name == skill}
    taken = {(wf, edge): (n, total, most) for name, wf, edge, n, total, most in summed.loops
             if name == skill}
    ran_out: Counter[tuple[str, str]] = Counter()
    for name, wf, source, outcome, target, times in summed.moves:
        if name == skill and exhausted(workflows.get(wf), source, outcome, target):
            ran_out[(wf, f"{source}:{outcome}")] += times
    edges = set(taken) | {(wf, edge) for wf, _ in left if wf in workflows
                          for edge in workflows[wf].reworks}
    rows = []
    for name, edge in sorted(edges):
        counted, total, most = taken.get((name, edge), (0, 0, 0))
        known = _has_edge(workflows, name, edge)
        runs = left.get((name, edge.partition(":")[0]), 0) if known else counted
        if not runs:
            continue
        rework = workflows[name].reworks[edge].rework if known else None
        rows.append({"workflow": name, "edge": edge,
                     "cap": rework.max_iterations if rework else None, "runs": runs,
                     "average_passes": round((runs + total) / runs, 2),
                     "worst_passes": most + 1, "exhausted": ran_out[(name, edge)]})
    return rows


def _approved(skill: str, summed: Totals) -> list[dict[str, Any]]:
    """Each question of the skill's runs that an approval given in advance answered: the run,
    the step, the option, the user's words (and condition), and whether it was advisory."""
    rows = []
    for name, run, detail in summed.approvals:
        if name != skill:
            continue
        try:
            said = json.loads(detail)
        except ValueError:
            said = {}
        rows.append({"run": run, "step": said.get("step"), "outcome": said.get("outcome"),
                     "words": said.get("words"), "condition": said.get("condition") or None,
                     "advisory": said.get("source") == "advisory"})
    return rows


def _has_edge(workflows: dict[str, Workflow], name: str, edge: str) -> bool:
    return name in workflows and edge in workflows[name].reworks


def _text(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return ["no skills and no runs"]
    width = max(len(r["skill"]) for r in rows)
    lines = [f"{'skill':<{width}}  runs  completed  abandoned  active  success  partial"
             "  escalations  self-done"]
    for r in rows:
        rate, part = ("n/a" if r[k] is None else f"{r[k]:.0%}"
                      for k in ("success_rate", "partial_rate"))
        lines.append(f"{r['skill']:<{width}}  {r['runs']:>4}  {r['completed']:>9}  "
                     f"{r['abandoned']:>9}  {r['active']:>6}  {rate:>7}  {part:>7}  "
                     f"{r['escalations']:>11}  {r['self_runs']:>9}")
    lines += outcome_lines(rows)
    ahead = [(r["skill"], a) for r in rows for a in r["approved_in_advance"]]
    if ahead:
        lines.append("answered by an approval the user gave in advance:")
    for skill, a in ahead:
        lines.append(f"  {skill}  {a['run']}  {a['step']} -> {a['outcome']}: “{a['words']}”"
                     + (f", if {a['condition']}" if a["condition"] else "")
                     + (" (advisory)" if a["advisory"] else ""))
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
