"""The run ledger under stress: racing processes, a process killed mid-invocation, a busy
ledger. It stays consistent and says what is wrong (issue 3); test_damage.py: a damaged one.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from skills.lib.workflow.base.errors import LedgerError
from skills.lib.workflow.base.paths import ledger_path, ledger_url
from skills.lib.workflow.ledger.listing import page
from skills.lib.workflow.ledger.pgstore import WRITE_LOCK
from skills.lib.workflow.ledger.store import Ledger

from ..harness import decided, flag, offered, outcome_of, run_of
from ..procstate import holds_open, sleeping
from .support import (
    Racer,
    call,
    command,
    follow,
    integrity,
    one_error_line,
    printed,
    refused,
    reprint_of,
    resume,
    start,
    state,
    step,
    to_score,
    until,
)


class TestConcurrency:
    """Two agents advancing one run at once serialize: one wins, the other is refused. The
    races of one run go through racer.py, whose forked processes meet at the ledger within a
    millisecond. Interpreters started afresh, which reach it as far apart as their imports
    happen to take, race the creation of a fresh ledger (the last test)."""

    ROUNDS = 20

    @staticmethod
    def race(*argvs: list[str],
             env: dict[str, str] | None = None) -> list[subprocess.CompletedProcess[bytes]]:
        """Start the commands together (a barrier right before each Popen) and wait for all."""
        barrier = threading.Barrier(len(argvs))
        results: list[subprocess.CompletedProcess[bytes] | None] = [None] * len(argvs)

        def run(i: int) -> None:
            barrier.wait()
            proc = subprocess.Popen(argvs[i], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env={**os.environ, **(env or {})})
            out, err = proc.communicate(timeout=60)
            results[i] = subprocess.CompletedProcess(argvs[i], proc.returncode, out, err)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(argvs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(r is not None for r in results)
        return [r for r in results if r is not None]

    def test_two_processes_advancing_one_run_at_once_exactly_one_wins(
            self, script: Path, racer: Racer) -> None:
        """The same command with different values, twice at once, 20 times: one exit 0, one
        exit 3 each time; the winner's value is the run's; one transition per win."""
        wins = 0
        for _ in range(self.ROUNDS):
            doc = printed(racer.run([sys.executable, str(script), "--step", "start"]))
            run_id = str(run_of(doc))
            results = racer.race(command(doc, TOPIC="first"), command(doc, TOPIC="second"))
            codes = sorted(r.returncode for r in results)
            assert codes == [0, 3], [r.stderr for r in results]
            winner = next(i for i, r in enumerate(results) if r.returncode == 0)
            loser = results[1 - winner]
            refused(loser, 3)
            assert printed(results[winner]).get("id") == "draft"
            now = state(run_id)
            assert now.memory == {"TOPIC": ("first", "second")[winner]}
            assert len(now.transitions) == 1
            wins += 1
        assert integrity() == "ok"
        with Ledger() as ledger:
            runs = page(ledger).runs
            assert sum(len(ledger.transitions(r.id)) for r in runs) == wins == self.ROUNDS

    def test_two_different_outcomes_at_once_take_exactly_one_edge(
            self, script: Path, racer: Racer) -> None:
        """'iterate' and 'ok' from one review at once, 20 times: one edge is taken, the other
        refused."""
        for _ in range(self.ROUNDS):
            doc = printed(racer.run([sys.executable, str(script), "--step", "start"]))
            doc = printed(racer.run(command(doc, TOPIC="caching")))
            review = printed(racer.run(command(doc, NOTE="first draft")))
            run_id = str(run_of(review))
            results = racer.race(command(review, "iterate"), command(review, "ok"))
            assert sorted(r.returncode for r in results) == [0, 3], [r.stderr for r in results]
            winner = next(i for i, r in enumerate(results) if r.returncode == 0)
            now = state(run_id)
            assert now.step == ("draft", "score")[winner]
            assert len(now.transitions) == 3
            assert now.counts == ({"review:iterate": 1}, {})[winner]
        assert integrity() == "ok"

    def test_two_new_runs_on_a_fresh_ledger_both_start(
            self, script: Path, fresh_ledger: Callable[[], dict[str, str]]) -> None:
        """Creating the ledger (the file, or the schema in an empty database) is itself raced
        safely: two first runs, two run ids."""
        argv = [sys.executable, str(script), "--step", "start"]
        for _ in range(8):
            env = fresh_ledger()
            results = self.race(argv, argv, env=env)
            ids = {run_of(printed(r)) for r in results}
            assert len(ids) == 2 and None not in ids
            with Ledger(env.get("SKILLRAIL_LEDGER") or str(Path(env["SKILLRAIL_HOME"],
                                                                "runs.sqlite3"))) as ledger:
                assert {r.id for r in page(ledger).runs} == ids
                assert ledger.integrity() == "ok"


@pytest.mark.slow  # 210 races of real processes
class TestManyRacers:
    """Two to eight agents at once advancing one run from one position, over and over: exactly
    one wins each time, and the run's history stays one unbroken line."""

    TRIALS = 210

    @staticmethod
    def contenders(doc: ET.Element, n: int, rng: random.Random) -> list[list[str]]:
        """Up to `n` different commands an agent could run at `doc` (each a different answer:
        the same one twice would be a repeat, reprinted, not refused)."""
        where = doc.get("id")
        if where in ("review", "ask"):
            return [command(doc, outcome_of(i)) for i in offered(doc)]
        if where == "score":
            return [command(doc, SCORE=d) for d in rng.sample("0123456789", n)]
        key = {"start": "TOPIC", "draft": "NOTE"}[str(where)]
        return [command(doc, **{key: f"{key.lower()} {i}"}) for i in range(n)]

    def test_two_to_eight_processes_at_once_exactly_one_wins_each_time(
            self, script: Path, racer: Racer) -> None:
        """210 races of 2 to 8 processes (as many as the step has different answers for, up to
        the trial's count), each from where the last one left the run, through runs walked to
        their end: one exits 0, the others 3 with their error line and no traceback; the run
        took the winner's move alone, with the winner's values; afterwards no move is lost or
        doubled in any run, each leaving the step the one before led to."""
        rng = random.Random(22)
        trials = moves = 0
        sizes: set[int] = set()
        while trials < self.TRIALS:
            doc = printed(racer.run([sys.executable, str(script), "--step", "start"]))
            run_id = str(run_of(doc))
            while doc.find("NEXT/complete") is None:
                if doc.get("id") == "fix":  # one command only: nothing to race
                    doc, moves = printed(racer.run(command(doc))), moves + 1
                    continue
                argvs = self.contenders(doc, 2 + trials % 7, rng)
                before = state(run_id)
                results = racer.race(*argvs)
                trials += 1
                sizes.add(len(argvs))
                codes = [r.returncode for r in results]
                assert sorted(codes) == [0] + [3] * (len(argvs) - 1), [r.stderr for r in results]
                winner = codes.index(0)
                for loser in (r for i, r in enumerate(results) if i != winner):
                    refused(loser, 3)
                doc = printed(results[winner])
                after = state(run_id)
                made = after.transitions[len(before.transitions):]
                assert after.transitions[:len(before.transitions)] == before.transitions
                assert made[0][1:3] == (before.step, flag(argvs[winner], "--outcome") or "ok")
                assert len(made) == (2 if before.step == "score" else 1)  # judge passed
                won = argvs[winner]
                values = dict(won[i + 1].split("=", 1) for i, w in enumerate(won) if w == "--set")
                assert after.memory == {**before.memory, **values}
                assert (after.step, doc.get("id")) == (made[-1][3], made[-1][3])
                moves += len(made)
            assert state(run_id).status == "completed"
        assert sizes == set(range(2, 9))
        assert integrity() == "ok"
        with Ledger() as ledger:
            assert len(ledger.query("SELECT 1 FROM transitions")) == moves


@contextmanager
def inside_handler(score: ET.Element, marker: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run score's command (SCORE=8) until judge's handler is running; SIGKILL it on the way
    out."""
    proc = subprocess.Popen(command(score, SCORE="8"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            env={**os.environ, "LEDGER_TEST_MARKER": str(marker)})
    try:
        def started() -> bool:
            assert proc.poll() is None, proc.communicate()
            return marker.exists()

        until(started, "the handler never started")
        yield proc
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()


class TestKilledInvocation:
    """A process killed mid-invocation leaves the ledger sound and the run resumable."""

    def test_sigkill_while_the_handler_runs_leaves_the_run_resumable(
            self, script: Path, tmp_path: Path) -> None:
        """Killed while judge's handler runs (the advance to judge committed, its decision not
        yet recorded): integrity ok, the run at 'judge' with no decision, leaving it refused
        until resume has decided; resume runs the handler, passes judge and prints where its
        decision led."""
        score = to_score(script)
        run_id = str(run_of(score))
        before = state(run_id)
        with inside_handler(score, tmp_path / "inside-handler") as proc:
            # The handler runs outside any transaction: a reader sees the committed advance.
            assert state(run_id).step == "judge"
        assert proc.returncode == -signal.SIGKILL
        assert integrity() == "ok"
        killed = state(run_id)
        assert (killed.step, killed.decided, killed.hops) == ("judge", None, before.hops + 1)
        forged = step(script, "--step", "fix", "--run", run_id, "--outcome", "fail")
        assert "has not recorded its decision yet" in refused(forged, 3)[0]
        after = resume(script, run_id)
        assert (decided(after), after.get("id")) in (([("judge", "pass")], "finish"),
                                                     ([("judge", "fail")], "fix"))
        assert state(run_id).hops == before.hops + 2


class TestWaitingForTheLedger:
    """Another process holding the ledger's lock is waited for, never taken for damage."""

    def test_resume_of_another_run_is_not_blocked_by_a_running_handler(
            self, script: Path, tmp_path: Path) -> None:
        """While one run's handler runs (say, a slow verification command), reprinting a
        different run reads the ledger and prints its step."""
        other = follow(start(script), TOPIC="other")
        with inside_handler(to_score(script), tmp_path / "inside-transaction"):
            again = step(script, "--run", str(run_of(other)), "--resume")
            assert reprint_of(printed(again), other)

    def test_a_busy_ledger_is_never_reported_as_damaged(self, script: Path, tmp_path: Path) -> None:
        """Advancing another run while a handler holds the lock either succeeds or fails
        saying the ledger is busy; it never tells the agent to move the ledger aside."""
        other = follow(start(script), TOPIC="other")
        with inside_handler(to_score(script), tmp_path / "inside-transaction"):
            proc = call(command(other, NOTE="a draft"))
        if proc.returncode != 0:
            line = one_error_line(proc, 1)
            assert "mv " not in line and ".bad" not in line, line

    def test_a_writer_kept_waiting_past_its_timeout_is_told_the_ledger_is_busy(
            self, script: Path, backend: str) -> None:
        """Another writer holding the lock past the busy timeout: the error says the ledger is
        busy and to run the command again, on either backend (a server that answers is not
        reported as down, a sound file not as damaged); the connection is left as a failed
        BEGIN IMMEDIATE leaves SQLite's, outside any transaction: it reads, and writes once
        the lock is free."""
        run_id = str(run_of(start(script)))
        with Ledger(busy_ms=200) as ledger:
            with write_lock(backend), pytest.raises(LedgerError) as raised, \
                    ledger.transaction():
                pass
            line = raised.value.summary()
            assert line.startswith("the run ledger is busy ("), line
            assert "run the same command again" in line, line
            assert "server is up" not in line and "mv " not in line, line
            assert ledger.run(run_id) is not None
            with ledger.transaction():
                ledger.event(run_id, "note", "after the wait")
        with Ledger() as ledger:
            assert ledger.events(run_id)[-1][1:] == ("note", "after the wait")

    def test_a_new_run_waits_for_a_lock_on_a_ledger_being_created(
            self, script: Path, backend: str) -> None:
        """A first run while another process holds the write lock of the just-created ledger
        (the file's, or the database's advisory lock every writer takes) waits for it (within
        the busy timeout) and starts a real run, not a stateless one."""
        with write_lock(backend):
            proc = subprocess.Popen([sys.executable, str(script), "--step", "start"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if backend == "postgres":
                until(lambda: write_lock_waiters() > 0, "the new run never asked for the lock")
            else:  # with the file open, a try for its lock fails and the next waits in a sleep
                until(lambda: proc.poll() is not None or (
                    holds_open(proc.pid, ledger_path()) and sleeping(proc.pid)),
                    "the new run never waited with the ledger open")
            assert proc.poll() is None, proc.communicate()  # it waits: not gone stateless
        out, err = proc.communicate(timeout=60)
        doc = printed(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert run_of(doc)
        with Ledger() as ledger:
            assert [r.id for r in page(ledger).runs] == [run_of(doc)]


@contextmanager
def write_lock(backend: str) -> Iterator[None]:
    """Hold the ledger's write lock, as a writer's transaction does, until the block ends."""
    if backend == "sqlite":
        holder = sqlite3.connect(ledger_path(), isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            yield
            holder.execute("COMMIT")
        finally:
            holder.close()
        return
    import psycopg

    with psycopg.connect(str(ledger_url()), autocommit=True) as conn:
        conn.execute("BEGIN")
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        yield
        conn.execute("COMMIT")


def write_lock_waiters() -> int:
    """How many connections to the PostgreSQL ledger wait for its write lock."""
    import psycopg

    with psycopg.connect(str(ledger_url()), autocommit=True) as conn:
        row = conn.execute("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT "
                           "granted AND ((classid::bigint << 32) | objid::bigint) = %s",
                           (WRITE_LOCK,)).fetchone()
    return int(row[0])
