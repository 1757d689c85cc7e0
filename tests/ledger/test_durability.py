"""What the ledger costs the disk: commits stay in the WAL beside the ledger between step
processes (no checkpoint, no fdatasync and no new WAL at every exit), and the WAL stays bounded.
"""

from __future__ import annotations

from pathlib import Path

from skills.lib.workflow.run.ledger import WAL_LIMIT_BYTES, Ledger, Run

from .support import follow, integrity, start, state


def wal_of(ledger_file: Path) -> Path:
    return ledger_file.with_name(ledger_file.name + "-wal")


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
        assert state(ledger_file, str(doc.get("run"))).memory == {"TOPIC": "caching"}
        assert integrity(ledger_file) == "ok"


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
