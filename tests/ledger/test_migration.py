"""A ledger an older skillrail wrote is brought up to this schema on first use, and its runs go
on: they can be resumed, advanced, listed and traced."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from skills.lib.workflow.ledger.schema import MIGRATIONS, SCHEMA_VERSION

from ..harness import run_of
from ..test_commands import skillrail
from .support import follow, integrity, raw, resume, schema_version, start, state

#: The schema of the release before the listings' indexes.
OLD_VERSION = 4


def as_old_ledger(ledger_file: Path, schema: int = OLD_VERSION) -> None:
    """Rewrite the ledger as the release of `schema` kept it: that schema, and every row it has
    a table for copied over."""
    old = ledger_file.with_name("old.sqlite3")
    with closing(sqlite3.connect(old)) as db:
        for migrate in MIGRATIONS[:schema]:
            migrate(db)
        db.execute(f"PRAGMA user_version = {schema}")
        db.commit()
        db.execute("ATTACH ? AS current", (str(ledger_file),))
        tables = [r[0] for r in db.execute("SELECT name FROM main.sqlite_master WHERE type = "
                                           "'table'")]
        for table in tables:  # the columns the old table has (later schemas add some)
            columns = ", ".join(r[1] for r in db.execute(f"PRAGMA main.table_info({table})"))
            # A running total the old schema's triggers kept while the rows went in: as copied.
            db.execute(f"DELETE FROM main.{table}")
            db.execute(f"INSERT INTO main.{table} SELECT {columns} FROM current.{table}")
        db.commit()
    for leftover in ("-wal", "-shm"):  # the attached ledger's, checkpointed as it closed
        assert not ledger_file.with_name(ledger_file.name + leftover).exists()
    old.replace(ledger_file)


#: What schema 9 added to PostgreSQL's schema 8 (pgschema.V9_POSTGRES), taken away again.
UNDO_V9_POSTGRES = """
ALTER TABLE runs DROP COLUMN folder, DROP COLUMN gate;
DROP TRIGGER transitions_notify ON transitions;
DROP TRIGGER events_notify ON events;
DROP FUNCTION notify_run();
DROP INDEX runs_by_host;
ALTER TABLE runs DROP COLUMN host, DROP COLUMN who;
"""


def as_postgres_baseline() -> None:
    """Rewrite SKILLRAIL_LEDGER's database as the first release with a PostgreSQL ledger kept it:
    schema 8 (pgschema.BASELINE, PostgreSQL's oldest), its rows as they are."""
    with raw() as db:
        db.execute("BEGIN")
        for statement in UNDO_V9_POSTGRES.split(";"):  # V10's too
            if statement.strip():
                db.execute(statement)
        db.execute("PRAGMA user_version = 8")
        db.execute("COMMIT")


class TestAnOlderLedger:
    @pytest.mark.sqlite_only("a schema-4 SQLite file: PostgreSQL ledgers begin at schema 8, "
                             "which the postgres test below starts from")
    def test_a_run_recorded_before_the_migration_goes_on_after_it(
            self, script: Path, ledger_file: Path) -> None:
        """A run in its review loop, in a schema-4 ledger: resuming it migrates the ledger and
        shows the step with its memory; the run loops again, and lists, traces and counts
        as if the ledger had always been new (stats: the pass before the migration and the
        one after)."""
        goes_on_after_migrating(script, lambda: as_old_ledger(ledger_file), OLD_VERSION)

    @pytest.mark.postgres_only("PostgreSQL's oldest schema is 8 (pgschema.BASELINE); the "
                               "SQLite test above starts from 4")
    def test_a_run_recorded_in_a_schema_8_database_goes_on_after_it(self, script: Path) -> None:
        """The same in a database of schema 8: resuming the run brings it to SCHEMA_VERSION,
        and the run, its listing, trace and totals go on as if it had always been new."""
        goes_on_after_migrating(script, as_postgres_baseline, 8)


def goes_on_after_migrating(script: Path, make_old: Callable[[], None], old: int) -> None:
    """A run in its review loop; make_old() rewrites the ledger at schema `old`; resuming the
    run migrates it and shows the step with its memory; the run loops again, and lists, traces
    and counts as if the ledger had always been new."""
    review = follow(follow(start(script), TOPIC="caching"), NOTE="first draft")
    run_id = str(run_of(review))
    review = follow(follow(review, "iterate"), NOTE="second draft")
    make_old()
    assert schema_version() == old
    assert resume(script, run_id).get("id") == "review"
    assert schema_version() == SCHEMA_VERSION
    assert follow(review, "iterate").get("id") == "draft"
    now = state(run_id)
    assert (now.step, now.counts) == ("draft", {"review:iterate": 2})
    assert now.memory == {"TOPIC": "caching", "NOTE": "second draft"}
    listed = json.loads(skillrail("runs", "--json").stdout)
    assert [(r["run"], r["step"]) for r in listed["runs"]] == [(run_id, "draft")]
    traced = json.loads(skillrail("trace", run_id, "--json").stdout)
    assert [e["target"] for e in traced["timeline"] if e["kind"] == "transition"] == [
        "draft", "review", "draft", "review", "draft"]
    stats = skillrail("stats", "--root", str(script.parents[2]), "--skill", "chain",
                      "--json")
    (row,) = json.loads(stats.stdout)
    assert (row["runs"], row["active"]) == (1, 1)
    assert row["loops"] == [{"workflow": "chain", "edge": "review:iterate", "cap": 3,
                             "runs": 1, "average_passes": 3.0, "worst_passes": 3,
                             "exhausted": 0}]
    assert integrity() == "ok"
