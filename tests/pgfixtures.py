"""Fixtures for tests that need a real PostgreSQL server (the ledger's PostgreSQL backend).

Registered by tests/conftest.py as a plugin. Nothing here starts a server or imports psycopg
until a test asks for `pg_server` or `pg_url`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .pgserver import PgServer


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One throwaway cluster per test process (so one per xdist worker). Skipped where none can
    run (PgServer.why_not); where one can and it fails to start, the tests using it fail, with
    the server log's last lines."""
    why = PgServer.why_not()
    if why:
        pytest.skip(why)
    with PgServer() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """The url of a new, empty database, dropped after the test (its connections with it)."""
    pg_server.start()  # a test before this one may have stopped or killed the server
    url = pg_server.fresh_database()
    yield url
    if pg_server.running():
        pg_server.drop_database(url)
