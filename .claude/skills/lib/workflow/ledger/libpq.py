"""libpq, PostgreSQL's own client library, called through ctypes: what the team ledger
(pgstore.py) asks of a driver and no more. It connects, runs one statement with text parameters
(or a script of several without), and gives the rows back as Python values by their column
types, with the server's SQLSTATE and message when a statement fails.

Why not only psycopg: its import alone cost a step about 100 ms, most of what the team ledger
added to each step (issue 30); loading libpq costs a few. The library is the system's
(`libpq.so.5`, Debian's and Ubuntu's libpq5, Homebrew's) or, failing that, the copy psycopg's
binary wheel carries; where neither is found, `library()` is None and pgstore uses psycopg.
`SKILLRAIL_PG_DRIVER=psycopg` asks for psycopg whatever is found.
"""

from __future__ import annotations

import ctypes
import glob
import os
from collections.abc import Sequence
from typing import Any

#: Result statuses (libpq-fe.h's ExecStatusType): a command, or rows.
_COMMAND_OK, _TUPLES_OK = 1, 2
#: The connection's status when it is made (ConnStatusType's CONNECTION_OK).
_CONNECTION_OK = 0
#: PQresultErrorField's code for the SQLSTATE.
_SQLSTATE = ord("C")
#: Column types by OID (pg_type), read into Python's: the rest are text.
_INTEGERS = frozenset({20, 21, 23, 26})  # int8, int2, int4, oid
_FLOATS = frozenset({700, 701})  # float4, float8
_BOOL, _NUMERIC = 16, 1700
#: Where a library may be, by name, before psycopg's wheel is looked in.
_NAMES = ("libpq.so.5", "libpq.5.dylib", "/opt/homebrew/opt/libpq/lib/libpq.5.dylib",
          "/usr/local/opt/libpq/lib/libpq.5.dylib")

_LOADED: list[ctypes.CDLL | None] = []


class PgError(Exception):
    """A statement or a connection that failed: the server's SQLSTATE ('' for a connection)
    and its message."""

    def __init__(self, sqlstate: str, message: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def library() -> ctypes.CDLL | None:
    """libpq, loaded once; None where it cannot be found (or psycopg was asked for)."""
    if not _LOADED:
        _LOADED.append(None if os.environ.get("SKILLRAIL_PG_DRIVER") == "psycopg"
                       else _load())
    return _LOADED[0]


def _load() -> ctypes.CDLL | None:
    for name in (*_NAMES, *_wheel_copies()):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        _declare(lib)
        return lib
    return None


def _wheel_copies() -> list[str]:
    """The libpq psycopg's binary wheel carries, found without importing psycopg."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("psycopg_binary")
    except (ImportError, ValueError):
        return []
    if spec is None or spec.origin is None:
        return []
    libs = os.path.join(os.path.dirname(os.path.dirname(spec.origin)), "psycopg_binary.libs")
    return sorted(glob.glob(os.path.join(libs, "libpq*.so*")))


def _declare(lib: ctypes.CDLL) -> None:
    p, i, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
    signatures: dict[str, tuple[list[Any], Any]] = {
        "PQconnectdbParams": ([ctypes.POINTER(s), ctypes.POINTER(s), i], p),
        "PQstatus": ([p], i), "PQerrorMessage": ([p], s), "PQfinish": ([p], None),
        "PQexec": ([p, s], p),
        "PQexecParams": ([p, s, i, p, ctypes.POINTER(s), p, p, i], p),
        "PQresultStatus": ([p], i), "PQresultErrorField": ([p, i], s),
        "PQresultErrorMessage": ([p], s), "PQntuples": ([p], i), "PQnfields": ([p], i),
        "PQftype": ([p, i], ctypes.c_uint), "PQgetisnull": ([p, i, i], i),
        "PQgetvalue": ([p, i, i], s), "PQclear": ([p], None),
    }
    for name, (args, result) in signatures.items():
        function = getattr(lib, name)
        function.argtypes, function.restype = args, result


class Connection:
    """One connection to the server at `url` (a `postgresql://` URL or a conninfo string)."""

    def __init__(self, lib: ctypes.CDLL, url: str, settings: dict[str, str]) -> None:
        self.lib = lib
        keys = ["dbname", *settings, None]
        values = [url, *settings.values(), None]
        keywords = (ctypes.c_char_p * len(keys))(*(k.encode() if k else None for k in keys))
        given = (ctypes.c_char_p * len(values))(*(v.encode() if v else None for v in values))
        self.conn = lib.PQconnectdbParams(keywords, given, 1)  # 1: dbname may be a URL
        if not self.conn or lib.PQstatus(self.conn) != _CONNECTION_OK:
            message = (lib.PQerrorMessage(self.conn) or b"cannot connect").decode(
                "utf-8", "replace").strip()
            self.close()
            raise PgError("", message)

    def close(self) -> None:
        if self.conn:
            self.lib.PQfinish(self.conn)
            self.conn = None

    def run(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        """The rows of one statement (`$1`.. taking `params`), or of a script of several
        (`params` None: no placeholders then); PgError when it fails."""
        lib = self.lib
        if params is None:
            result = lib.PQexec(self.conn, sql.encode())
        else:
            texts = (ctypes.c_char_p * max(1, len(params)))(*map(_text, params))
            result = lib.PQexecParams(self.conn, sql.encode(), len(params), None, texts,
                                      None, None, 0)
        if not result:
            raise PgError("", (lib.PQerrorMessage(self.conn) or b"no result").decode(
                "utf-8", "replace").strip())
        try:
            status = lib.PQresultStatus(result)
            if status == _COMMAND_OK:
                return []
            if status != _TUPLES_OK:
                state = lib.PQresultErrorField(result, _SQLSTATE) or b""
                message = lib.PQresultErrorMessage(result) or b"the statement failed"
                raise PgError(state.decode(), message.decode("utf-8", "replace").strip())
            return _rows(lib, result)
        finally:
            lib.PQclear(result)


def _text(value: Any) -> bytes | None:
    """A parameter as the text libpq sends (None: SQL NULL)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, bytes):
        return value
    return (value if isinstance(value, str) else repr(value) if isinstance(value, float)
            else str(value)).encode("utf-8")


def _rows(lib: ctypes.CDLL, result: int) -> list[tuple[Any, ...]]:
    count, width = lib.PQntuples(result), lib.PQnfields(result)
    readers = [_reader(lib.PQftype(result, c)) for c in range(width)]
    return [tuple(None if lib.PQgetisnull(result, r, c) else readers[c](lib.PQgetvalue(
        result, r, c)) for c in range(width)) for r in range(count)]


def _reader(oid: int) -> Any:
    """How a column of type `oid` is read from its text, as psycopg reads it."""
    if oid in _INTEGERS:
        return int
    if oid in _FLOATS:
        return float
    if oid == _BOOL:
        return lambda raw: raw == b"t"
    if oid == _NUMERIC:
        from decimal import Decimal

        return lambda raw: Decimal(raw.decode())
    return lambda raw: raw.decode("utf-8")
