"""A run ledger file that cannot be used (junk bytes, a damaged table, a folder that cannot be
made or written): one clear line, never a traceback or a lost run."""

from __future__ import annotations

import os
import sqlite3
import sys
import xml.etree.ElementTree as ET
from contextlib import closing
from pathlib import Path

import pytest
from skills.lib.workflow.ledger.listing import page
from skills.lib.workflow.ledger.store import Ledger

from ..harness import flag
from .support import call, command, follow, integrity, one_error_line, start, step

JUNK = b"this is not an SQLite database\n" * 64


def clobber(ledger_file: Path) -> None:
    """Junk over the ledger: its file, and the WAL beside it that step processes leave in
    place (it holds the latest commits, so junk in the main file alone may damage nothing)."""
    ledger_file.write_bytes(JUNK)
    wal = ledger_file.with_name(ledger_file.name + "-wal")
    if wal.exists():
        wal.write_bytes(JUNK)


@pytest.mark.sqlite_only("a damaged or unwritable SQLite file or folder; a server's database "
                         "has neither (test_postgres.py: a server down or gone)")
class TestDamagedLedger:
    """A ledger that cannot be used gives one clear line, never a traceback or a lost run."""

    def test_a_corrupted_ledger_is_one_error_line_naming_the_file_for_a_run(
            self, script: Path, ledger_file: Path) -> None:
        """Junk bytes in runs.sqlite3 and its WAL: `--run ID` exits 1 with one line that names
        the file and how to move it aside."""
        run_id = str(start(script).get("run"))
        clobber(ledger_file)
        line = one_error_line(step(script, "--run", run_id, "--resume"), 1)
        assert str(ledger_file) in line
        assert f"mv {ledger_file} {ledger_file}.bad" in line

    def test_a_corrupted_ledger_lets_a_new_run_go_on_stateless_with_a_warning(
            self, script: Path, ledger_file: Path) -> None:
        """A new run over a junk ledger: a warning naming the file, then a stateless step;
        the damaged file is left as it was."""
        start(script)
        clobber(ledger_file)
        proc = step(script, "--step", "start")
        assert (proc.returncode, proc.stdout != b"") == (0, True), proc.stderr
        warnings = proc.stderr.decode("utf-8").splitlines()
        assert len(warnings) == 1 and warnings[0].startswith("warning: ")
        assert str(ledger_file) in warnings[0]
        doc = ET.fromstring(proc.stdout)
        assert doc.get("run") is None
        assert flag(command(doc), "--from") == "start"
        assert flag(command(doc), "--run") is None
        assert ledger_file.read_bytes() == JUNK

    def test_a_ledger_moved_aside_as_the_error_says_starts_afresh(
            self, script: Path, ledger_file: Path) -> None:
        """After `mv runs.sqlite3 runs.sqlite3.bad` (the fix the error names), the WAL left
        beside the new file is not read into it: the next run starts a sound, empty ledger,
        and the old run is unknown to it."""
        old = str(follow(start(script), TOPIC="caching").get("run"))
        assert ledger_file.with_name(ledger_file.name + "-wal").exists()
        ledger_file.rename(ledger_file.with_name(ledger_file.name + ".bad"))
        new = str(start(script).get("run"))
        assert integrity() == "ok"
        with Ledger() as ledger:
            assert [r.id for r in page(ledger).runs] == [new]
        assert "no run" in one_error_line(step(script, "--run", old, "--resume"), 2)

    def test_a_damaged_table_met_while_advancing_is_a_ledger_error_naming_the_file(
            self, script: Path, ledger_file: Path) -> None:
        """The transitions table's page overwritten: the advance fails with the ledger's own
        one-line error (file, how to move it aside), not as an internal error."""
        doc = start(script)
        with closing(sqlite3.connect(ledger_file)) as db:
            page_size = db.execute("PRAGMA page_size").fetchone()[0]
            root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'transitions'"
                              ).fetchone()[0]
        with ledger_file.open("r+b") as handle:
            handle.seek((root - 1) * page_size)
            handle.write(b"\x5a" * page_size)
        line = one_error_line(call(command(doc, TOPIC="caching")), 1)
        assert str(ledger_file) in line
        assert f"mv {ledger_file} {ledger_file}.bad" in line

    def test_a_ledger_folder_that_cannot_be_created_gives_a_warning_and_a_stateless_step(
            self, script: Path, tmp_path: Path) -> None:
        """SKILLRAIL_HOME under a regular file (fails even for root): a new run warns and runs
        stateless; a `--run` invocation is exit 1 with one line."""
        blocker = tmp_path / "a-file"
        blocker.write_text("")
        env = {"SKILLRAIL_HOME": str(blocker / "skillrail")}
        proc = step(script, "--step", "start", env=env)
        assert proc.returncode == 0, proc.stderr
        warnings = proc.stderr.decode("utf-8").splitlines()
        assert len(warnings) == 1 and warnings[0].startswith("warning: ")
        assert str(blocker / "skillrail" / "runs.sqlite3") in warnings[0]
        assert ET.fromstring(proc.stdout).get("run") is None
        line = one_error_line(step(script, "--run", "ch-000000", "--resume", env=env), 1)
        assert str(blocker / "skillrail" / "runs.sqlite3") in line

    def test_a_read_only_ledger_folder_gives_a_warning_and_a_stateless_step(
            self, script: Path, ledger_home: Path) -> None:
        """A ledger folder without write permission: the new run warns and runs stateless."""
        argv = [sys.executable, str(script), "--step", "start"]
        if os.geteuid() == 0:
            # Root writes through permissions by its DAC capabilities; without them the folder's
            # mode binds root as it binds anyone (setpriv is util-linux, on every Debian).
            argv = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *argv]
        ledger_home.chmod(0o500)
        try:
            proc = call(argv)
        finally:
            ledger_home.chmod(0o700)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.decode("utf-8").startswith("warning: ")
        assert ET.fromstring(proc.stdout).get("run") is None
