"""The throwaway PostgreSQL server the ledger's PostgreSQL tests run against (tests/pgserver.py):
it answers, keeps its data through a restart and a crash, drops connections on demand, and gives
each test a database of its own."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .pgprocess import alive
from .pgserver import PgServer, PgServerError

Connect = Callable[[str], Any]


@pytest.fixture
def connect() -> Iterator[Connect]:
    """psycopg.connect in autocommit, each connection closed after the test."""
    import psycopg

    made: list[Any] = []

    def open_(url: str) -> Any:
        made.append(psycopg.connect(url, autocommit=True))
        return made[-1]

    yield open_
    for conn in made:
        conn.close()


def rows(conn: Any) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT id, note FROM kept ORDER BY id").fetchall()


def fill(conn: Any) -> None:
    conn.execute("CREATE TABLE kept (id int PRIMARY KEY, note text)")
    conn.execute("INSERT INTO kept VALUES (1, 'one'), (2, 'two')")


def test_it_answers_a_query(pg_url: str, connect: Connect) -> None:
    """A fresh database's url is one psycopg connects with, over the server's Unix socket."""
    assert connect(pg_url).execute("SELECT 1").fetchone() == (1,)
    assert "host=/" in pg_url


def test_the_main_database_answers_too(pg_server: PgServer, connect: Connect) -> None:
    assert connect(pg_server.url).execute("SELECT current_database()").fetchone() == ("skillrail",)


def test_a_restart_keeps_the_rows(pg_server: PgServer, pg_url: str, connect: Connect) -> None:
    """restart() stops the server cleanly and starts it on the same data, at the same url."""
    fill(connect(pg_url))
    url = pg_server.url
    pg_server.restart()
    assert pg_server.url == url
    assert rows(connect(pg_url)) == [(1, "one"), (2, "two")]


def test_after_a_kill_the_server_recovers(pg_server: PgServer, pg_url: str,
                                          connect: Connect) -> None:
    """kill() crashes the server: no connection until start(), which recovers every committed
    row from the WAL, fsync off or not."""
    import psycopg

    conn = connect(pg_url)
    fill(conn)
    pg_server.kill()
    assert not pg_server.running()
    with pytest.raises(psycopg.OperationalError):
        conn.execute("SELECT 1")
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(pg_url, connect_timeout=2).close()
    pg_server.start()
    assert rows(connect(pg_url)) == [(1, "one"), (2, "two")]
    assert "automatic recovery" in pg_server.log.read_text()


def test_terminated_connections_fail_their_next_query(pg_server: PgServer, pg_url: str,
                                                      connect: Connect) -> None:
    """terminate_connections() drops every other client's connection: a held connection's next
    query raises OperationalError, and a new connection works."""
    import psycopg

    held = [connect(pg_url), connect(pg_server.url)]
    assert pg_server.terminate_connections() >= 2
    for conn in held:
        with pytest.raises(psycopg.OperationalError):
            conn.execute("SELECT 1")
    assert connect(pg_url).execute("SELECT 1").fetchone() == (1,)


def test_two_fresh_databases_are_independent(pg_server: PgServer, pg_url: str,
                                             connect: Connect) -> None:
    """Each fresh database starts empty, and what one test makes is not in another's."""
    other = pg_server.fresh_database()
    try:
        assert other != pg_url
        fill(connect(pg_url))
        tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        assert connect(other).execute(tables).fetchone() == (0,)
        connect(other).execute("CREATE TABLE kept (id int PRIMARY KEY, note text)")
        assert rows(connect(other)) == []
        assert len(rows(connect(pg_url))) == 2
    finally:
        pg_server.drop_database(other)


def test_a_dropped_database_takes_its_connections(pg_server: PgServer, connect: Connect) -> None:
    """drop_database (pg_url's teardown) ends the connections a test left open."""
    import psycopg

    url = pg_server.fresh_database()
    left_open = connect(url)
    pg_server.drop_database(url)
    with pytest.raises(psycopg.OperationalError):
        left_open.execute("SELECT 1")


def test_a_failed_start_says_why_in_one_line(pg_server: PgServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that cannot start is an error naming the cause, from the server log, and leaves
    no folder behind."""
    made: list[Path] = []
    mkdtemp = tempfile.mkdtemp

    def recorded(**kwargs: Any) -> str:
        made.append(Path(mkdtemp(**kwargs)))
        return str(made[-1])

    monkeypatch.setattr(tempfile, "mkdtemp", recorded)
    with pytest.raises(PgServerError) as raised:
        PgServer(settings={"shared_buffers": "plenty"})
    message = str(raised.value)
    assert "\n" not in message
    assert 'invalid value for parameter "shared_buffers"' in message, message
    assert len(made) == 1 and not made[0].exists()


def test_close_stops_the_server_and_removes_its_folder() -> None:
    """close() (also what the end of the process does) leaves no server and no folder."""
    why = PgServer.why_not()
    if why:
        pytest.skip(why)
    server = PgServer()
    pid = server._postmaster()
    assert pid is not None and alive(pid)
    server.close()
    assert not alive(pid)
    assert not server.folder.exists()


def test_why_not_names_what_is_missing(tmp_path: Path) -> None:
    """Where the server's programs are missing, why_not says so in one line."""
    why = PgServer.why_not(tmp_path)
    assert why == f"no initdb, pg_ctl, postgres, pg_isready in {tmp_path}"
    with pytest.raises(PgServerError, match="no initdb"):
        PgServer(bindir=tmp_path)
