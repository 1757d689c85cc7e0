"""Fixtures of the ledger tests: each test gets its own skill script and ledger, and runs once
per backend: the SQLite file, and a PostgreSQL database of its own on the throwaway server
(tests/pgfixtures.py), named by SKILLRAIL_LEDGER so the step scripts a test runs use it too.

A test about the SQLite file itself (its WAL, a damaged file, its folder's permissions) says so
with `@pytest.mark.sqlite_only("why, in one line")`; a test of the PostgreSQL backend alone with
`@pytest.mark.postgres_only("why")`. Either runs on that backend only, and only with a reason."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .support import Racer, write_script

BACKENDS = ("sqlite", "postgres")
ONLY = {"sqlite_only": "sqlite", "postgres_only": "postgres"}


def pytest_configure(config: pytest.Config) -> None:
    for marker, backend in ONLY.items():
        config.addinivalue_line("markers", f"{marker}(reason): the test runs on the {backend} "
                                           "ledger alone, for the reason given")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every ledger test once per backend, or on the one its marker names (with its reason)."""
    if "backend" not in metafunc.fixturenames:
        return
    backends: tuple[str, ...] = BACKENDS
    for marker, backend in ONLY.items():
        found = metafunc.definition.get_closest_marker(marker)
        if found is None:
            continue
        reason = found.args[0] if found.args else found.kwargs.get("reason", "")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason.strip():
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.{marker} "
                                    "needs its reason, in one line")
        backends = (backend,)
    metafunc.parametrize("backend", backends, indirect=True)


@pytest.fixture(autouse=True)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The ledger backend of this test. On "postgres", SKILLRAIL_LEDGER names a new empty
    database (its step scripts and `skillrail` commands inherit it); on "sqlite", it is unset,
    and the ledger is the file in the test's SKILLRAIL_HOME."""
    name: str = request.param
    if name == "postgres":
        monkeypatch.setenv("SKILLRAIL_LEDGER", request.getfixturevalue("pg_url"))
    else:
        monkeypatch.delenv("SKILLRAIL_LEDGER", raising=False)
    return name


@pytest.fixture
def fresh_ledger(backend: str, tmp_path: Path,
                 request: pytest.FixtureRequest) -> Iterator[Callable[[], dict[str, str]]]:
    """Another new, empty ledger of this test's backend, as the environment naming it: a new
    SKILLRAIL_HOME, or a new database on the server (dropped after the test)."""
    homes: list[str] = []
    urls: list[str] = []

    def fresh() -> dict[str, str]:
        homes.append(str(tmp_path / f"home-{len(homes)}"))
        if backend == "sqlite":
            return {"SKILLRAIL_HOME": homes[-1]}
        urls.append(request.getfixturevalue("pg_server").fresh_database())
        return {"SKILLRAIL_HOME": homes[-1], "SKILLRAIL_LEDGER": urls[-1]}

    yield fresh
    if urls:
        server = request.getfixturevalue("pg_server")
        for url in urls:
            if server.running():
                server.drop_database(url)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """This test's own copy of the skill script (tests that rewrite it touch no other test)."""
    return write_script(tmp_path / "chain" / "scripts" / "chain.py")


@pytest.fixture
def racer(script: Path, backend: str) -> Iterator[Racer]:
    """racer.py serving this test's script (commands raced in forked step processes), started
    once the test's ledger is set (its step processes inherit the environment from it)."""
    served = Racer(script)
    yield served
    served.close()


@pytest.fixture
def ledger_file(ledger_home: Path, backend: str) -> Path:
    """The SQLite file the step scripts of this test keep their ledger in (sqlite_only tests:
    the others read the ledger through support.py, on either backend)."""
    assert backend == "sqlite", "ledger_file is the SQLite file: mark the test sqlite_only"
    return ledger_home / "runs.sqlite3"
