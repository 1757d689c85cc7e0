"""How a skill's runs ended and how its checks recovered, from the ledger's running totals
(`listing.totals`), for `skillrail stats`.

- Outcomes, of the runs that ended (completed or abandoned): the share that succeeded (completed
  with result success, or before results were recorded), the share completed only in part, and
  the average iterations of a successful run: 1 + the sum of its loop counters (a skill-runner
  plan's attempts, whose retries share one counter).
- Recovery: of the failed checks (moves out of a step the script decides, with outcome 'fail'),
  the share a later move out of the same step with outcome 'ok' followed in the same run; and
  the step that recovered most often, with the CHANGE_* value (what the retry did differently)
  most often recorded between such a failure and its pass. A step of a workflow discovery does
  not find counts as a check when the ledger saw it leave with 'ok' as well as 'fail'.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..graph.model import Workflow
from ..guard.redact import redact_pair
from ..ledger.listing import Totals


def outcomes(skill: str, summed: Totals) -> dict[str, Any]:
    """The skill's runs by how they ended, the success and partial rates (None before any run
    ended) and the average iterations per successful run (None without one)."""
    state = Counter({s: n for name, s, n in summed.statuses if name == skill})
    ended = state["completed"] + state["partial"] + state["abandoned"]
    success = [(runs, its) for name, _, how, runs, its in summed.ends
               if name == skill and how == "success"]
    runs = sum(n for n, _ in success)
    return {"partial": state["partial"],
            "success_rate": _share(state["completed"], ended),
            "partial_rate": _share(state["partial"], ended),
            "average_iterations": round(sum(i for _, i in success) / runs, 2) if runs else None}


def recovery(skill: str, summed: Totals, workflows: dict[str, Workflow]) -> dict[str, Any]:
    """The skill's failed checks, those that later passed, their share (None without a
    failure), and the step that recovered most often (None when none did)."""
    left_ok = {(wf, source) for name, wf, source, outcome, _, _ in summed.moves
               if name == skill and outcome == "ok"}
    checks = [(wf, step, failed, passed) for name, wf, step, failed, passed in summed.checks
              if name == skill and _is_check(workflows.get(wf), step, (wf, step) in left_ok)]
    failed = sum(c[2] for c in checks)
    recovered = sum(c[3] for c in checks)
    best = min((c for c in checks if c[3]), key=lambda c: (-c[3], c[0], c[1]), default=None)
    return {"failed": failed, "recovered": recovered, "rate": _share(recovered, failed),
            "most_common": None if best is None else _most_common(skill, summed, *best[:2],
                                                                  best[3])}


def _is_check(workflow: Workflow | None, step: str, left_ok: bool) -> bool:
    """A step the script decides between 'ok' and 'fail' (a verify= check, a plan's S-verify);
    without its workflow, a step the ledger saw leave both ways."""
    found = workflow.by_id.get(step) if workflow is not None else None
    if found is None:
        return left_ok
    return found.decided_by == "script" and {"ok", "fail"} <= set(found.next)


def _most_common(skill: str, summed: Totals, workflow: str, step: str,
                 recovered: int) -> dict[str, Any]:
    change = next(({"key": key, "value": redact_pair(key, value), "times": times}
                   for name, wf, source, key, value, times in summed.changes
                   if (name, wf, source) == (skill, workflow, step)), None)
    return {"workflow": workflow, "step": step, "recovered": recovered, "change": change}


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def outcome_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The stats table's notes on iterations and recoveries, for the skills that have any."""
    lines = []
    counted = [r for r in rows if r["average_iterations"] is not None]
    if counted:
        lines.append("iterations per successful run (1 + its loop passes), on average:")
        lines += [f"  {r['skill']}  {r['average_iterations']:g}" for r in counted]
    failing = [r for r in rows if r["recovery"]["failed"]]
    if failing:
        lines.append("recovery (failed checks that later passed in the same run):")
    for r in failing:
        rec = r["recovery"]
        line = f"  {r['skill']}  {rec['rate']:.0%} ({rec['recovered']} of {rec['failed']})"
        best = rec["most_common"]
        if best is not None:
            name = best["step"] if best["workflow"] == r["skill"] else \
                f"{best['workflow']}/{best['step']}"
            line += f"; most often at '{name}' ({best['recovered']})"
            if best["change"] is not None:
                line += (f", after {best['change']['key']} = "
                         f"'{_short(best['change']['value'])}' ({best['change']['times']})")
        lines.append(line)
    return lines


def _short(text: str, width: int = 60) -> str:
    """A value on one line, cut to `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 3] + "..."
