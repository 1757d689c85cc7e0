"""What the listing commands read of the ledger (`skillrail runs`, `status`, `stats`, `report`),
each in a fixed number of queries, however many runs the ledger holds: a page of runs newest
first with how many more there are, and the totals `stats` is made of. The indexes they lean on
are schemas 5 and 8's (schema.py)."""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from .schema import RUN_STATE
from .store import Ledger


class Listed(NamedTuple):
    """A run as a listing shows it: its row, without its memory, params or loop counters;
    `status` is 'partial' for a run completed with part of its work done (Run.state)."""

    id: str
    skill: str
    workflow: str
    status: str
    step: str
    hops: int
    parent: str | None
    workspace: str
    session: str | None
    started: float
    updated: float
    host: str | None  # the machine and the login that started it (schema 9; None before)
    who: str | None


class Page(NamedTuple):
    """Some runs, newest first, and how many the filters match in all."""

    runs: list[Listed]
    #: Runs the filters match, shown or not.
    matching: int
    #: Runs the other filters match outside the folder a page was scoped to (0 unscoped).
    elsewhere: int

    @property
    def more(self) -> int:
        """Matching runs not shown."""
        return self.matching - len(self.runs)


#: The columns of a Listed, its status read as the run's state (schema 8 indexes it).
_COLUMNS = ", ".join(f"{RUN_STATE} AS status" if name == "status" else name
                     for name in Listed._fields)


def page(ledger: Ledger, *, skill: str | None = None, status: str | None = None,
         under: str | None = None, limit: int | None = None,
         by: tuple[str, str] | None = None) -> Page:
    """Runs newest first, at most `limit` of them (None: all), of `skill`, with `status` (a
    state: active, completed, partial or abandoned; completed leaves partial runs out), started
    `by` (machine, login: as workspace.who says them; runs from before schema 9 have neither),
    and with `under`, started in that folder or a folder inside it; in one query."""
    # No limit is one no ledger reaches (SQLite's -1 and PostgreSQL's ALL are each one's own).
    host, who = by or (None, None)
    args: dict[str, Any] = {"skill": skill, "status": status, "host": host, "who": who,
                            "limit": 2 ** 62 if limit is None else limit}
    where = " AND ".join(f"{column} = :{name}" for name, column in (
        ("skill", "skill"), ("status", RUN_STATE), ("host", "host"), ("who", "who"))
                         if args[name] is not None) or "TRUE"
    scope = "TRUE"
    if under is not None:
        inside = under.rstrip(os.sep) + os.sep
        scope = "(workspace = :under OR (workspace >= :inside AND workspace < :beyond))"
        args.update(under=under, inside=inside, beyond=inside[:-1] + chr(ord(os.sep) + 1))
    rows = ledger.query(
        f"SELECT counted.matching, counted.every, shown.* FROM "
        f"(SELECT (SELECT COUNT(*) FROM runs WHERE {where} AND {scope}) AS matching, "
        f"(SELECT COUNT(*) FROM runs WHERE {where}) AS every) AS counted "
        f"LEFT JOIN (SELECT {_COLUMNS}, rowid AS seq FROM runs WHERE {where} AND {scope} "
        f"ORDER BY started DESC, rowid DESC LIMIT :limit) AS shown ON TRUE "
        f"ORDER BY shown.started DESC, shown.seq DESC", args)
    matching, every = rows[0][0], rows[0][1]
    runs = [Listed._make(row[2:-1]) for row in rows if row[2] is not None]
    return Page(runs, matching, every - matching)


def ids_like(ledger: Ledger, run_id: str) -> list[str]:
    """The ids of the runs whose id starts like `run_id` (its skill's prefix), to suggest one
    for a mistyped id without reading every run."""
    prefix = run_id.partition("-")[0][:8] or run_id[:2]
    return [row[0] for row in ledger.query(
        "SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT 2000",
        (prefix, prefix + "\uffff"))]


class Totals(NamedTuple):
    """What `stats` is made of: running totals the ledger keeps as moves are recorded (schema
    6's and 8's triggers), and the runs counted by state."""

    #: (skill, state, runs): state is active, completed (in full), partial or abandoned
    statuses: list[tuple[str, str, int]]
    #: (skill, workflow, source, outcome, target, times the move was made)
    moves: list[tuple[str, str, str, str, str, int]]
    #: (skill, workflow, step, runs that left the step at least once)
    departures: list[tuple[str, str, str, int]]
    #: (skill, workflow, edge, runs that took it, the sum of their counts, the largest)
    loops: list[tuple[str, str, str, int, int, int]]
    #: (skill, sub-runs the orchestrator did itself, `--self`, for want of a sub-agent tool)
    self_runs: list[tuple[str, int]]
    #: (skill, workflow, how runs ended: success, partial or abandoned, runs, their iterations)
    ends: list[tuple[str, str, str, int, int]]
    #: (skill, workflow, step, moves out of it with outcome 'fail', those a later 'ok' followed)
    checks: list[tuple[str, str, str, int, int]]
    #: (skill, workflow, step, key, value, recoveries): per step, the CHANGE_* value most
    #: often recorded between a failure and the pass that followed it
    changes: list[tuple[str, str, str, str, str, int]]
    #: (skill, run, what the event recorded as JSON): each question an approval the user gave
    #: in advance answered (step/settle.APPROVED_AHEAD), oldest first
    approvals: list[tuple[str, str, str]]


def totals(ledger: Ledger, skill: str | None = None) -> Totals:
    """The ledger's totals per skill and workflow, of `skill` alone when given: a few small
    reads, however many runs and moves there are."""
    only, args = ("", ()) if skill is None else (" WHERE skill = ?", (skill,))
    statuses: dict[tuple[str, str], int] = {}
    for name, status, result, n in ledger.query(
            "SELECT skill, status, result, COUNT(*) FROM runs" + only
            + " GROUP BY skill, status, result", args):
        state = "partial" if status == "completed" and result == "partial" else status
        statuses[(name, state)] = statuses.get((name, state), 0) + n
    return Totals(
        [(name, state, n) for (name, state), n in statuses.items()],
        ledger.query("SELECT skill, workflow, source, outcome, target, moves FROM move_totals"
                     + only, args),
        ledger.query("SELECT skill, workflow, step, runs FROM departure_totals" + only, args),
        ledger.query("SELECT skill, workflow, edge, runs, passes, most FROM loop_totals" + only,
                     args),
        # Few events are 'self-run' ones; reading the events table is the one scan here.
        ledger.query("SELECT runs.skill, COUNT(*) FROM events JOIN runs ON runs.id = events.run"
                     " WHERE events.kind = 'self-run'"
                     + ("" if skill is None else " AND runs.skill = ?")
                     + " GROUP BY runs.skill", args),
        ledger.query("SELECT skill, workflow, state, runs, iterations FROM end_totals" + only,
                     args),
        ledger.query("SELECT skill, workflow, step, failures, recovered FROM check_totals"
                     + only, args),
        ledger.query("SELECT skill, workflow, step, key, value, recoveries FROM (SELECT *, "
                     "ROW_NUMBER() OVER (PARTITION BY skill, workflow, step ORDER BY "
                     "recoveries DESC, key, value) AS place FROM change_totals" + only
                     + ") AS ranked WHERE place = 1", args),
        ledger.query("SELECT runs.skill, runs.id, events.detail FROM events JOIN runs ON "
                     "runs.id = events.run WHERE events.kind = 'approved-in-advance'"
                     + ("" if skill is None else " AND runs.skill = ?")
                     + " ORDER BY events.at", args))


def skills(ledger: Ledger) -> list[str]:
    """Every skill the ledger has runs of."""
    return [row[0] for row in ledger.query("SELECT DISTINCT skill FROM runs ORDER BY skill")]
