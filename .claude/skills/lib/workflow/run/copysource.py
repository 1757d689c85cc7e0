"""The source of `skillrail ledger copy` (run/ledgercopy.py): a machine's SQLite run ledger,
read without a write, in one snapshot, at this skillrail's schema, run by run."""

from __future__ import annotations

# The C module alone, as in ledger.py.
import _sqlite3 as sqlite3
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple
from urllib.parse import quote

from ..base.errors import LedgerError, UsageError
from .ledger import RUN_COLUMNS, Ledger
from .ledger_schema import SCHEMA_VERSION

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
