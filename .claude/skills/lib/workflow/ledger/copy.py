"""`skillrail ledger copy`: bring a machine's SQLite run history into a team's PostgreSQL ledger
(issue 22), run by run, so that copying again copies nothing and a copy cut short goes on where
it stopped.

The rule, run by run, oldest first (a sub-run after its parent):
- Each run is written in a transaction of its own: the target holds a run whole or not at all,
  whenever the copy is stopped, killed or loses its server.
- The target's copy of a run is the run of the same id with the same skill, workflow and start
  time. An id is the skill's initials and 3 random bytes (store.new_run_id): unique in one
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
copy migrated by the ledger's own migrations; one at a newer schema is refused.

The module reads as the copy goes: the copy itself, then its source (a machine's ledger read
without a write, in one snapshot, run by run), then what the target's copy of a run lacks."""

from __future__ import annotations

# The C module alone, as in store.py.
import _sqlite3 as sqlite3
import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple
from urllib.parse import quote

from ..base.errors import LedgerError, NewerLedger, UsageError
from ..base.paths import is_postgres_url
from .schema import SCHEMA_VERSION
from .store import RUN_COLUMNS, Ledger, new_run_id

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


# -- the source: a machine's SQLite run ledger, read without a write, in one snapshot, at this
# skillrail's schema, run by run.

#: A query on one ledger: SQL with `?` placeholders and its arguments, to its rows.
Query = Callable[[str, tuple[Any, ...]], list[Any]]

#: The columns of `runs` a copy writes: every one but the target's own rowid.
COLUMNS = tuple(RUN_COLUMNS.split(", "))


class RunRows(NamedTuple):
    """One run as a ledger holds it, each table's rows in the order the run wrote them."""

    run: dict[str, Any]
    params: list[tuple[Any, ...]]  # (name, value)
    transitions: list[tuple[Any, ...]]  # (seq, source, outcome, target, at)
    memory: list[tuple[Any, ...]]  # (key, seq, step, value)
    loops: dict[str, int]  # edge: count
    events: list[tuple[Any, ...]]  # (at, kind, detail)
    agents: list[tuple[Any, ...]]  # (session, agent)
    cases: list[tuple[Any, ...]]  # (skill, kind, at, text)


@contextmanager
def open_source(given: str) -> Iterator[tuple[Query, int]]:
    """A query on the SQLite ledger at `given` (its path) inside one read
    transaction, and its schema version; never a write to it."""
    path = given
    if not os.path.isfile(path):
        raise UsageError(f"no run ledger at {path}", fix="Name the SQLite ledger to copy with "
                         "--from PATH (default: this machine's, under SKILLRAIL_HOME)")
    db = _read_only(path)
    try:
        version = _source_version(db, path)
        if version == SCHEMA_VERSION:
            yield _snapshot(db, path), version
            return
        with _migrated_copy(db, path) as copy:
            yield _snapshot(copy, path), version
    finally:
        db.close()


def _read_only(path: str) -> sqlite3.Connection:
    """mode=ro: SQLite itself refuses every write, so the copy cannot change the source."""
    try:
        return sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True,
                               isolation_level=None, timeout=5)
    except sqlite3.Error as exc:
        raise _source_error(path, exc) from None


def _source_version(db: sqlite3.Connection, path: str) -> int:
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'runs'").fetchall()
    except sqlite3.Error as exc:
        raise _source_error(path, exc) from None
    if version > SCHEMA_VERSION:
        raise LedgerError(f"the run ledger {path} has schema version {version}, newer than "
                          f"this skillrail's {SCHEMA_VERSION}", fix="Upgrade skillrail (pip "
                          "install --upgrade skillrail) on this machine, then copy again")
    if not version or not tables:
        raise UsageError(f"{path} is no run ledger (it has no runs table)",
                         fix="Name the ledger file with --from PATH (runs.sqlite3 under "
                             "SKILLRAIL_HOME)")
    return version


@contextmanager
def _migrated_copy(db: sqlite3.Connection, path: str) -> Iterator[sqlite3.Connection]:
    """An older source, copied to a temporary file and brought to this skillrail's schema by
    the ledger's own migrations: read as a current ledger, the source left at its version
    (migrating it would be a write, and the older skillrail that wrote it may still run)."""
    folder = tempfile.mkdtemp(prefix="skillrail-copy-")
    copy_path = os.path.join(folder, "runs.sqlite3")
    try:
        copy = sqlite3.connect(copy_path, isolation_level=None)
        try:
            db.backup(copy)
        except sqlite3.Error as exc:
            raise _source_error(path, exc) from None
        finally:
            copy.close()
        with Ledger(copy_path):
            pass  # opening it migrates it
        migrated = sqlite3.connect(copy_path, isolation_level=None)
        try:
            yield migrated
        finally:
            migrated.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _snapshot(db: sqlite3.Connection, path: str) -> Query:
    """Queries that all see the source as it was at the first (steps going on meanwhile
    write after the snapshot; a run is never read half-advanced)."""
    def query(sql: str, args: tuple[Any, ...]) -> list[Any]:
        try:
            return db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise _source_error(path, exc) from None

    query("BEGIN", ())
    query("SELECT COUNT(*) FROM runs", ())  # the snapshot starts at the first read
    return query


def _source_error(path: str, exc: BaseException) -> LedgerError:
    return LedgerError(f"cannot read the run ledger {path}: {exc}",
                       fix="Check the file given to --from; nothing was copied from it")


def read_run(query: Query, run_id: str, columns: tuple[str, ...] = COLUMNS) -> RunRows:
    """Run `run_id`'s rows, each table's in the order written (the same SQL for both kinds of
    ledger: PostgreSQL's tables keep a `rowid` where SQLite's order is theirs)."""
    def rows(sql: str) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in query(sql, (run_id,))]

    (row,) = rows(f"SELECT {', '.join(columns)} FROM runs WHERE id = ?")
    return RunRows(
        dict(zip(columns, row, strict=True)),
        rows("SELECT name, value FROM params WHERE run = ?"),
        rows("SELECT seq, source, outcome, target, at FROM transitions WHERE run = ? "
             "ORDER BY seq"),
        rows("SELECT key, seq, step, value FROM memory WHERE run = ? ORDER BY rowid"),
        dict(rows("SELECT edge, count FROM loops WHERE run = ?")),
        rows("SELECT at, kind, detail FROM events WHERE run = ? ORDER BY rowid"),
        rows("SELECT session, agent FROM agents WHERE run = ?"),
        rows("SELECT skill, kind, at, text FROM cases WHERE run = ? ORDER BY rowid"))


# -- what the target's copy of a run lacks of the source's: the rows to add, or None when the
# target's copy is no earlier state of this run.

#: The columns of a run its later steps change (ledger.advance, decide, set_status).
MOVING = ("step", "decided", "hops", "updated")


class Delta(NamedTuple):
    """What the target's copy of a run lacks of it."""

    memory: list[tuple[Any, ...]]  # rows to add
    rewritten: list[tuple[Any, ...]]  # values of the pending move recorded again since
    transitions: list[tuple[Any, ...]]
    loops: dict[str, int]  # counts to set
    events: list[tuple[Any, ...]]
    cases: list[tuple[Any, ...]]
    agents: list[tuple[Any, ...]]  # bindings whose (session, agent) the target has free
    run: dict[str, Any]  # the runs columns to bring up to the source's

    def empty(self) -> bool:
        return not any(self)


def whole(mine: RunRows) -> Delta:
    """All of a run, for a target without it (its runs row aside: _insert_run)."""
    ended = {} if mine.run["status"] == "active" else {"status": mine.run["status"]}
    return Delta(mine.memory, [], mine.transitions, mine.loops, mine.events, mine.cases,
                 mine.agents, ended)


def delta(mine: RunRows, theirs: RunRows) -> Delta | None:
    """What `theirs` (the target's copy) lacks of `mine`, its agents aside (_free_agents);
    None when it holds something `mine` does not, so that it is no earlier state of this run."""
    if not _behind(theirs.run, mine.run) or sorted(theirs.params) != sorted(mine.params):
        return None
    if mine.transitions[:len(theirs.transitions)] != theirs.transitions:
        return None
    if any(n > mine.loops.get(edge, -1) for edge, n in theirs.loops.items()):
        return None
    memory = _memory(mine.memory, theirs.memory, theirs.run["hops"])
    events, cases = _extra(mine.events, theirs.events), _extra(mine.cases, theirs.cases)
    if memory is None or events is None or cases is None:
        return None
    return Delta(memory[0], memory[1], mine.transitions[len(theirs.transitions):],
                 {edge: n for edge, n in mine.loops.items() if theirs.loops.get(edge) != n},
                 events, cases, [],
                 {c: mine.run[c] for c in (*MOVING, "status", "result")
                  if theirs.run[c] != mine.run[c]})


def _behind(theirs: dict[str, Any], mine: dict[str, Any]) -> bool:
    """Whether the target's run could be an earlier state of ours: not further on, and
    either still active or ended as ours did (an ended run never moves again)."""
    ended_alike = (theirs["status"], theirs["result"]) == (mine["status"], mine["result"])
    return bool(theirs["hops"] <= mine["hops"] and theirs["updated"] <= mine["updated"]
                and (theirs["status"] == "active" or ended_alike))


def _memory(mine: list[tuple[Any, ...]], theirs: list[tuple[Any, ...]],
            hops: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]] | None:
    """(values to add, values to rewrite), or None when the target holds one we do not. A
    value of a move made (seq below the run's hops) never changes; one of the move still to
    come may be recorded again (ledger.remember replaces it), so ours replaces it."""
    have = {(key, seq): (step, value) for key, seq, step, value in theirs}
    want = {(key, seq): (step, value) for key, seq, step, value in mine}
    if any(k not in want or (k[1] < hops and want[k] != v) for k, v in have.items()):
        return None
    added = [row for row in mine if (row[0], row[1]) not in have]
    rewritten = [row for row in mine if have.get((row[0], row[1]), (row[2], row[3]))
                 != (row[2], row[3])]
    return added, rewritten


def _extra(mine: list[tuple[Any, ...]],
           theirs: list[tuple[Any, ...]]) -> list[tuple[Any, ...]] | None:
    """Our rows the target lacks, in our order (rows may repeat: counted, not set-wise); None
    when it has one we do not."""
    left = Counter(theirs)
    if left - Counter(mine):
        return None
    lacking = []
    for row in mine:
        if left[row]:
            left[row] -= 1
        else:
            lacking.append(row)
    return lacking
