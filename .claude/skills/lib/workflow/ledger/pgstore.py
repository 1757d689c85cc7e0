"""The team ledger on PostgreSQL (issue 22): the connection the run ledger (store.py) uses when
`SKILLRAIL_LEDGER`, or `ledger:` in the project's `.claude/skillrail.yaml`, names a
`postgresql://` URL. It speaks the interface of the sqlite3 connection the ledger was written
against, so the ledger's code, and every module that queries it, is one for both backends:

- placeholders `?` and `:name` become libpq's `$1`.. (psycopg's `%s` and `%(name)s`);
- `BEGIN IMMEDIATE` is BEGIN and a transaction-level advisory lock every writer takes: writers
  follow one another as they do on SQLite, so of two advances from one position exactly one
  finds the run where it was (the other is refused, unchanged), and no serialization failure
  or deadlock can happen between them;
- `INSERT OR REPLACE` into loops, memory and agents is an upsert on the table's key;
- `PRAGMA user_version` reads and writes the version kept in `skillrail_schema`;
- an error raises sqlite3's class for it (a unique violation IntegrityError, anything else
  OperationalError) with PostgreSQL's message, which the ledger's error names the URL before
  (so the message does not); a lock another writer held past the busy timeout is SQLite's
  "database is locked", and a BEGIN IMMEDIATE that failed leaves no transaction open, as on
  SQLite: the ledger's error handling applies unchanged, and a connection lost
  mid-transaction is a step that fails cleanly, which its retry redoes.

The driver is libpq itself, through ctypes (libpq.py), where it is found, else psycopg; neither
is loaded for SQLite."""

from __future__ import annotations

import _sqlite3 as sqlite3
import contextlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..base.errors import first_line

#: SQLSTATEs the ledger tells apart: a key taken, and lock_timeout (another writer's lock).
UNIQUE_VIOLATION, LOCK_NOT_AVAILABLE = "23505", "55P03"
#: The advisory lock key every write transaction takes ('skillrai' as a number).
WRITE_LOCK = 0x736B696C6C726169
#: Tables written with INSERT OR REPLACE, and the key their rows replace on.
_REPLACE_KEYS = {"loops": ("run", "edge"), "memory": ("run", "key", "seq"),
                 "agents": ("session", "agent")}
_COLUMNS = {"loops": ("run", "edge", "count"), "memory": ("run", "key", "seq", "step", "value"),
            "agents": ("session", "agent", "run")}
_REPLACE = re.compile(r"INSERT OR REPLACE INTO (\w+) VALUES", re.IGNORECASE)
_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


def shown(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", url)


class Cursor:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows

    def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


class Connection:
    """A connection in autocommit mode (the ledger says BEGIN and COMMIT itself): through libpq
    where it is found (libpq.py, a few ms to load), else through psycopg."""

    def __init__(self, url: str, busy_ms: int) -> None:
        from . import libpq

        self.url = url
        # client_min_messages: libpq prints the server's notices on stderr, where a step
        # prints only its one-line errors ("relation ... already exists, skipping").
        settings = {"connect_timeout": str(max(2, busy_ms // 1000)),
                    "options": f"-c lock_timeout={int(busy_ms)} -c client_min_messages=warning"}
        lib = libpq.library()
        self.pq: libpq.Connection | None = None
        if lib is not None:
            try:
                self.pq = libpq.Connection(lib, url, settings)
            except libpq.PgError as exc:
                raise sqlite3.OperationalError(first_line(exc)) from None
            return
        import psycopg

        self.psycopg = psycopg
        try:
            self.conn = psycopg.connect(url, autocommit=True, options=settings["options"],
                                        connect_timeout=int(settings["connect_timeout"]))
        except psycopg.Error as exc:
            # psycopg's "connection is bad: " says nothing the reason after it does not.
            reason = first_line(exc).removeprefix("connection is bad: ")
            raise sqlite3.OperationalError(reason) from None

    def execute(self, sql: str, args: Sequence[Any] | dict[str, Any] = ()) -> Cursor:
        return Cursor(self._run(sql, args))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Cursor:
        for row in rows:
            self._run(sql, row)
        return Cursor([])

    def close(self) -> None:
        if self.pq is not None:
            self.pq.close()
        else:
            self.conn.close()

    def script(self, sql: str) -> None:
        """Run a migration's DDL as it is (several statements, function bodies)."""
        if self.pq is not None:
            from .libpq import PgError

            try:
                self.pq.run(sql)
            except PgError as exc:
                raise sqlite3.OperationalError(first_line(exc)) from None
            return
        try:
            self.conn.execute(sql)
        except self.psycopg.Error as exc:
            raise sqlite3.OperationalError(first_line(exc)) from None

    def _run(self, sql: str, args: Sequence[Any] | dict[str, Any]) -> list[tuple[Any, ...]]:
        special = self._special(sql.strip())
        if special is not None:
            return special
        if self.pq is not None:
            return self._through_libpq(sql, args)
        try:
            with self.conn.cursor() as cur:
                if args:
                    cur.execute(_translated(sql), args if isinstance(args, dict) else tuple(args))
                else:  # no parameters: the text goes as it is ('%' is not a placeholder then)
                    cur.execute(_upserted(sql))
                return list(cur.fetchall()) if cur.description is not None else []
        except self.psycopg.errors.UniqueViolation as exc:
            raise sqlite3.IntegrityError(first_line(exc)) from None
        except self.psycopg.errors.LockNotAvailable as exc:  # lock_timeout: another writer
            raise sqlite3.OperationalError(f"database is locked ({first_line(exc)})") from None
        except self.psycopg.Error as exc:
            raise sqlite3.OperationalError(first_line(exc)) from None

    def _through_libpq(self, sql: str, args: Sequence[Any] | dict[str, Any]
                       ) -> list[tuple[Any, ...]]:
        from .libpq import PgError

        assert self.pq is not None
        # No parameters: the text goes as it is ('?' is not a placeholder then).
        text, params = _numbered(_upserted(sql), args) if args else (_upserted(sql), [])
        try:
            return self.pq.run(text, params)
        except PgError as exc:
            if exc.sqlstate == UNIQUE_VIOLATION:
                raise sqlite3.IntegrityError(first_line(exc)) from None
            if exc.sqlstate == LOCK_NOT_AVAILABLE:  # lock_timeout: another writer
                raise sqlite3.OperationalError(
                    f"database is locked ({first_line(exc)})") from None
            raise sqlite3.OperationalError(first_line(exc)) from None

    def _special(self, sql: str) -> list[tuple[Any, ...]] | None:
        """The SQLite statements with no PostgreSQL twin, done PostgreSQL's way."""
        upper = sql.upper()
        if upper == "BEGIN IMMEDIATE":
            self._run("BEGIN", ())
            try:
                self._run(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})", ())
            except sqlite3.Error:
                # As SQLite's failed BEGIN IMMEDIATE: no transaction left open (an aborted one
                # would fail every later statement of the connection, reads included).
                with contextlib.suppress(Exception):
                    self._run("ROLLBACK", ())
                raise
            return []
        if upper == "PRAGMA USER_VERSION":
            # pg_class read as a table, in this statement's snapshot: not to_regclass, which
            # asks the session's catalog cache, where a connection that found no table before
            # another made it keeps finding none (a lookup without a lock reads no invalidation
            # message), and would migrate a database another process migrated meanwhile.
            found = self._run("SELECT COUNT(*) FROM pg_catalog.pg_class c JOIN "
                              "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE "
                              "c.relname = 'skillrail_schema' AND n.nspname = current_schema()",
                              ())
            if not found[0][0]:
                return [(0,)]
            return self._run("SELECT version FROM skillrail_schema", ()) or [(0,)]
        match = re.fullmatch(r"PRAGMA USER_VERSION = (\d+)", upper)
        if match:
            self._run("CREATE TABLE IF NOT EXISTS skillrail_schema (version INTEGER NOT NULL)",
                      ())
            self._run("DELETE FROM skillrail_schema", ())
            self._run(f"INSERT INTO skillrail_schema VALUES ({int(match.group(1))})", ())
            return []
        if upper == "PRAGMA INTEGRITY_CHECK":
            return [("ok",)]  # PostgreSQL keeps its own consistency; there is no file to check
        return None


def _upserted(sql: str) -> str:
    """`INSERT OR REPLACE INTO t VALUES ...` as an upsert on t's key."""
    match = _REPLACE.search(sql)
    if not match:
        return sql
    table = match.group(1)
    keys, columns = _REPLACE_KEYS[table], _COLUMNS[table]
    rest = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in keys)
    return (_REPLACE.sub(f"INSERT INTO {table} VALUES", sql)
            + f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {rest}")


def _numbered(sql: str, args: Sequence[Any] | dict[str, Any]
              ) -> tuple[str, list[Any]]:
    """The ledger's SQL with libpq's `$1`.. for its `?` (in order) or `:name` (each name one
    number), and the parameters in that order."""
    if isinstance(args, dict):
        order: list[str] = []

        def named(match: re.Match[str]) -> str:
            if match.group(1) not in order:
                order.append(match.group(1))
            return f"${order.index(match.group(1)) + 1}"

        return _NAMED.sub(named, sql), [args[name] for name in order]
    count = iter(range(1, len(args) + 2))
    return re.sub(r"\?", lambda _: f"${next(count)}", sql), list(args)


def _translated(sql: str) -> str:
    """The ledger's SQL in psycopg's form, for a call with parameters (module docstring)."""
    sql = _upserted(sql).replace("%", "%%").replace("?", "%s")
    return _NAMED.sub(r"%(\1)s", sql)


