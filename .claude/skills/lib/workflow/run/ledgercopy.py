"""`skillrail ledger copy`: bring a machine's SQLite run history into a team's PostgreSQL ledger
(issue 22), run by run, so that copying again copies nothing and a copy cut short goes on where
it stopped.

The rule, run by run, oldest first (a sub-run after its parent):
- Each run is written in a transaction of its own: the target holds a run whole or not at all,
  whenever the copy is stopped, killed or loses its server.
- The target's copy of a run is the run of the same id with the same skill, workflow and start
  time. An id is the skill's initials and 3 random bytes (runs.new_run_id): unique in one
  ledger, not across a team's machines. A run whose id the target gives to another run is
  copied under a new id, and found again by its skill, workflow and start time next time.
- A run the target lacks is copied whole. One it holds as here is skipped. One it holds
  behind, with nothing this one lacks (the run went on here after an earlier copy), is
  finished: the transitions, values, loop counts, events and cases it lacks are added and its
  step and status brought up to here. One it holds otherwise (it went on in the target, or
  ended differently) is left as it is and named: merging two histories of one run would make
  up a history neither had.
- Rows the ledger numbers itself (memory, events and cases rowids) are numbered by the target;
  what names a run (a sub-run's parent, an agent's or a case's run) is mapped to the id the
  run has there.
- The target's running totals (`stats`) are kept by its triggers, which count each row as it
  arrives: rows go in the order the run made them (its values before the moves they precede, a
  loop's count before the end of its run, the status last), so each move, loop pass and end
  is counted once, as the source's triggers counted it.

The source is read through a read-only connection, in one read transaction (a consistent
snapshot while steps go on writing it). A source at an older schema is read from a temporary
copy migrated by the ledger's own migrations; one at a newer schema is refused."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from ..base.errors import LedgerError, NewerLedger, UsageError
from ..base.paths import is_postgres_url
from .copydelta import MOVING, Delta, delta, whole
from .copysource import COLUMNS, Query, RunRows, open_source, read_run
from .ledger import Ledger
from .ledger_schema import SCHEMA_VERSION

#: What the comparison reads of the target's run: who it is and where it stands (schema 8 has
#: these too, which a dry run may meet).
_COMPARED = ("id", "skill", "workflow", "started", "status", "result", "step", "decided", "hops",
             "updated")
#: Tests only: "N:FILE" holds the N-th run written, its rows in but not committed, after
#: touching FILE, so a test can kill the copy there (as LEDGER_TEST_MARKER does for a step).
TEST_HOLD = "SKILLRAIL_TEST_COPY_HOLD"


class Report(NamedTuple):
    """What a copy did (or, for a dry run, would do)."""

    source: str
    target: str
    dry_run: bool
    #: The schema version the source was read at, when older than this skillrail's.
    migrated_from: int | None
    copied: list[str]
    finished: list[str]
    skipped: list[str]
    #: Runs the target holds otherwise: left as they are.
    differing: list[str]
    #: Source id -> the id its copy has in the target (None: a new one, in a dry run).
    renamed: dict[str, str | None]


def copy_ledger(source: str, target: str, dry_run: bool = False) -> Report:
    """Copy the runs of the SQLite ledger at `source` into the PostgreSQL ledger at `target`
    (module docstring); with `dry_run`, write nothing and say what would be copied."""
    _check_target(target)
    with open_source(source) as (query, version), _open_target(target, dry_run) as ledger:
        empty = dry_run and ledger.query("PRAGMA user_version")[0][0] == 0
        report = Report(source, ledger.path, dry_run,
                        version if version < SCHEMA_VERSION else None, [], [], [], [], {})
        ids: dict[str, str] = {}
        for (run_id,) in query("SELECT id FROM runs ORDER BY rowid", ()):
            mine = read_run(query, run_id)
            if dry_run:
                _plan(ledger, mine, ids, report, empty)
            else:
                _copy_run(ledger, mine, ids, report)
    return report


# -- the target ----------------------------------------------------------------------------

def _check_target(target: str) -> None:
    if not is_postgres_url(target):
        raise UsageError(f"--to wants a PostgreSQL ledger's URL, not '{target}'",
                         fix="Give the team ledger's postgresql://USER@HOST/DB (the password "
                             "in ~/.pgpass or PGPASSWORD)")
    try:
        import psycopg  # noqa: F401 - pgstore imports it; said here as one clear line
    except ImportError:
        raise LedgerError("copying into PostgreSQL needs the Python package psycopg, which is "
                          "not installed", fix="Install it: python -m pip install "
                          "'skillrail[postgres]' (or 'psycopg[binary]')") from None


@contextmanager
def _open_target(url: str, dry_run: bool) -> Iterator[Ledger]:
    """The target, brought to this skillrail's schema as any skillrail brings a ledger it
    opens (an empty database gets the whole schema); a dry run leaves it as it is."""
    try:
        ledger = Ledger(url, migrate=not dry_run)
    except NewerLedger:
        raise  # its own fix says upgrade
    except LedgerError as exc:
        raise LedgerError(exc.what, fix="Check the URL given to --to and that the server is "
                          "up, then run the same command again; nothing was copied") from None
    with ledger:
        yield ledger


def _copy_run(ledger: Ledger, mine: RunRows, ids: dict[str, str], report: Report) -> None:
    """Copy or finish one run in its own transaction (the target decided on inside it, under
    the writers' lock: two copies at once do not both copy a run)."""
    try:
        with ledger.transaction():
            action, theirs_id, lacking = _decide(ledger.query, mine)
            ids[mine.run["id"]] = theirs_id
            if action in ("copy", "finish"):
                assert lacking is not None
                _write(ledger, theirs_id, mine, lacking, action == "copy", ids)
                _hold(len(report.copied) + len(report.finished) + 1)
    except LedgerError as exc:
        raise LedgerError(exc.what, fix="Run the same command again: the runs copied so far "
                          "are whole, and it goes on from there") from None
    _tally(report, action, mine.run["id"], theirs_id)


def _plan(ledger: Ledger, mine: RunRows, ids: dict[str, str], report: Report,
          empty: bool) -> None:
    """What copying would do to one run (a target without the schema yet holds nothing)."""
    if empty:
        action, theirs_id = "copy", mine.run["id"]
    else:
        action, theirs_id, _ = _decide(ledger.query, mine, dry_run=True)
    ids[mine.run["id"]] = theirs_id
    _tally(report, action, mine.run["id"], theirs_id)


def _tally(report: Report, action: str, mine: str, theirs: str) -> None:
    {"copy": report.copied, "finish": report.finished, "skip": report.skipped,
     "differs": report.differing}[action].append(mine)
    if theirs != mine:
        report.renamed[mine] = theirs or None


def _decide(query: Query, mine: RunRows,
            dry_run: bool = False) -> tuple[str, str, Delta | None]:
    """(copy, finish, skip or differs; the run's id in the target; what to write)."""
    found = _find(query, mine.run)
    if found is None:
        return "copy", _free_id(query, mine.run, dry_run), whole(mine)
    lacking = delta(mine, read_run(query, found, _COMPARED))
    if lacking is None:
        return "differs", found, None
    lacking = lacking._replace(agents=_free_agents(query, mine.agents))
    return ("skip" if lacking.empty() else "finish"), found, lacking


def _find(query: Query, run: dict[str, Any]) -> str | None:
    """The id of the target's copy of `run` (module docstring), None when it has none."""
    who = (run["skill"], run["workflow"], run["started"])
    same = query("SELECT skill, workflow, started FROM runs WHERE id = ?", (run["id"],))
    if same and tuple(same[0]) == who:
        return str(run["id"])
    # An earlier copy under a new id: runs_by_skill (skill, started) finds it.
    other = query("SELECT id FROM runs WHERE skill = ? AND started = ? AND workflow = ? "
                  "ORDER BY id LIMIT 1", (run["skill"], run["started"], run["workflow"]))
    return str(other[0][0]) if other else None


def _free_id(query: Query, run: dict[str, Any], dry_run: bool) -> str:
    """The run's own id when the target has no run of that id, else a new one of its skill
    ('' in a dry run: the one a copy draws is its own)."""
    if not query("SELECT 1 FROM runs WHERE id = ?", (run["id"],)):
        return str(run["id"])
    if dry_run:
        return ""
    from .runs import new_run_id

    fresh = new_run_id(run["skill"])
    while query("SELECT 1 FROM runs WHERE id = ?", (fresh,)):
        fresh = new_run_id(run["skill"])
    return fresh


def _free_agents(query: Query, agents: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The run's sub-agent bindings the target has no binding of: one it binds to another
    run (the same sub-agent id, rebound there) stays as it is."""
    return [pair for pair in agents
            if not query("SELECT 1 FROM agents WHERE session = ? AND agent = ?", pair)]


# -- writing -----------------------------------------------------------------------------------

def _write(ledger: Ledger, run_id: str, mine: RunRows, lacking: Delta, new: bool,
           ids: dict[str, str]) -> None:
    """Add what the target lacks of the run, in the order its triggers count right (module
    docstring), inside the caller's transaction."""
    db = ledger.db
    if new:
        _insert_run(ledger, run_id, mine, ids)
    for key, seq, step, value in lacking.memory:
        db.execute("INSERT INTO memory (run, key, seq, step, value) VALUES (?,?,?,?,?)",
                   (run_id, key, seq, step, value))
    for key, seq, step, value in lacking.rewritten:
        db.execute("UPDATE memory SET step = ?, value = ? WHERE run = ? AND key = ? AND seq = ?",
                   (step, value, run_id, key, seq))
    for row in lacking.transitions:
        db.execute("INSERT INTO transitions (run, seq, source, outcome, target, at) "
                   "VALUES (?,?,?,?,?,?)", (run_id, *row))
    _set_loops(ledger, run_id, lacking.loops)
    for row in lacking.events:
        db.execute("INSERT INTO events (run, at, kind, detail) VALUES (?,?,?,?)", (run_id, *row))
    for row in lacking.cases:
        db.execute("INSERT INTO cases (skill, run, kind, at, text) VALUES (?,?,?,?,?)",
                   (row[0], run_id, *row[1:]))
    for session, agent in lacking.agents:
        db.execute("INSERT INTO agents (session, agent, run) VALUES (?,?,?) "
                   "ON CONFLICT DO NOTHING", (session, agent, run_id))
    _move_run(ledger, run_id, mine.run, lacking.run)


def _insert_run(ledger: Ledger, run_id: str, mine: RunRows, ids: dict[str, str]) -> None:
    """The runs row, active: its end is written last (_move_run), when the end_total trigger
    can count the loops it went through."""
    row = {**mine.run, "id": run_id, "status": "active", "result": None,
           "parent": ids.get(mine.run["parent"], mine.run["parent"])}
    ledger.db.execute(f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES "
                      f"({', '.join('?' * len(COLUMNS))})", tuple(row[c] for c in COLUMNS))
    ledger.db.executemany("INSERT INTO params (run, name, value) VALUES (?,?,?)",
                          [(run_id, name, value) for name, value in mine.params])


def _set_loops(ledger: Ledger, run_id: str, counts: dict[str, int]) -> None:
    """A loop count only grows: an update lets the loop_total trigger add what it grew by."""
    for edge, count in counts.items():
        if ledger.query("SELECT 1 FROM loops WHERE run = ? AND edge = ?", (run_id, edge)):
            ledger.db.execute("UPDATE loops SET count = ? WHERE run = ? AND edge = ?",
                              (count, run_id, edge))
        else:
            ledger.db.execute("INSERT INTO loops (run, edge, count) VALUES (?,?,?)",
                              (run_id, edge, count))


def _move_run(ledger: Ledger, run_id: str, run: dict[str, Any], changed: dict[str, Any]) -> None:
    """Bring the runs row to where `run` stands: its step first, its end last (the
    end_total trigger counts the run's end when its status leaves 'active')."""
    moving = [c for c in MOVING if c in changed]
    if moving:
        ledger.db.execute(f"UPDATE runs SET {', '.join(f'{c} = ?' for c in moving)} "
                          "WHERE id = ?", (*(run[c] for c in moving), run_id))
    if "status" in changed or "result" in changed:
        ledger.db.execute("UPDATE runs SET status = ?, result = ? WHERE id = ?",
                          (run["status"], run["result"], run_id))


def _hold(written: int) -> None:
    """TEST_HOLD's pause (tests only), inside the transaction of the `written`-th run."""
    given = os.environ.get(TEST_HOLD, "")
    number, _, marker = given.partition(":")
    if marker and number == str(written):
        with open(marker, "w", encoding="utf-8"):
            pass
        time.sleep(60)
