"""A ledger an older skillrail wrote is brought up to this schema on first use, and its runs go
on: they can be resumed, advanced, listed and traced."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from skills.lib.workflow.run.ledger_schema import MIGRATIONS, SCHEMA_VERSION

from ..test_commands import skillrail
from .support import follow, integrity, resume, start, state

#: The schema of the release before the listings' indexes.
OLD_VERSION = 4


def as_old_ledger(ledger_file: Path) -> None:
    """Rewrite the ledger as that release kept it: its schema, and every row copied over."""
    old = ledger_file.with_name("old.sqlite3")
    with closing(sqlite3.connect(old)) as db:
        for migrate in MIGRATIONS[:OLD_VERSION]:
            migrate(db)
        db.execute(f"PRAGMA user_version = {OLD_VERSION}")
        db.commit()
        db.execute("ATTACH ? AS current", (str(ledger_file),))
        tables = [r[0] for r in db.execute("SELECT name FROM main.sqlite_master WHERE type = "
                                           "'table'")]
        for table in tables:
            db.execute(f"INSERT INTO main.{table} SELECT * FROM current.{table}")
        db.commit()
    for leftover in ("-wal", "-shm"):  # the attached ledger's, checkpointed as it closed
        assert not ledger_file.with_name(ledger_file.name + leftover).exists()
    old.replace(ledger_file)


def version(ledger_file: Path) -> int:
    with closing(sqlite3.connect(ledger_file)) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


class TestAnOlderLedger:
    def test_a_run_recorded_before_the_migration_goes_on_after_it(
            self, script: Path, ledger_file: Path) -> None:
        """A run two steps in, in a schema-4 ledger: resuming it migrates the ledger, shows
        the step with its memory, and the run advances, lists and traces as before."""
        draft = follow(start(script), TOPIC="caching")
        run_id = str(draft.get("run"))
        as_old_ledger(ledger_file)
        assert version(ledger_file) == OLD_VERSION
        assert resume(script, run_id).get("id") == "draft"
        assert version(ledger_file) == SCHEMA_VERSION
        assert follow(draft, NOTE="first draft").get("id") == "review"
        now = state(ledger_file, run_id)
        assert (now.step, now.memory) == ("review", {"TOPIC": "caching", "NOTE": "first draft"})
        listed = json.loads(skillrail("runs", "--json").stdout)
        assert [(r["run"], r["step"]) for r in listed["runs"]] == [(run_id, "review")]
        traced = json.loads(skillrail("trace", run_id, "--json").stdout)
        assert [e["target"] for e in traced["timeline"] if e["kind"] == "transition"] == [
            "draft", "review"]
        assert integrity(ledger_file) == "ok"
