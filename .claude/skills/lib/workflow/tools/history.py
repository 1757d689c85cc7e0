"""A run's history for people: what the ledger recorded of one run, as plain data at three levels
of detail, secrets redacted (`skillrail trace`, `skillrail report`).

- full: every transition, every memory write and every event in time order, params, sub-runs;
- summary: milestones only: the start, each decision (a step with several outcomes), each move
  to a step that asks the user, each question an approval given in advance answered, each
  exhausted loop (an escalation when it leads to the user), the end;
- hidden: the outcome only: status ('partial' for a run completed with part of its work done),
  final step, number of steps.

Each entry carries the id ledger/entries.py gives it (e12: an event, t3: move 3, t3.KEY: a value
move 3 recorded), which `since` starts after.

Which transitions are milestones depends on the run's workflow graph, loaded from the script
the run was started from. When that fails, every transition is kept and a note says why.

At every level, an event or value the project marks sensitive (guard/visibility.py: one naming
a sensitive tool) is shown as hidden, when the caller passes that test.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.errors import SkillrailError, UsageError
from ..graph.analysis import fingerprint
from ..graph.model import Rework, Workflow
from ..guard.redact import redact_data, redact_pair
from ..guard.visibility import HIDDEN
from ..ledger.entries import ID_SHAPES, Row, Rows, check_id, read
from ..ledger.store import Ledger, Run
from ..step.discovery import load_script
from ..step.routing import skillrail_command

LEVELS = ("full", "summary", "hidden")
#: How a run began and ended: the events a summary keeps.
_ENDS = ("start", "completed", "partial", "abandoned")
#: What else a summary keeps: a question an approval given in advance answered (whose words),
#: and a run nobody attends stopping at one.
_ANSWERS = ("approved-in-advance", "needs-user")
#: Sort ranks at equal times: a run starts before its first move and ends after its last.
_FIRST, _MOVE, _LAST = 0, 1, 2
#: Whether a text (an event's of that kind, or a value's: '') is to be hidden.
Hides = Callable[[str, str], bool]


def _nothing(kind: str, text: str) -> bool:
    return False


def stamp(at: float) -> str:
    """A ledger time as local 'YYYY-MM-DD HH:MM:SS', as `skillrail runs` shows it."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def started_by(host: str | None, who: str | None) -> str:
    """Who started a run on which machine, as 'alice@laptop' ('laptop' when the login was not
    known); '' for a run recorded before schema 9, which kept neither."""
    return "@".join(part for part in (who, host) if part)


def run_workflow(run: Run, cache: dict[tuple[str, str], Workflow | str] | None = None
                 ) -> tuple[Workflow | None, str]:
    """The run's workflow, loaded from the script it was started from, with a note when it
    cannot be loaded or has changed since the run began ('' otherwise). `cache` keeps each
    script's workflow (or why it failed, in words that name no run) for the next run of it:
    the note is worded for `run` alone."""
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

    return f"; it cannot go on: end it with `{skillrail_command('abandon', run.id)}`"


def trace(ledger: Ledger, run: Run, level: str, workflow: Workflow | None,
          note: str = "", hides: Hides = _nothing, since: str | None = None,
          rows: Rows | None = None) -> dict[str, Any]:
    """The history of `run` at `level` (one of LEVELS), redacted, as plain data; each event
    detail, value and param that `hides` picks is shown as HIDDEN. `since`: only the entries
    after the one with that id (ledger/entries.py). `rows`: the run's rows, read already."""
    if level not in LEVELS:
        raise UsageError(f"unknown trace level '{level}'", fix=f"Use one of: {', '.join(LEVELS)}")
    if level == "hidden":  # no entry is shown: none is made
        if since is not None:  # an id the run has not is an error at this level too
            ids = [row.id for row in (read(ledger, run.id) if rows is None else rows).rows]
            _check_since(ids, since, run.id)
        return {"run": run.id, "level": level, **outcome(ledger, run, level)}
    entries = timeline(read(ledger, run.id) if rows is None else rows, workflow, hides)
    if since is not None:
        entries = after(entries, since, run.id)
    ended = outcome(ledger, run, level)
    sub_runs = ended.pop("sub_runs", None)
    # Each part redacted once: the entries by `shown`, which leaves their ids as the ledger
    # has them (the ids --since takes, and a follower prints), the rest here.
    head = {"skill": run.skill, "parent": run.parent, "started": stamp(run.started),
            "updated": stamp(run.updated), "host": run.host, "who": run.who}
    if note:
        head["note"] = note
    doc: dict[str, Any] = {"run": run.id, "level": level, **ended, **redact_data(head),
                           "timeline": shown(entries, level)}
    if level == "full":
        doc.update(redact_data({"workspace": run.workspace, "params": {
            name: HIDDEN if hides("", value) else redact_pair(name, value)
            for name, value in run.params.items()}}), sub_runs=sub_runs)
    return doc


def outcome(ledger: Ledger, run: Run, level: str) -> dict[str, Any]:
    """Where `run` stands, as trace's hidden level shows it (its level excepted), with its
    sub-runs at full, redacted: the end of a trace followed (tools/follow.py)."""
    doc: dict[str, Any] = {"run": run.id, "workflow": run.workflow, "status": run.state,
                           "step": run.step, "steps": run.hops}
    if level == "full":
        doc["sub_runs"] = [{"run": sub.id, "workflow": sub.workflow, "status": sub.state,
                            "step": sub.step, "steps": sub.hops}
                           for sub in ledger.sub_runs(run.id)]
    return dict(redact_data(doc))


def timeline(rows: Rows, workflow: Workflow | None, hides: Hides = _nothing
             ) -> list[dict[str, Any]]:
    """The entries of `rows` (every event, move and value read), in time order, each with its
    id, the texts `hides` picks hidden. Only the values of secret-looking keys are masked yet:
    `shown` redacts the rest. At one time, a run starts before its first move and ends after
    its last, and a move comes before the values it recorded."""
    return [_entry(row, workflow, hides) for row in sorted(rows.rows, key=_order)]


def _order(row: Row) -> tuple[float, int, int, int, int]:
    if row.kind == "event":
        return (row.at, _FIRST if row.texts[0] == "start" else _LAST, 0, 0, row.number)
    return (row.at, _MOVE, row.number, int(row.kind == "memory"), row.row)


def _entry(row: Row, workflow: Workflow | None, hides: Hides) -> dict[str, Any]:
    head = {"id": row.id, "at": stamp(row.at), "kind": row.kind}
    if row.kind == "event":
        kind, detail = row.texts[0], row.texts[1]
        return {**head, "event": kind, "detail": HIDDEN if hides(kind, detail) else detail}
    if row.kind == "transition":
        source, outcome, target = row.texts
        return {**head, "seq": row.number, "source": source, "outcome": outcome,
                "target": target, "milestone": milestone(workflow, source, outcome, target)}
    key, step, value = row.texts
    return {**head, "seq": row.number, "key": key, "step": step,
            "value": HIDDEN if hides("", value) else redact_pair(key, value)}


def after(entries: list[dict[str, Any]], since: str, run_id: str) -> list[dict[str, Any]]:
    """The entries after the one whose id is `since`; a UsageError when run `run_id` has
    none of that id."""
    return entries[_check_since([entry["id"] for entry in entries], since, run_id) + 1:]


def _check_since(ids: list[str], since: str, run_id: str) -> int:
    """Where `since` is in `ids`; a UsageError when run `run_id` has no entry of that id."""
    if check_id(since) not in ids:
        raise UsageError(f"run {run_id} has no entry '{since}'", fix=ID_SHAPES)
    return ids.index(since)


def shown(entries: list[dict[str, Any]], level: str) -> list[dict[str, Any]]:
    """The entries a trace at `level` shows (summary: milestones; hidden: none), redacted."""
    if level == "hidden":
        return []
    kept = entries if level == "full" else [e for e in entries if _is_milestone(e)]
    return [{**redact_data(entry), "id": entry["id"]} for entry in kept]


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


def event_text(kind: str, detail: str) -> str:
    """An event as a person reads it: a question an approval given in advance answered (kept
    as JSON, for `stats`) in words; any other event's detail as it is."""
    if kind != "approved-in-advance":
        return f"{kind}: {detail}"

    try:
        said = json.loads(detail)
        text = (f"the user's approval given in advance answered '{said['step']}' with "
                f"'{said['outcome']}': “{said['words']}”")
    except (ValueError, KeyError, TypeError):
        return f"{kind}: {detail}"
    if said.get("condition"):
        text += f", if {said['condition']}"
    return text + (" (advisory)" if said.get("source") == "advisory" else "")


def _is_milestone(entry: dict[str, Any]) -> bool:
    if entry["kind"] == "event":
        return entry["event"] in _ENDS or entry["event"] in _ANSWERS
    return entry["kind"] == "transition" and entry["milestone"] is not None
