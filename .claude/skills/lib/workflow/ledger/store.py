"""The run ledger: an embedded SQLite database that remembers every run (docs/DESIGN.md section 6),
or a team's PostgreSQL database (pgstore.py) when `SKILLRAIL_LEDGER` names one. Its file is
paths.ledger_path's: `$SKILLRAIL_HOME/runs.sqlite3`, else under `$XDG_STATE_HOME/skillrail/`,
else `~/.local/state/skillrail/`.

One connection per invocation. Every check-and-advance happens inside `BEGIN IMMEDIATE`, so two
processes advancing the same run serialize: the second sees the first one's result. WAL keeps
readers off writers' backs; the schema version lives in `PRAGMA user_version` and moves forward
only, by the migrations listed below.
"""

from __future__ import annotations

# The C module alone: the `sqlite3` package around it adds only the default datetime adapters,
# whose imports (datetime, math) cost more than a millisecond of every step of a run. Its
# classes and exceptions are the package's own.
import _sqlite3 as sqlite3
import os
import sys
import time

from ..base.errors import LedgerError, NewerLedger
from ..base.paths import foreign_writer, is_postgres_url, ledger_path, ledger_url
from .schema import MIGRATIONS, SCHEMA_VERSION

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from ..base.records import NamedTuple

BUSY_TIMEOUT_MS = 5_000
#: What the WAL file is trimmed back to after a checkpoint when a big write grew it.
WAL_LIMIT_BYTES = 8 * 1024 * 1024


# -- the write-ahead log, kept between steps and kept short: each step's commit then costs no
# disk sync, and no step pays for copying a long WAL.

#: A WAL longer than this is emptied by the process that leaves it so (`trim_wal`).
WAL_CHECKPOINT_BYTES = 1024 * 1024
#: Characters a path may hold that an SQLite URI reads as syntax.
_URI_ESCAPES = {"%": "%25", "?": "%3f", "#": "%23"}


def keep_wal(db: sqlite3.Connection, path: str, busy_ms: int) -> sqlite3.Connection | None:
    """Keep the WAL file when this process lets go of the ledger. The last connection to
    close would checkpoint it (an fdatasync of it and of the ledger) and delete it, and the
    next step's first commit would write a new one (an fdatasync of it and of the folder):
    four syncs a step that synchronous=NORMAL does not ask for, since a commit in the WAL
    survives its process. `trim_wal` keeps the kept WAL short. Python 3.12 turns the
    close's checkpoint off (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE); 3.11 cannot, so there a
    read-only connection, returned, stays open until this one has closed (Ledger.__exit__):
    this one is then not the last, and the read-only one cannot checkpoint."""
    if sys.version_info >= (3, 12):
        db.setconfig(sqlite3.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, True)
        return None
    uri = "file:" + "".join(_URI_ESCAPES.get(c, c) for c in path) + "?mode=ro"
    keeper = sqlite3.connect(uri, uri=True, timeout=busy_ms / 1000, isolation_level=None)
    keeper.execute("PRAGMA schema_version").fetchone()  # in WAL mode, holds a shared lock
    return keeper


def trim_wal(db: sqlite3.Connection, path: str) -> None:
    """Checkpoint the WAL and empty it once it is over WAL_CHECKPOINT_BYTES, waiting for
    no one (a later exit does it). SQLite's own checkpoints cannot keep a kept WAL short:
    each process, the first to open the ledger, rebuilds the WAL's index counting none of
    it as copied, so no writer ever finds it all copied and starts it over, and past 1,000
    pages every step's first commit copies all of it again (tens of ms once it is big)."""
    try:
        if os.stat(path + "-wal").st_size > WAL_CHECKPOINT_BYTES:
            db.execute("PRAGMA busy_timeout = 0")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except (OSError, sqlite3.Error):
        pass


def use_wal(db: sqlite3.Connection, busy_ms: int) -> None:
    """Switch a new ledger to WAL once (the mode persists in the file). Changing the mode
    takes an exclusive lock that SQLite's busy timeout does not wait for, so wait here."""
    deadline = time.monotonic() + busy_ms / 1000
    while db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            db.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def new_run_id(skill: str) -> str:
    """A short id that says whose it is: 'pa-7f3a2c' for problem-analysis."""
    parts = skill.split("-")
    prefix = "".join(p[0] for p in parts[:3]) if len(parts) > 1 else skill[:2]
    return f"{prefix}-{os.urandom(3).hex()}"  # os.urandom: `secrets` costs ~4 ms to import


class Run(NamedTuple):
    """One row of `runs`, with the run's loop counters and latest memory values."""

    id: str
    skill: str
    workflow: str
    script: str
    fingerprint: str
    workspace: str
    session: str | None
    params: dict[str, str]
    status: str
    parent: str | None
    step: str
    decided: str | None
    hops: int
    started: float
    updated: float
    counts: dict[str, int]
    memory: dict[str, str]
    result: str | None = None  # a completed run's: 'success' or 'partial' (schema V7)
    host: str | None = None  # the machine and the login that started it (V9; None before)
    who: str | None = None
    #: The project folder the run started in, on the machine that started it (V10): where its
    #: settings and policy are, unlike `workspace`, which names the repository for sharing.
    folder: str | None = None
    #: The Claude Code settings file whose hooks made the run's questions binding when it
    #: started (V10; None: advisory then, or a run from before).
    gate: str | None = None

    @property
    def state(self) -> str:
        """What listings show: the status, 'partial' for a run completed with part done."""
        return "partial" if self.status == "completed" and self.result == "partial" else \
            self.status


#: The runs table's columns, in Run's order (params, counts and memory aside).
RUN_COLUMNS = ("id, skill, workflow, script, fingerprint, workspace, session, status, parent, "
                "step, decided, hops, started, updated, result, host, who, folder, gate")


class Ledger:
    """A connection to the ledger file. Use as a context manager; `transaction()` for writes."""

    def __init__(self, path: str | None = None, busy_ms: int = BUSY_TIMEOUT_MS,
                 migrate: bool = True) -> None:
        """`path`: the SQLite file, or a `postgresql://` URL (default: base/paths.ledger_url,
        else the file under the state folder). `busy_ms`: how long to wait for another writer
        (hooks, which must answer fast, wait less and let the action through when the ledger
        stays busy). `migrate=False` leaves an older (or empty) ledger at its schema version,
        for a caller that only reads what is there (`ledger copy --dry-run`, its target); a
        newer one is refused either way."""
        where = path or ledger_url() or ledger_path()
        self.busy_ms = busy_ms
        self._keeper: sqlite3.Connection | None = None
        self.shared = is_postgres_url(where)
        if self.shared:
            from .pgstore import Connection, shown

            self.path = shown(where)
            try:
                # It speaks sqlite3's interface (pgstore's docstring): one ledger for both.
                self.db: sqlite3.Connection = Connection(  # type: ignore[assignment]  # duck
                    where, busy_ms)
            except sqlite3.Error as exc:
                raise self.error("cannot be opened", exc) from None
            with self._opening(sqlite3.Error):
                self._migrate(migrate)
            return
        self.path = where
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self._check_owner()
            self.db = sqlite3.connect(self.path, timeout=busy_ms / 1000, isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise self.error("cannot be opened", exc) from None
        with self._opening(sqlite3.Error, OSError):
            self.db.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
            use_wal(self.db, self.busy_ms)
            # In WAL mode NORMAL syncs only at checkpoints: a commit survives the process being
            # killed (it is in the OS's cache); a power cut may lose the last ones, never the
            # file's consistency. FULL would add an fdatasync to every commit.
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES}")
            self._migrate(migrate)
            self._keeper = keep_wal(self.db, self.path, self.busy_ms)

    def _opening(self, *database_errors: type[Exception]) -> _Opening:
        """The rest of opening, once the connection is made: one of `database_errors` becomes
        the ledger's "cannot be opened", and whatever fails (a newer schema too) closes the
        connection first, so a long-lived caller (a library user, a test running steps
        in-process) keeps none open."""
        return _Opening(self, database_errors)

    def _check_owner(self) -> None:
        """A ledger another user could write could hold any run: it is refused."""
        for place in (os.path.dirname(self.path), self.path):
            why = foreign_writer(place)
            if why is not None:
                raise LedgerError(f"the run ledger {self.path} is refused: {place} {why}",
                                  fix=f"Only you may write it: `chmod go-w {place}` (and chown "
                                      "it to yourself), or set SKILLRAIL_HOME=DIR to keep it "
                                      "elsewhere")

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.shared:
            trim_wal(self.db, self.path)
        self.db.close()
        if self._keeper is not None:
            self._keeper.close()  # after self.db: see keep_wal

    def error(self, doing: str, exc: BaseException) -> LedgerError:
        """Our error for a failed sqlite call: busy, damaged, or not writable, each with the
        fix that fits (moving a merely busy ledger aside would lose every run)."""
        text = str(exc)
        if "locked" in text or "busy" in text:  # on a server too (pgstore: lock_timeout)
            return LedgerError(f"the run ledger is busy ({self.path}): {text}",
                               fix="Another process held it for over "
                                   f"{self.busy_ms / 1000:g} s; run the same command again")
        if self.shared:  # the team's server: unreachable, restarted, refusing, or no rights
            fix = ("This database role may not use skillrail's tables: connect as the role that "
                   "owns them, or have it grant yours the rights README's 'A team ledger' lists"
                   if "permission denied" in text else "Check that the server is up and "
                   "SKILLRAIL_LEDGER (or `ledger:` in .claude/skillrail.yaml) names it, then "
                   "run the same command again")
        elif type(exc) is sqlite3.DatabaseError or "malformed" in text or "not a database" in text:
            fix = (f"The file is damaged: move it aside (mv {self.path} {self.path}.bad) to start "
                   "a new ledger; add --stateless to run a skill without the ledger meanwhile")
        else:
            fix = ("Check that its folder is writable, or set SKILLRAIL_HOME=DIR to keep it "
                   "elsewhere; --stateless runs a skill without it")
        return LedgerError(f"the run ledger {doing} ({self.path}): {text}", fix=fix)

    def _migrate(self, upgrade: bool = True) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise NewerLedger(f"the run ledger {self.path} has schema version {version}, newer "
                              f"than this skillrail's {SCHEMA_VERSION}",
                              fix="Upgrade skillrail (pip install --upgrade skillrail), or set "
                                  "SKILLRAIL_HOME (or SKILLRAIL_LEDGER) to another ledger")
        if version == SCHEMA_VERSION or not upgrade:
            return
        with self.transaction():
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            for migrate in MIGRATIONS[version:]:
                migrate(self.db)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def transaction(self) -> _Transaction:
        """`with ledger.transaction() as db:` BEGIN IMMEDIATE ... COMMIT, rolled back on any
        exception."""
        return _Transaction(self)

    def _rollback(self) -> None:
        # SQLite may have rolled back already (e.g. after a disk error); nothing is committed.
        try:  # noqa: SIM105 - contextlib would cost every hook its import
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    # -- reading ---------------------------------------------------------------------------

    def run(self, run_id: str) -> Run | None:
        row = self._query(f"SELECT {RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,))
        if not row:
            return None
        counts = dict(self._query("SELECT edge, count FROM loops WHERE run = ?", (run_id,)))
        memory = dict(self._query(
            "SELECT key, value FROM memory m WHERE run = ? AND seq = "
            "(SELECT MAX(seq) FROM memory WHERE run = m.run AND key = m.key)", (run_id,)))
        params = dict(self._query("SELECT name, value FROM params WHERE run = ?", (run_id,)))
        *fields, result, host, who, folder, gate = row[0]
        fields.insert(7, params)
        return Run._make([*fields, counts, memory, result, host, who, folder, gate])

    def exists(self, run_id: str) -> bool:
        return bool(self._query("SELECT 1 FROM runs WHERE id = ?", (run_id,)))

    def transitions(self, run_id: str) -> list[tuple[int, str, str, str, float]]:
        return self._query("SELECT seq, source, outcome, target, at FROM transitions WHERE "
                           "run = ? ORDER BY seq", (run_id,))

    def last_move(self, run_id: str) -> str | None:
        """`source:outcome` of the run's last transition (None before its first)."""
        rows = self._query("SELECT source, outcome FROM transitions WHERE run = ? ORDER BY seq "
                           "DESC LIMIT 1", (run_id,))
        return f"{rows[0][0]}:{rows[0][1]}" if rows else None

    def memory_at(self, run_id: str, seq: int) -> dict[str, str]:
        """The values written by transition `seq`."""
        return dict(self._query("SELECT key, value FROM memory WHERE run = ? AND seq = ?",
                                (run_id, seq)))

    def memory_writes(self, run_id: str) -> list[tuple[int, str, str, str]]:
        """(seq, key, step, value) of every value the run recorded, in the order written."""
        return self._query("SELECT seq, key, step, value FROM memory WHERE run = ? "
                           "ORDER BY seq, rowid", (run_id,))

    def recorded(self, run_id: str, key: str) -> list[str]:
        """Every value the run recorded for `key`, oldest first."""
        return [row[0] for row in self._query(
            "SELECT value FROM memory WHERE run = ? AND key = ? ORDER BY seq", (run_id, key))]

    def events(self, run_id: str) -> list[tuple[float, str, str]]:
        """(at, kind, detail) of the run's events (start, completed, ...), oldest first."""
        return self._query("SELECT at, kind, detail FROM events WHERE run = ? "
                           "ORDER BY at, rowid", (run_id,))

    def sub_runs(self, run_id: str) -> list[Run]:
        """The runs started with `--parent run_id`, oldest first."""
        rows = self._query("SELECT id FROM runs WHERE parent = ? ORDER BY started", (run_id,))
        return [run for run in (self.run(row[0]) for row in rows) if run is not None]

    def query(self, sql: str, args: tuple[Any, ...] | dict[str, Any] = ()) -> list[Any]:
        """Rows of one read; a failure becomes a LedgerError (for modules that keep their own
        queries on the ledger's tables, such as sessions.py and listing.py)."""
        return self._query(sql, args)

    def _query(self, sql: str, args: tuple[Any, ...] | dict[str, Any]) -> list[Any]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise self.error("cannot be read", exc) from None

    # -- writing (inside transaction()) ----------------------------------------------------

    def create(self, run: Run) -> None:
        now = time.time()
        self.db.execute(
            f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (run.id, run.skill, run.workflow, run.script, run.fingerprint, run.workspace,
             run.session, run.status, run.parent, run.step, run.decided, run.hops, now, now,
             run.result, run.host, run.who, run.folder, run.gate))
        self.db.executemany("INSERT INTO params VALUES (?,?,?)",
                            [(run.id, k, v) for k, v in run.params.items()])
        self.event(run.id, "start", run.step)

    def advance(self, run: Run, outcome: str, target: str, values: dict[str, str],
                counts: dict[str, int]) -> None:
        """Record the transition from the run's step to `target` with the values it brought."""
        seq = run.hops
        now = time.time()
        self.db.execute("INSERT INTO transitions VALUES (?,?,?,?,?,?)",
                        (run.id, seq, run.step, outcome, target, now))
        self.db.executemany("INSERT INTO memory VALUES (?,?,?,?,?)",
                            [(run.id, k, seq, run.step, v) for k, v in values.items()])
        self.db.executemany("INSERT OR REPLACE INTO loops VALUES (?,?,?)",
                            [(run.id, k, n) for k, n in counts.items()
                             if run.counts.get(k) != n])
        self.db.execute("UPDATE runs SET step = ?, decided = NULL, hops = hops + 1, updated = ? "
                        "WHERE id = ?", (target, now, run.id))

    def decide(self, run_id: str, outcome: str | None) -> None:
        """Remember the outcome a script-decided step chose, so the next command must take it."""
        self.db.execute("UPDATE runs SET decided = ? WHERE id = ?", (outcome, run_id))

    def remember(self, run_id: str, seq: int, step: str, key: str, value: str) -> None:
        """A value the script itself recorded (a check's output) for the move `seq`."""
        self.db.execute("INSERT OR REPLACE INTO memory VALUES (?,?,?,?,?)",
                        (run_id, key, seq, step, value))

    def set_status(self, run_id: str, status: str, why: str = "",
                   result: str | None = None) -> None:
        """A run's new status; `result` is how a completed one ended (success or partial)."""
        self.db.execute("UPDATE runs SET status = ?, result = ?, updated = ? WHERE id = ?",
                        (status, result, time.time(), run_id))
        self.event(run_id, "partial" if result == "partial" else status, why)

    def event(self, run_id: str, kind: str, detail: str) -> None:
        self.db.execute("INSERT INTO events VALUES (?,?,?,?)", (run_id, time.time(), kind,
                                                                detail))

    def integrity(self) -> str:
        """SQLite's own integrity check: 'ok' when the file is sound (PostgreSQL: 'ok')."""
        return str(self.db.execute("PRAGMA integrity_check").fetchone()[0])


# The ledger's context managers are classes rather than contextlib's generators: a hook, a new
# interpreter for each of the agent's tool calls, would pay for contextlib's import.

class _Opening:
    """Ledger._opening: closes the connection on any failure, one of `errors` becoming the
    ledger's "cannot be opened"."""

    def __init__(self, ledger: Ledger, errors: tuple[type[Exception], ...]) -> None:
        self.ledger, self.errors = ledger, errors

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        if exc is None:
            return
        self.ledger.db.close()
        if isinstance(exc, self.errors):
            raise self.ledger.error("cannot be opened", exc) from None


class _Transaction:
    """Ledger.transaction: BEGIN IMMEDIATE on entry; COMMIT on a clean exit, else ROLLBACK (a
    database error becoming the ledger's "cannot be written")."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.ledger.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self.ledger.error("cannot be written", exc) from None
        return self.ledger.db

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        if exc is not None:
            self.ledger._rollback()
            if isinstance(exc, sqlite3.Error):
                raise self.ledger.error("cannot be written", exc) from None
            return
        try:
            self.ledger.db.execute("COMMIT")
        except sqlite3.Error as error:
            raise self.ledger.error("cannot be written", error) from None
