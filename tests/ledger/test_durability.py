"""What the ledger costs the disk: commits stay in the WAL beside the ledger between step
processes (no checkpoint, no fdatasync and no new WAL at every exit), and the WAL stays bounded.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from skills.lib.workflow.ledger.store import WAL_CHECKPOINT_BYTES, WAL_LIMIT_BYTES, Ledger, Run

from ..procstate import sleeping, this_thread
from .support import follow, integrity, start, state

pytestmark = pytest.mark.sqlite_only("SQLite's WAL file and its checkpoints; a server keeps its "
                                     "own WAL")


def wal_of(ledger_file: Path) -> Path:
    return ledger_file.with_name(ledger_file.name + "-wal")


def long_note(path: Path) -> None:
    """A step that leaves the WAL longer than WAL_CHECKPOINT_BYTES, so its exit empties it."""
    with Ledger(str(path)) as ledger, ledger.transaction():
        ledger.event("ch-000001", "note", "n" * 2 * WAL_CHECKPOINT_BYTES)


def asleep_while(call: Callable[[], None]) -> int:
    """How often `call`, run in a thread of its own and watched until it returns, was seen
    asleep."""
    tid: list[int] = []

    def run() -> None:
        tid.append(this_thread())
        call()

    thread = threading.Thread(target=run)
    thread.start()
    seen = 0
    while thread.is_alive():
        seen += bool(tid) and sleeping(os.getpid(), tid[0])
    thread.join()
    return seen


def a_run(run_id: str) -> Run:
    return Run(id=run_id, skill="chain", workflow="chain", script="/nowhere/chain.py",
               fingerprint="f", workspace="/tmp", session=None, params={}, status="active",
               parent=None, step="draft", decided=None, hops=1, started=0.0, updated=0.0,
               counts={}, memory={})


class TestBetweenSteps:
    """Each step is a process of its own; what one commits, the next finds."""

    def test_a_step_leaves_its_commits_in_the_wal_for_the_next(
            self, script: Path, ledger_file: Path) -> None:
        """After a step process has exited, the WAL it wrote is still there, not yet
        checkpointed into the ledger file; the next step reads the run from it."""
        doc = start(script)
        assert wal_of(ledger_file).stat().st_size > 0
        draft = follow(doc, TOPIC="caching")
        assert draft.get("id") == "draft"
        assert wal_of(ledger_file).stat().st_size > 0
        assert state(str(doc.get("run"))).memory == {"TOPIC": "caching"}
        assert integrity() == "ok"


class TestWalSize:
    """Writers checkpoint as the WAL grows, and a WAL grown past the limit is trimmed back."""

    def test_a_wal_grown_by_one_big_write_is_trimmed_back_after_the_next(
            self, tmp_path: Path) -> None:
        """One transaction of twice the limit grows the WAL past it; once it has been
        checkpointed, the next write starts it over at most the limit long, and every value
        is still there."""
        path = tmp_path / "runs.sqlite3"
        big = {f"K{n}": "v" * 100_000 for n in range(2 * WAL_LIMIT_BYTES // 100_000)}
        with Ledger(str(path)) as ledger:
            with ledger.transaction():
                ledger.create(a_run("ch-000001"))
                ledger.advance(a_run("ch-000001"), "ok", "review", big, {})
            assert wal_of(path).stat().st_size > WAL_LIMIT_BYTES
            with ledger.transaction():
                ledger.create(a_run("ch-000002"))
            assert wal_of(path).stat().st_size <= WAL_LIMIT_BYTES
        with Ledger(str(path)) as ledger:
            found = ledger.run("ch-000001")
            assert found is not None and found.memory == big
            assert ledger.integrity() == "ok"

    def test_the_wal_stays_short_over_many_step_processes(self, tmp_path: Path) -> None:
        """Each step opens the ledger afresh, and SQLite then counts none of the WAL as copied
        in, so its own checkpoints never start the WAL over: the process that leaves it longer
        than WAL_CHECKPOINT_BYTES empties it. (Opening and closing the file is what a process
        does: with no other connection to it, the next one rebuilds the WAL's index.)"""
        path = tmp_path / "runs.sqlite3"
        with Ledger(str(path)) as ledger, ledger.transaction():
            ledger.create(a_run("ch-000001"))
        note = "n" * 20_000
        writes = 3 * WAL_CHECKPOINT_BYTES // len(note)
        for _ in range(writes):
            with Ledger(str(path)) as ledger, ledger.transaction():
                ledger.event("ch-000001", "note", note)
            assert wal_of(path).stat().st_size <= WAL_CHECKPOINT_BYTES + 4 * len(note)
        with Ledger(str(path)) as ledger:
            assert len(ledger.events("ch-000001")) == writes + 1
            assert ledger.integrity() == "ok"

    def test_a_reader_elsewhere_does_not_make_an_exit_wait(self, tmp_path: Path) -> None:
        """While another connection reads, emptying the WAL is put off, not waited for: the
        exit that finds the reader is never seen asleep (SQLite waits for a reader only by
        sleeping between tries). The next exit with no reader empties it."""
        path = tmp_path / "runs.sqlite3"
        with Ledger(str(path)) as ledger, ledger.transaction():
            ledger.create(a_run("ch-000001"))
        reader = sqlite3.connect(str(path), isolation_level=None)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT COUNT(*) FROM runs").fetchall()  # holds its snapshot
            assert asleep_while(lambda: long_note(path)) == 0
            assert wal_of(path).stat().st_size > WAL_CHECKPOINT_BYTES
            reader.execute("COMMIT")
            with Ledger(str(path)) as ledger:
                assert ledger.exists("ch-000001")
            assert wal_of(path).stat().st_size <= WAL_CHECKPOINT_BYTES
        finally:
            reader.close()
