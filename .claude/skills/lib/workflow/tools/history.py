"""A run's history for people: what the ledger recorded of one run, as plain data at three levels
of detail, secrets redacted (`skillrail trace`, `skillrail report`).

- full: every transition, every memory write and every event in time order, params, sub-runs;
- summary: milestones only: the start, each decision (a step with several outcomes), each move
  to a step that asks the user, each exhausted loop (an escalation when it leads to the user),
  the end;
- hidden: the outcome only: status ('partial' for a run completed with part of its work done),
  final step, number of steps.

Which transitions are milestones depends on the run's workflow graph, loaded from the script
the run was started from. When that fails, every transition is kept and a note says why.

At every level, an event or value the project marks sensitive (guard/visibility.py: one naming
a sensitive tool) is shown as hidden, when the caller passes that test.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from ..base.errors import SkillrailError, UsageError
from ..graph.model import Workflow
from ..graph.types import Rework
from ..run.ledger import Ledger, Run

LEVELS = ("full", "summary", "hidden")
#: How a run began and ended: the events a summary keeps.
_ENDS = ("start", "completed", "partial", "abandoned")
#: Sort ranks at equal times: a run starts before its first move and ends after its last.
_FIRST, _MOVE, _LAST = 0, 1, 2
#: Whether a text (an event's of that kind, or a value's: '') is to be hidden.
Hides = Callable[[str, str], bool]


def _nothing(kind: str, text: str) -> bool:
    return False


def stamp(at: float) -> str:
    """A ledger time as local 'YYYY-MM-DD HH:MM:SS', as `skillrail runs` shows it."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def run_workflow(run: Run, cache: dict[tuple[str, str], Workflow | str] | None = None
                 ) -> tuple[Workflow | None, str]:
    """The run's workflow, loaded from the script it was started from, with a note when it
    cannot be loaded or has changed since the run began ('' otherwise). `cache` keeps each
    script's workflow (or why it failed, in words that name no run) for the next run of it:
    the note is worded for `run` alone."""
    from ..graph.analysis import fingerprint

    key = (run.script, run.workflow)
    cache = {} if cache is None else cache
    if key not in cache:
        cache[key] = _load(*key)
    workflow = cache[key]
    if isinstance(workflow, str):
        return None, f"{workflow}; every transition is shown" + _abandon(run)
    if fingerprint(workflow) != run.fingerprint:
        return workflow, ("the workflow changed since this run began; milestones are judged by "
                          "its current graph")
    return workflow, ""


def _load(script: str, name: str) -> Workflow | str:
    """Workflow `name` of `script`, or why it cannot be had. The reason names no run: one
    answer serves every run started from the script."""
    from pathlib import Path

    from ..run.discovery import load_script

    if not os.path.isfile(script):
        return f"its script is gone: {script}"
    try:
        found = [wf for wf in load_script(Path(script)) if wf.name == name]
    except SkillrailError as exc:
        return exc.summary()
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a broken script must not hide history
        return f"{script} failed to load ({type(exc).__name__}: {exc})"
    return found[0] if found else f"{script} no longer defines workflow '{name}'"


def _abandon(run: Run) -> str:
    """For an active run whose workflow cannot be loaded: how to end it."""
    if run.status != "active":
        return ""
    from ..run.routing import skillrail_command

    return f"; it cannot go on: end it with `{skillrail_command('abandon', run.id)}`"


def trace(ledger: Ledger, run: Run, level: str, workflow: Workflow | None,
          note: str = "", hides: Hides = _nothing) -> dict[str, Any]:
    """The history of `run` at `level` (one of LEVELS), redacted, as plain data; each event
    detail, value and param that `hides` picks is shown as HIDDEN."""
    # Imported here: compiling redact's patterns is the costliest import of `skillrail`, and
    # most subcommands never redact.
    from ..guard.redact import redact_data, redact_pair
    from ..guard.visibility import HIDDEN

    if level not in LEVELS:
        raise UsageError(f"unknown trace level '{level}'", fix=f"Use one of: {', '.join(LEVELS)}")
    doc: dict[str, Any] = {"run": run.id, "level": level, "workflow": run.workflow,
                           "status": run.state, "step": run.step, "steps": run.hops}
    if level == "hidden":
        return dict(redact_data(doc))
    doc.update(skill=run.skill, parent=run.parent, started=stamp(run.started),
               updated=stamp(run.updated))
    if note:
        doc["note"] = note
    entries = _timeline(ledger, run, workflow, hides)
    if level == "summary":
        doc["timeline"] = [e for e in entries if _is_milestone(e)]
        return dict(redact_data(doc))
    doc.update(workspace=run.workspace, timeline=entries,
               params={name: HIDDEN if hides("", value) else redact_pair(name, value)
                       for name, value in run.params.items()},
               sub_runs=[{"run": sub.id, "workflow": sub.workflow, "status": sub.state,
                          "step": sub.step, "steps": sub.hops}
                         for sub in ledger.sub_runs(run.id)])
    return dict(redact_data(doc))


def _timeline(ledger: Ledger, run: Run, workflow: Workflow | None,
              hides: Hides) -> list[dict[str, Any]]:
    """Every event, transition and memory write of `run`, oldest first, the texts `hides`
    picks hidden. Only the values of secret-looking keys are masked yet; `trace` redacts the
    rest."""
    from ..guard.redact import redact_pair
    from ..guard.visibility import HIDDEN

    timed: list[tuple[float, int, dict[str, Any]]] = []
    for at, kind, detail in ledger.events(run.id):
        entry = {"kind": "event", "event": kind,
                 "detail": HIDDEN if hides(kind, detail) else detail}
        timed.append((at, _FIRST if kind == "start" else _LAST, entry))
    moved_at: dict[int, float] = {}
    for seq, source, outcome, target, at in ledger.transitions(run.id):
        moved_at[seq] = at
        timed.append((at, _MOVE, {"kind": "transition", "seq": seq, "source": source,
                                  "outcome": outcome, "target": target,
                                  "milestone": milestone(workflow, source, outcome, target)}))
    for seq, key, step, value in ledger.memory_writes(run.id):
        timed.append((moved_at.get(seq, 0.0), _MOVE, {
            "kind": "memory", "seq": seq, "key": key, "step": step,
            "value": HIDDEN if hides("", value) else redact_pair(key, value)}))
    # Stable sort: at one time, a transition stays before the values it brought.
    timed.sort(key=lambda item: (item[0], item[1]))
    return [{"at": stamp(at), **entry} for at, _, entry in timed]


def milestone(workflow: Workflow | None, source: str, outcome: str, target: str) -> str | None:
    """Why the move source --outcome--> target matters to a summary, or None when it does not:
    'escalation' (a loop's passes ran out and the user is asked), 'loop-exhausted' (ran out,
    on to any other step), 'ask-user' (any other move to a step that asks the user),
    'decision' (a step with several outcomes), or 'unknown' when the graph is not known."""
    if is_escalation(workflow, source, outcome, target):
        return "escalation"
    if exhausted(workflow, source, outcome, target):
        return "loop-exhausted"
    step = workflow.by_id.get(source) if workflow is not None else None
    if step is None:
        return "unknown"
    if _asks_user(workflow, target):
        return "ask-user"
    return "decision" if len(step.next) > 1 else None


def exhausted(workflow: Workflow | None, source: str, outcome: str, target: str) -> bool:
    """The move leaves a counted rework edge by its `on_exhausted`: the loop's passes ran out."""
    step = workflow.by_id.get(source) if workflow is not None else None
    edge = step.next.get(outcome) if step is not None else None
    return isinstance(edge, Rework) and target == edge.on_exhausted != edge.target


def is_escalation(workflow: Workflow | None, source: str, outcome: str, target: str) -> bool:
    """A loop's passes ran out and the move takes the question to the user: a rework edge's
    `on_exhausted` into a step that asks the user (a `qr_loop`'s '<checkpoint>-escalate'). An
    ordinary move into a step that asks the user (an approval) is none. Without the graph, a
    move into a step named '*-escalate' counts (qr_loop's name for it)."""
    if workflow is None or source not in workflow.by_id:
        return target.endswith("-escalate")
    return exhausted(workflow, source, outcome, target) and _asks_user(workflow, target)


def _asks_user(workflow: Workflow | None, target: str) -> bool:
    """The step `target` asks the user: an ask_user step, or a review loop's escalation."""
    dest = workflow.by_id.get(target) if workflow is not None else None
    return dest is not None and (dest.ask_user is not None
                                 or (dest.qr is not None and dest.qr.role == "escalate"))


def _is_milestone(entry: dict[str, Any]) -> bool:
    if entry["kind"] == "event":
        return entry["event"] in _ENDS
    return entry["kind"] == "transition" and entry["milestone"] is not None
