"""The evidence store: what only the user's side writes, and what the gates believe.

- `turns`: when the user last spoke in an agent session, recorded by the UserPromptSubmit hook
  (and by PostToolUse for an AskUserQuestion the user answered);
- `questions`: when the hooks first saw an `<ask_user>` step of a run printed (PostToolUse on
  the step command), and in which session: the question's time and the run's real session,
  whatever the run ledger, which the agent's Bash can write, says;
- `trust`: the skills the user trusts to run commands (`skillrail trust`), with a digest of
  their files (trust.py);
- `runs`: the runs the hooks saw a step of (printed, or named by a step command), with the
  session, the project folder, and the workflow as it was then (its fingerprint, and the facts
  an audit needs: its entry, its ask_user steps, its moves; and each step's tools): such a
  run's questions are binding for life, and its ledger and tools are judged by that workflow,
  whatever its ledger row or its script say later (askgate.py, step/shape.py);
- `tampered`: runs whose ledger moved in a way no observed step could have moved it (past a
  question the user did not answer, or to a position no printed step held), with the reason;
  their next step is refused, and the Stop hook tells the user once (`told`);
- `approvals`: questions the user approved in advance (standing.py), typed in their prompt
  (UserPromptSubmit, recorded with that turn) or given with `skillrail approve` at their
  terminal, with their words.

It is a SQLite file of its own, in a folder of its own beside the run ledger
(`<ledger folder>/evidence/`), so that Claude Code's sandbox can let the agent's Bash write the
ledger (step scripts record runs there) and deny it this folder (`skillrail hooks install
--sandbox`). It uses a rollback journal, not WAL: then a reader needs nothing but read access,
and step scripts running in that sandbox open it read-only.
"""

from __future__ import annotations

# The C module alone, as in the run ledger (ledger/store.py): the package around it costs a step
# that only looks whether a run was found tampered with more than the look itself.
import _sqlite3 as sqlite3
import os
import time
from collections.abc import Iterable, Sequence

from ..base.errors import LedgerError
from ..base.paths import evidence_dir, foreign_writer

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Any

    from .standing import Approval

_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    session TEXT PRIMARY KEY,
    first   REAL NOT NULL,
    last    REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS prompts (
    session TEXT PRIMARY KEY,
    words   TEXT NOT NULL,
    at      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS questions (
    run     TEXT NOT NULL,
    hops    INTEGER NOT NULL,
    step    TEXT NOT NULL,
    session TEXT NOT NULL,
    seen    REAL NOT NULL,
    PRIMARY KEY (run, hops)
);
CREATE TABLE IF NOT EXISTS trust (
    folder  TEXT PRIMARY KEY,
    digest  TEXT NOT NULL,
    files   INTEGER NOT NULL,
    at      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run         TEXT PRIMARY KEY,
    session     TEXT NOT NULL,
    folder      TEXT NOT NULL,
    first       REAL NOT NULL,
    fingerprint TEXT NOT NULL,
    facts       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tampered (
    run     TEXT PRIMARY KEY,
    why     TEXT NOT NULL,
    at      REAL NOT NULL,
    told    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS approvals (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    scope     TEXT NOT NULL,
    condition TEXT NOT NULL,
    until     REAL,
    words     TEXT NOT NULL,
    source    TEXT NOT NULL,
    session   TEXT,
    run       TEXT,
    skill     TEXT,
    at        REAL NOT NULL
)
"""
SCHEMA_VERSION = 4
#: A hook must answer fast; a writer holding the store longer than this lets the action pass.
BUSY_MS = 2_000


def default_path() -> str:
    return os.path.join(evidence_dir(), "evidence.sqlite3")


class Evidence:
    """A connection to the store. `writable=False` opens an existing file read-only (a missing
    file is LedgerError); use `read_only()` to get None instead."""

    def __init__(self, path: str | None = None, writable: bool = True) -> None:
        self.path = path or default_path()
        try:
            if writable:
                os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
            self._check_owner()
            if writable:
                fresh = not os.path.exists(self.path)
                self.db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000,
                                          isolation_level=None)
                if fresh:
                    os.chmod(self.path, 0o600)
                self._prepare()
            else:
                uri = "file:" + self.path.replace("?", "%3f").replace("#", "%23") + "?mode=ro"
                self.db = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000,
                                          isolation_level=None)
            #: A store the hooks of an older skillrail wrote lacks the later tables: a reader
            #: finds nothing in them (a writer adds them first).
            self.version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        except (sqlite3.Error, OSError) as exc:
            raise self._error(exc) from None

    def _check_owner(self) -> None:
        """Evidence another user could have written proves nothing: refuse it."""
        for place in (os.path.dirname(self.path), self.path):
            why = foreign_writer(place)
            if why is not None:
                raise LedgerError(f"the evidence store {self.path} is not believed: {place} "
                                  f"{why}", fix=f"Only you may write it: `chmod go-w {place}` "
                                  "(and chown it to yourself), or remove the folder")

    def _prepare(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise LedgerError(f"the evidence store {self.path} is newer than this skillrail",
                              fix="Upgrade skillrail")
        if version == SCHEMA_VERSION:
            return  # every hook opens the store: a write only when it is new or older
        if self.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            self.db.execute("PRAGMA journal_mode = DELETE")
        with self.transaction() as db:
            for statement in _SCHEMA.split(";"):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _error(self, exc: BaseException) -> LedgerError:
        return LedgerError(f"the evidence store {self.path} cannot be used: {exc}",
                           fix="Only skillrail's hooks and `skillrail trust`, run by the user, "
                               "write it; check that its folder is readable (and writable "
                               "for them)")

    def __enter__(self) -> Evidence:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def transaction(self) -> _Transaction:
        """`with store.transaction() as db:` BEGIN IMMEDIATE ... COMMIT, rolled back on any
        exception (a class, not contextlib's: a hook would pay for its import)."""
        return _Transaction(self)

    def _query(self, sql: str, args: tuple[object, ...] = (),
               since: int = 1) -> list[tuple[Any, ...]]:
        """Rows of one read (SQLite's values, typed by the columns read); none from a table
        added at version `since` of a store older than that."""
        if self.version < since:
            return []
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    # -- user turns ----------------------------------------------------------------------

    def record_turn(self, session: str, approvals: Sequence[Approval] = (),
                    words: str | None = None) -> None:
        """The user spoke in `session`; `approvals`: what that turn approved in advance, kept
        with the turn's own time (a later turn ends them, standing.py); `words`: what the user
        typed, the session's latest request (`prompt`)."""
        now = time.time()
        with self.transaction() as db:
            db.execute("INSERT INTO turns VALUES (?,?,?) ON CONFLICT(session) DO UPDATE SET "
                       "last = excluded.last", (session, now, now))
            if words:
                db.execute("INSERT OR REPLACE INTO prompts VALUES (?,?,?)", (session, words, now))
            for a in approvals:
                self._insert_approval(db, a._replace(session=session, at=now))

    # -- approvals given in advance --------------------------------------------------------

    def approve(self, approval: Approval) -> int:
        """Record an approval given at the user's terminal (`skillrail approve`); its id."""
        with self.transaction() as db:
            return self._insert_approval(db, approval._replace(at=time.time()))

    @staticmethod
    def _insert_approval(db: sqlite3.Connection, a: Approval) -> int:
        cursor = db.execute(
            "INSERT INTO approvals (scope, condition, until, words, source, session, run, "
            "skill, at) VALUES (?,?,?,?,?,?,?,?,?)",
            (a.scope, a.condition, a.until, a.words, a.source, a.session, a.run, a.skill, a.at))
        return int(cursor.lastrowid or 0)

    def approvals(self, sessions: Iterable[str], runs: Iterable[str]) -> list[Approval]:
        """The approvals typed in `sessions` or given for `runs`, newest first."""
        from .standing import Approval

        sessions, runs = list(sessions), list(runs)
        rows = self._query(
            "SELECT id, scope, condition, until, words, source, session, run, skill, at FROM "
            f"approvals WHERE session IN ({','.join('?' * len(sessions))}) OR run IN "
            f"({','.join('?' * len(runs))}) ORDER BY at DESC, id DESC", (*sessions, *runs), 3)
        return [Approval._make(row) for row in rows]  # the columns are the fields, in order

    def last_turn(self, session: str) -> float | None:
        rows = self._query("SELECT last FROM turns WHERE session = ?", (session,))
        return float(rows[0][0]) if rows else None

    # -- questions -----------------------------------------------------------------------

    def saw_question(self, run: str, hops: int, step: str, session: str) -> None:
        """The hooks saw run `run` print its ask_user step `step` at position `hops`; the first
        sighting of that position counts (a reprint does not move the question's time)."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO questions VALUES (?,?,?,?,?)",
                       (run, hops, step, session, time.time()))

    def saw_stateless_question(self, workflow: str, step: str, session: str) -> None:
        """The same for a stateless run (no run id, no position): kept per session and
        workflow, and the latest sighting counts, so an answer given to an earlier visit of
        the step never answers a later one."""
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO questions VALUES (?,?,?,?,?)",
                       (stateless_key(session, workflow), 0, step, session, time.time()))

    def questions(self, run: str) -> list[tuple[int, str, str, float]]:
        """(hops, step, session, seen) of every question of `run` the hooks saw, in order."""
        rows = self._query("SELECT hops, step, session, seen FROM questions WHERE run = ? "
                           "ORDER BY hops", (run,))
        return [(int(h), str(st), str(se), float(t)) for h, st, se, t in rows]

    # -- runs the hooks saw, and runs found tampered with ---------------------------------

    def saw_run(self, run: str, session: str, folder: str, fingerprint: str,
                facts: str) -> None:
        """The hooks saw a step of `run` in `session`: its questions bind for life, and its
        workflow is the one of `fingerprint` (`facts`: what an audit needs of it, as JSON).
        The first sighting stands."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO runs VALUES (?,?,?,?,?,?)",
                       (run, session, folder, time.time(), fingerprint, facts))

    def prompt(self, session: str) -> str | None:
        """What the user last typed in `session` (a run starting now keeps it as the request
        in the user's words, for its reviewers); None when the hooks recorded nothing."""
        rows = self._query("SELECT words FROM prompts WHERE session = ?", (session,), 4)
        return str(rows[0][0]) if rows else None

    def seen_run(self, run: str) -> tuple[str, str, str, str] | None:
        """(session, folder, fingerprint, facts) the hooks first saw `run` with, or None."""
        rows = self._query("SELECT session, folder, fingerprint, facts FROM runs WHERE run = ?",
                           (run,), 2)
        if not rows:
            return None
        session, folder, fingerprint, facts = rows[0]
        return str(session), str(folder), str(fingerprint), str(facts)

    def runs_of(self, session: str) -> list[str]:
        """The runs the hooks saw in `session`, oldest first."""
        return [str(r[0]) for r in self._query("SELECT run FROM runs WHERE session = ? "
                                               "ORDER BY first", (session,), 2)]

    def mark_tampered(self, run: str, why: str) -> bool:
        """Record that `run`'s ledger was changed outside skillrail; False when it already
        was (the first reason stands)."""
        with self.transaction() as db:
            return db.execute("INSERT OR IGNORE INTO tampered (run, why, at) VALUES (?,?,?)",
                              (run, why, time.time())).rowcount > 0

    def tampered(self, run: str) -> str | None:
        """Why `run` was found tampered with, or None."""
        rows = self._query("SELECT why FROM tampered WHERE run = ?", (run,), 2)
        return str(rows[0][0]) if rows else None

    def untold(self, runs: list[str]) -> list[tuple[str, str]]:
        """(run, why) of the tampered runs among `runs` the user was not told of yet; they
        count as told from now on."""
        found: list[tuple[str, str]] = []
        with self.transaction() as db:
            for run in runs:
                row = db.execute("SELECT why FROM tampered WHERE run = ? AND told = 0",
                                 (run,)).fetchone()
                if row is not None:
                    found.append((run, str(row[0])))
                    db.execute("UPDATE tampered SET told = 1 WHERE run = ?", (run,))
        return found

    # -- trust ---------------------------------------------------------------------------

    def trust(self, skill_folder: str, digest: str, files: int) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO trust VALUES (?,?,?,?)",
                       (skill_folder, digest, files, time.time()))

    def revoke(self, skill_folder: str) -> bool:
        with self.transaction() as db:
            return db.execute("DELETE FROM trust WHERE folder = ?",
                              (skill_folder,)).rowcount > 0

    def trusted(self, skill_folder: str) -> str | None:
        """The digest the user trusted for `skill_folder`, or None."""
        rows = self._query("SELECT digest FROM trust WHERE folder = ?", (skill_folder,))
        return str(rows[0][0]) if rows else None

    def all_trusted(self) -> list[tuple[str, str, int, float]]:
        rows = self._query("SELECT folder, digest, files, at FROM trust ORDER BY folder")
        return [(str(f), str(d), int(n), float(a)) for f, d, n, a in rows]


def stateless_key(session: str, workflow: str) -> str:
    """The `run` column of a stateless run's questions."""
    return f"~{session}~{workflow}"


class _Transaction:
    def __init__(self, store: Evidence) -> None:
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.store.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self.store._error(exc) from None
        return self.store.db

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        if exc is None:
            try:
                self.store.db.execute("COMMIT")
                return
            except sqlite3.Error as error:
                exc = error
        try:  # noqa: SIM105 - contextlib would cost every hook its import
            self.store.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        if isinstance(exc, sqlite3.Error):
            raise self.store._error(exc) from None


def read_only() -> Evidence | None:
    """The store opened read-only, as a step script in the agent's sandbox can; None when it
    does not exist yet (no hook and no `skillrail trust` ever wrote it) or cannot be read."""
    path = default_path()
    if not os.path.exists(path):
        return None
    try:
        return Evidence(path, writable=False)
    except LedgerError:
        return None
