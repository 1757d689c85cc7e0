"""`skillrail ledger copy`: this machine's run history copied into a team's PostgreSQL ledger, run
by run, against a real server, with the CLI run as a user runs it. What a copy must keep: every
row a run owns, `stats` and `trace` as the source says them, the target's own runs, and the
source untouched; copying again copies nothing, and a copy killed midway, run again, ends as
one never interrupted."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from skills.lib.workflow.ledger.schema import SCHEMA_VERSION
from skills.lib.workflow.ledger.store import Ledger

from ..conftest import REPO
from ..pgserver import PgServer
from .copy_support import (
    TABLES,
    copied,
    copy,
    end,
    history,
    one_error,
    rows,
    run_ids,
    shown,
    skillrail,
    totals,
    traced,
    walk,
)
from .support import printed, step, to_finish, to_review
from .test_migration import as_old_ledger

#: The copy reads a SQLite file and writes a server these tests name themselves.
pytestmark = pytest.mark.sqlite_only("ledger copy's source is this machine's SQLite file; its "
                                     "target is the test's own PostgreSQL database")


def version(ledger_file: Path) -> int:
    with closing(sqlite3.connect(ledger_file)) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def fingerprint(ledger_file: Path) -> dict[str, str]:
    """The bytes of the ledger and its WAL: what a write would change."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (ledger_file, ledger_file.with_name(ledger_file.name + "-wal"))
            if p.exists()}


@pytest.fixture
def source(ledger_file: Path, script: Path) -> Path:
    """This machine's ledger: two runs of a real skill script (one completed, one waiting at
    its review) and 40 runs of every kind (history)."""
    to_finish(script)
    to_review(script)
    history(str(ledger_file), seed=1, runs=40)
    return ledger_file


class TestACopy:
    def test_brings_every_row_and_stats_and_traces_say_the_same(
            self, source: Path, pg_url: str) -> None:
        """Every row of every run arrives as it is (rowids aside), the running totals equal
        the source's, and `stats` and `trace` print the same on both ledgers; the source's
        bytes are unchanged."""
        before = fingerprint(source)
        report = copied("--to", pg_url)
        assert (report["new_runs"], report["skipped_runs"], report["renamed"]) == (42, 0, {})
        mine, summed = rows(str(source)), totals(str(source))
        assert all(mine.values()) and all(summed.values()), "an empty table tests nothing"
        assert (rows(pg_url), totals(pg_url)) == (mine, summed)
        assert shown("stats", ledger=pg_url) == shown("stats")
        subs = [r[0] for r in rows(str(source))["runs"] if r[8] is not None][:3]
        for run_id in [*run_ids(str(source))[:2], *subs]:  # the script's runs (ch-), sub-runs
            assert traced(run_id, ledger=pg_url) == traced(run_id), run_id
        assert fingerprint(source) == before

    def test_again_copies_nothing(self, source: Path, pg_url: str) -> None:
        copied("--to", pg_url)
        kept = rows(pg_url), totals(pg_url)
        again = copy("--to", pg_url)
        assert again.returncode == 0, again.stderr
        assert again.stdout.startswith("copied 0 new runs, finished 0, skipped 42 "), again.stdout
        assert len(again.stdout.splitlines()) == 1
        assert (rows(pg_url), totals(pg_url)) == kept

    def test_a_dry_run_says_what_a_copy_does_and_writes_nothing(
            self, source: Path, pg_url: str) -> None:
        """Into an empty database (left without the schema), then after part was copied."""
        planned = copied("--to", pg_url, "--dry-run")
        assert planned["new_runs"] == 42 and planned["dry_run"]
        with Ledger(pg_url, migrate=False) as target:
            assert target.query("PRAGMA user_version")[0][0] == 0
        copied("--to", pg_url)
        run_id = _movable(source)[0]
        with Ledger(str(source)) as ledger:
            run = ledger.run(run_id)
            assert run is not None and run.status == "active"
            walk(ledger, run, random.Random(3), 2)
        history(str(source), seed=2, runs=3)
        planned = copied("--to", pg_url, "--dry-run")
        done = copied("--to", pg_url)
        for key in ("copied", "finished", "skipped", "differing", "renamed"):
            assert planned[key] == done[key], key
        assert (len(done["copied"]), done["finished"]) == (3, [run_id])


def _movable(source: Path) -> list[str]:
    """The active plan runs of the history that have moves left."""
    return [r[0] for r in rows(str(source))["runs"]
            if r[0].startswith("pl-") and r[7] == "active" and r[9] != "done"]


class TestAKilledCopy:
    @pytest.mark.parametrize("killed_at", [1, 17])
    def test_leaves_whole_runs_and_run_again_ends_as_one_never_stopped(
            self, source: Path, pg_server: PgServer, pg_url: str, tmp_path: Path,
            killed_at: int) -> None:
        """Killed (SIGKILL) while the rows of its `killed_at`-th run are written and not yet
        committed: the target holds the runs before it, each whole, and the rerun finishes the
        rest: the same rows and totals as an uninterrupted copy into another database."""
        marker = tmp_path / "holding"
        proc = subprocess.Popen(
            [sys.executable, "-m", "skills.lib.workflow.commands", "ledger", "copy", "--to",
             pg_url], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(REPO / ".claude"),
                 "SKILLRAIL_TEST_COPY_HOLD": f"{killed_at}:{marker}"})
        try:
            _wait_for(marker, proc)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
        kept = rows(pg_url)
        assert len(kept["runs"]) == killed_at - 1
        whole = rows(str(source))
        for table, found in kept.items():
            column = 0 if table == "runs" else TABLES[table].split(", ").index("run")
            ids = {r[0] for r in kept["runs"]}
            assert found == [r for r in whole[table] if r[column] in ids], table
        report = copied("--to", pg_url)
        assert (len(report["copied"]), len(report["skipped"])) == (43 - killed_at,
                                                                   killed_at - 1)
        other = pg_server.fresh_database()
        try:
            copied("--to", other)
            assert (rows(pg_url), totals(pg_url)) == (rows(other), totals(other))
        finally:
            pg_server.drop_database(other)


def _wait_for(marker: Path, proc: subprocess.Popen[bytes]) -> None:
    """Until the copy says it holds (a minute at most: a slow machine is no failure here)."""
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None, "the copy ended before it held"
        assert time.monotonic() < deadline, "the copy never held"
        time.sleep(0.02)


class TestATargetWithRunsOfItsOwn:
    def test_keeps_them_and_copies_runs_whose_ids_it_has_under_new_ids(
            self, source: Path, pg_url: str) -> None:
        """The team's ledger has 25 runs of others, 20 of them with the ids of runs here
        (another machine drew the same ids): theirs stay as they were, ours come under fresh
        ids of their skill, sub-runs follow their parents, the totals count both, and copying
        again finds the renamed runs."""
        history(pg_url, seed=1, runs=20)  # our history's ids, other runs
        history(pg_url, seed=9, runs=5)
        others = rows(pg_url)
        report = copied("--to", pg_url)
        renamed = report["renamed"]
        assert sorted(renamed) == [f"pl-01{n:04x}" for n in range(20)]
        assert all(new.startswith("ru-") for new in renamed.values())  # runner's, as it draws
        assert len(report["copied"]) == 42
        after = rows(pg_url)
        for table, found in others.items():
            assert set(found) <= set(after[table]), table
        back = {new: old for old, new in renamed.items()}
        for old in ("pl-010000", *_with_sub_runs(source, renamed)):
            assert _renamed(traced(renamed[old], ledger=pg_url), back) \
                == traced(old), old
        again = copied("--to", pg_url)
        assert (again["new_runs"], again["renamed"]) == (0, renamed)
        assert _summed(shown("stats", ledger=pg_url)) == _summed(shown("stats")) + 25


def _with_sub_runs(source: Path, among: dict[str, str]) -> list[str]:
    parents = {r[8] for r in rows(str(source))["runs"]}
    return sorted(parents & set(among))[:2]


def _renamed(doc: object, ids: dict[str, str]) -> object:
    """`doc` with each id in `ids` replaced, wherever it stands in a text (a trace's note
    names the run)."""
    if isinstance(doc, dict):
        return {k: _renamed(v, ids) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_renamed(v, ids) for v in doc]
    if isinstance(doc, str):
        for old, new in ids.items():
            doc = doc.replace(old, new)
    return doc


def _summed(stats: list[dict[str, object]]) -> int:
    return sum(int(str(row["runs"])) for row in stats)


class TestARunCopiedBefore:
    def test_that_went_on_here_is_finished(self, source: Path, pg_url: str) -> None:
        """Runs that moved on, recorded a value of their next move again and ended here after
        the copy are finished: their rows, the totals and stats are the source's."""
        copied("--to", pg_url)
        active = _movable(source)[:6]
        loops = set(rows(str(source))["loops"])
        rng = random.Random(5)
        with Ledger(str(source)) as ledger:
            for n, run_id in enumerate(active):
                run = ledger.run(run_id)
                assert run is not None
                with ledger.transaction():
                    ledger.remember(run.id, run.hops, run.step, "CHECK", "third try")
                walk(ledger, run, rng, 12, always="fail" if n == 0 else None)
                end(ledger, run.id, rng.choice(["active", "abandoned", "success", "partial"]))
        grown = {(run, edge) for run, edge, _ in set(rows(str(source))["loops"]) - loops}
        assert grown & {(run, edge) for run, edge, _ in loops}, "no loop count grew"
        report = copied("--to", pg_url)
        assert sorted(report["finished"]) == sorted(active)
        assert (rows(pg_url), totals(pg_url)) == (rows(str(source)), totals(str(source)))
        assert shown("stats", ledger=pg_url) == shown("stats")

    def test_that_went_on_in_the_target_is_left_as_it_is(
            self, source: Path, pg_url: str) -> None:
        copied("--to", pg_url)
        run_id = _movable(source)[0]
        with Ledger(pg_url) as team:
            run = team.run(run_id)
            assert run is not None
            walk(team, run, random.Random(7), 3)
        kept = rows(pg_url)
        done = copy("--to", pg_url)
        assert done.returncode == 0, done.stderr
        assert f"1 run left as the target has them, having gone on there ({run_id})" \
            in done.stdout
        assert rows(pg_url) == kept


class TestTheSource:
    def test_an_older_one_is_read_through_a_migrated_copy_and_left_as_it_was(
            self, source: Path, pg_url: str) -> None:
        as_old_ledger(source, 7)
        before = fingerprint(source)
        done = copy("--to", pg_url)
        assert done.returncode == 0, done.stderr
        assert "read from schema 7 through a migrated temporary copy" in done.stdout
        assert (version(source), fingerprint(source)) == (7, before)
        mine = rows(str(source))  # migrates it: after the comparison of its bytes
        assert rows(pg_url) == mine

    def test_a_newer_one_is_refused(self, source: Path, pg_url: str) -> None:
        with Ledger(str(source)) as ledger:
            ledger.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        line = one_error(copy("--to", pg_url))
        assert f"has schema version {SCHEMA_VERSION + 1}, newer than this skillrail's" in line
        assert run_ids(pg_url) == []

    def test_a_missing_file_or_one_of_no_ledger_is_named(self, tmp_path: Path,
                                                         pg_url: str) -> None:
        line = one_error(copy("--to", pg_url, "--from", str(tmp_path / "none.sqlite3")), 2)
        assert "no run ledger at" in line
        (tmp_path / "notes.txt").write_text("not a database at all, " * 100)
        line = one_error(copy("--to", pg_url, "--from", str(tmp_path / "notes.txt")))
        assert "cannot read the run ledger" in line


class TestErrors:
    @pytest.mark.parametrize("url", ["postgresql:///nodb?host=/nonexistent/socket",
                                     "postgresql://[oops/db", "postgresql://a:b@/x?nonsense=1"])
    def test_a_bad_or_unreachable_url_is_one_line(self, source: Path, url: str) -> None:
        before = fingerprint(source)
        line = one_error(copy("--to", url))
        assert "Check the URL given to --to" in line and "nothing was copied" in line
        assert fingerprint(source) == before

    def test_a_target_of_a_newer_schema_is_refused(self, source: Path, pg_url: str) -> None:
        with Ledger(pg_url) as team:
            team.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        line = one_error(copy("--to", pg_url))
        assert "newer than this skillrail's" in line and "Upgrade skillrail" in line

    def test_a_target_that_is_no_postgresql_url_is_bad_usage(self, source: Path) -> None:
        line = one_error(copy("--to", str(source)), 2)
        assert "--to wants a PostgreSQL ledger's URL" in line

    def test_without_psycopg_it_says_what_to_install(self, source: Path, tmp_path: Path,
                                                     pg_url: str) -> None:
        """psycopg shadowed by a package that cannot be imported, as where none is installed."""
        (tmp_path / "psycopg").mkdir()
        (tmp_path / "psycopg" / "__init__.py").write_text(
            "raise ModuleNotFoundError(\"No module named 'psycopg'\", name='psycopg')\n")
        line = one_error(copy("--to", pg_url, env={
            "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO / '.claude'}"}, process=True))
        assert "needs the Python package psycopg" in line and "pip install" in line
        assert run_ids(pg_url) == []

    def test_help_explains_idempotence_and_resuming(self) -> None:
        done = skillrail("ledger", "copy", "--help")
        assert done.returncode == 0
        assert "0 new runs" in done.stdout and "Resumable" in done.stdout
        printed_usage = skillrail("ledger")
        assert printed_usage.returncode == 2 and "Traceback" not in printed_usage.stderr


def test_a_real_run_copied_goes_on_in_the_team_ledger(script: Path, source: Path,
                                                      pg_url: str) -> None:
    """The run waiting at its review, copied, is resumed on the team's ledger by the command its
    step printed, as if it had started there."""
    copied("--to", pg_url)
    waiting = [r[0] for r in rows(str(source))["runs"] if r[9] == "review"]
    assert waiting
    doc = printed(step(script, "--run", waiting[0], "--resume",
                       env={"SKILLRAIL_LEDGER": pg_url}))
    assert (doc.get("run"), doc.get("id")) == (waiting[0], "review")
