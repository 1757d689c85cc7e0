"""The run ledger on a PostgreSQL server (issue 22), where a server is not a file: a step process
killed while it holds the write lock (an advisory lock, which the server must let go with the
connection), the server restarted or the step's connection dropped while a step runs, a crash
between steps, and the server down. Each step that loses its connection fails with one error
line and changes nothing that its retry does not make right; the retry goes through.

The races (2 to 8 processes on one run) and the other ledger tests run on this backend too
(conftest.backend); these are its own."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from skills.lib.workflow.ledger.pgstore import WRITE_LOCK

from ..harness import decided, flag, run_of
from ..pgserver import PgServer
from .support import (
    State,
    call,
    command,
    follow,
    integrity,
    one_error_line,
    printed,
    resume,
    start,
    state,
    step,
    to_score,
    until,
)

pytestmark = pytest.mark.postgres_only("a server's own failures: restarts, dropped connections, "
                                       "a client killed holding its advisory lock")

def connect(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


def terminate(url: str, backend: int) -> None:
    """End one server process's connection (pg_terminate_backend), as a dropped connection;
    returns once that process is gone. The server and every other connection stay up."""
    with connect(url) as conn:
        ended = conn.execute("SELECT pg_terminate_backend(%s, 20000)", (backend,)).fetchone()
    assert ended == (True,), f"backend {backend} outlived pg_terminate_backend"


#: How a test takes a running step's connection away, given the server, the database's url and
#: the step's server process.
LOSSES: dict[str, Callable[[PgServer, str, int], object]] = {
    # pg_ctl stop -m fast, then start: every backend ends
    "restart": lambda server, url, backend: server.restart(),
    # the step's connection alone: a test's transaction holding the run's row stays, so the step
    # cannot get past it and commit between the two terminations, as it could if all ended
    "drop": lambda server, url, backend: terminate(url, backend),
}


def step_backend(url: str) -> int:
    """The server process of the one other client connected to the database: the step's."""
    with connect(url) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                            "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
                            ).fetchall()
    assert len(rows) == 1, f"client connections besides the test's: {rows}"
    return int(rows[0][0])


def write_lock_holder(url: str) -> int | None:
    """The server process of the connection holding the ledger's write lock, if one does."""
    with connect(url) as conn:
        row = conn.execute("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted "
                           "AND ((classid::bigint << 32) | objid::bigint) = %s",
                           (WRITE_LOCK,)).fetchone()
    return None if row is None else int(row[0])


@contextmanager
def run_held(url: str, run_id: str) -> Iterator[None]:
    """Hold the run's row (FOR NO KEY UPDATE) in a transaction of the test's own until the block
    ends: a step advancing the run takes the write lock, checks, writes its transition and
    values, and then waits at `UPDATE runs`, in the middle of its transaction. A connection the
    block's server restart or termination ended is let go quietly."""
    import psycopg

    conn = connect(url)
    try:
        conn.execute("BEGIN")
        conn.execute("SELECT 1 FROM runs WHERE id = %s FOR NO KEY UPDATE", (run_id,))
        yield
        with contextlib.suppress(psycopg.OperationalError):
            conn.execute("ROLLBACK")
    finally:
        conn.close()


def waiting_mid_transaction(url: str, proc: subprocess.Popen[bytes]) -> int:
    """The server process of `proc`'s connection once it waits at `UPDATE runs` holding the
    write lock, its transition already written (run_held)."""
    def waiting() -> int | None:
        assert proc.poll() is None, proc.communicate()
        with connect(url) as conn:
            row = conn.execute("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                               "AND datname = current_database() "
                               "AND query LIKE 'UPDATE runs SET step%'").fetchone()
        return None if row is None else int(row[0])

    backend: int = until(waiting, "the step never reached UPDATE runs")
    assert write_lock_holder(url) == backend
    return backend


def popen(argv: list[str], **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **env})


def ended(proc: subprocess.Popen[bytes]) -> subprocess.CompletedProcess[bytes]:
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


class MidTransaction(NamedTuple):
    run_id: str
    before: State
    argv: list[str]
    proc: subprocess.Popen[bytes]
    backend: int  # the server process of the step's connection


@contextmanager
def a_step_mid_transaction(script: Path, pg_url: str) -> Iterator[MidTransaction]:
    """A step process advancing a run from its draft step, stopped inside its transaction
    holding the write lock (run_held) until the block ends."""
    draft = follow(start(script), TOPIC="caching")
    run_id = str(run_of(draft))
    before = state(run_id)
    argv = command(draft, NOTE="a draft")
    with run_held(pg_url, run_id):
        proc = popen(argv)
        yield MidTransaction(run_id, before, argv, proc, waiting_mid_transaction(pg_url, proc))


def lost_connection_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    """The one error line of a step whose connection the server ended: exit 1, saying the
    ledger could not be used (and which, once), and to run the same command again."""
    line = one_error_line(proc, 1)
    assert line.startswith("error: the run ledger cannot be "), line
    assert "run the same command again" in line, line
    assert line.count("postgresql://") == 1, line  # the ledger named once, as the file is
    return line


class TestKilledHoldingTheLock:
    def test_a_step_killed_mid_transaction_changes_nothing_and_the_next_goes_through(
            self, script: Path, pg_url: str) -> None:
        """SIGKILL to a step process inside its transaction, holding the write lock with its
        transition written: the server lets the lock go with the connection, the run is as it
        was, and the same command, run again, advances it."""
        with a_step_mid_transaction(script, pg_url) as (run_id, before, argv, proc, backend):
            proc.send_signal(signal.SIGKILL)
            assert ended(proc).returncode == -signal.SIGKILL
            # Its server process waits on: it finds its client gone once it may go on.
            assert write_lock_holder(pg_url) == backend
        until(lambda: write_lock_holder(pg_url) is None, "the killed step's lock was kept")
        assert state(run_id) == before
        assert integrity() == "ok"
        review = printed(call(argv))
        assert review.get("id") == "review"
        after = state(run_id)
        assert (after.step, after.memory) == ("review", {"TOPIC": "caching", "NOTE": "a draft"})
        assert after.transitions[:-1] == before.transitions
        assert integrity() == "ok"


class TestLostConnection:
    @pytest.mark.parametrize("loss", LOSSES)
    def test_a_connection_lost_mid_transaction_fails_the_step_cleanly_and_the_retry_advances(
            self, script: Path, pg_server: PgServer, pg_url: str, loss: str) -> None:
        """The server restarted, or the step's connection ended, while the step waits inside its
        transaction: one error line, exit 1, the run as it was; the same command again
        advances it."""
        with a_step_mid_transaction(script, pg_url) as (run_id, before, argv, proc, backend):
            LOSSES[loss](pg_server, pg_url, backend)
            failed = ended(proc)
        lost_connection_line(failed)
        assert state(run_id) == before
        assert printed(call(argv)).get("id") == "review"
        assert state(run_id).memory == {"TOPIC": "caching", "NOTE": "a draft"}
        assert integrity() == "ok"

    @pytest.mark.parametrize("loss", LOSSES)
    def test_a_connection_lost_while_the_handler_runs_fails_the_step_cleanly_and_the_retry_goes_on(
            self, script: Path, pg_server: PgServer, pg_url: str, loss: str,
            tmp_path: Path) -> None:
        """The connection ended while judge's handler runs (outside any transaction, the advance
        to judge committed): recording its decision fails with one error line, exit 1; the run
        is at judge, undecided; the same command again runs the handler and goes on past judge."""
        score = to_score(script)
        run_id = str(run_of(score))
        before = state(run_id)
        argv = command(score, SCORE="8")
        marker = tmp_path / "inside-handler"
        proc = popen(argv, LEDGER_TEST_MARKER=str(marker))
        until(marker.exists, "the handler never started")
        LOSSES[loss](pg_server, pg_url, step_backend(pg_url))
        marker.unlink()  # the handler decides, and the step goes on to record it
        lost_connection_line(ended(proc))
        now = state(run_id)
        assert (now.step, now.decided, now.hops) == ("judge", None, before.hops + 1)
        retry = printed(call(argv))
        assert (retry.get("id"), decided(retry)) == ("finish", [("judge", "pass")])
        assert state(run_id).hops == before.hops + 2
        assert integrity() == "ok"


class TestServerLife:
    @pytest.mark.parametrize("how", ["restart", "crash"])
    def test_a_server_restarted_or_crashed_between_steps_keeps_the_run(
            self, script: Path, pg_server: PgServer, how: str) -> None:
        """Between two steps the server restarts (or crashes and recovers): every committed move
        is there, the run resumes where it was and goes on."""
        review = follow(follow(start(script), TOPIC="caching"), NOTE="a draft")
        run_id = str(run_of(review))
        before = state(run_id)
        if how == "crash":
            pg_server.kill()
            pg_server.start()
        else:
            pg_server.restart()
        assert state(run_id) == before
        assert resume(script, run_id).get("id") == "review"
        assert follow(review, "ok").get("id") == "score"
        assert integrity() == "ok"

    def test_a_server_down_is_one_error_line_and_a_new_run_goes_stateless(
            self, script: Path, pg_server: PgServer) -> None:
        """With the server down, a step of a run exits 1 with one line saying to check the
        server and run the command again; a new run warns and goes on stateless. Once the
        server is back, the same commands work."""
        draft = follow(start(script), TOPIC="caching")
        run_id = str(run_of(draft))
        argv = command(draft, NOTE="a draft")
        pg_server.stop()
        try:
            line = one_error_line(call(argv), 1)
            assert line.startswith("error: the run ledger cannot be opened"), line
            assert "Check that the server is up" in line and line.count("postgresql://") == 1
            fresh = step(script, "--step", "start")
            assert fresh.returncode == 0, fresh.stderr
            warnings = fresh.stderr.decode("utf-8").splitlines()
            assert len(warnings) == 1 and warnings[0].startswith("warning: "), warnings
            doc = ET.fromstring(fresh.stdout)
            assert run_of(doc) is None and flag(command(doc), "--run") is None
        finally:
            pg_server.start()
        assert printed(call(argv)).get("id") == "review"
        assert state(run_id).memory == {"TOPIC": "caching", "NOTE": "a draft"}
