"""`skillrail show RUN KEY`: one value of a run's memory, whole and byte for byte, as a person or
an agent runs it; every failure one line on stderr and a non-zero exit."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skills.lib.workflow.ledger.store import Ledger, Run

from .conftest import REPO, SKILLS_ROOT
from .harness import run_of
from .strategies import texts, utf8_only

#: Run ids for the runs the property test records, one per example, in one ledger.
_IDS = (f"sh-{n:06x}" for n in itertools.count(1))


def show(*args: str) -> subprocess.CompletedProcess[bytes]:
    """`skillrail show ARGS`, its output kept as bytes."""
    return subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "show", *args],
                          capture_output=True, timeout=120,
                          env={"PYTHONPATH": str(REPO / ".claude"), "PATH": "/usr/bin:/bin",
                               "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]})


def recorded(*moves: dict[str, str]) -> str:
    """A new run in the test's ledger that made one move per mapping, reporting its values;
    its id."""
    run = Run(id=next(_IDS), skill="show", workflow="show", script="/nowhere/show.py",
              fingerprint="f", workspace="/tmp", session=None, params={}, status="active",
              parent=None, step="write", decided=None, hops=1, started=0.0, updated=0.0,
              counts={}, memory={})
    with Ledger() as ledger, ledger.transaction():
        ledger.create(run)
        for values in moves:
            ledger.advance(run, "ok", "write", values, {})
            run = run._replace(hops=run.hops + 1)
    return run.id


def error_line(proc: subprocess.CompletedProcess[bytes], code: int) -> str:
    """The one stderr line of a failed show: exit `code`, nothing on stdout."""
    err = proc.stderr.decode("utf-8")
    assert (proc.returncode, proc.stdout) == (code, b""), err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    return err


class TestTheValue:
    @settings(max_examples=40, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(value=st.one_of(st.text(), texts().map(utf8_only)))
    def test_any_stored_text_is_printed_byte_for_byte(self, value: str) -> None:
        """Whatever text the ledger holds (NUL, controls, markup, line breaks, a trailing
        newline or none, any plane): stdout is exactly its UTF-8, nothing added."""
        proc = show(recorded({"NOTE": value}), "NOTE")
        assert (proc.returncode, proc.stderr) == (0, b"")
        assert proc.stdout == value.encode("utf-8")

    def test_the_latest_value_of_a_key_is_the_one_shown(self) -> None:
        """A key reported on two moves: the second value, as the run's next step sees it."""
        run_id = recorded({"NOTE": "first pass"}, {"NOTE": "second pass\n", "OTHER": "x"})
        assert show(run_id, "NOTE").stdout == b"second pass\n"

    def test_a_value_an_agent_reported_with_set_comes_back_whole(self, tmp_path: Path) -> None:
        """A real run: the restatement given with --set on the command line (quotes, a
        blank line, trailing spaces) is what show prints."""
        value = "We'll use Go -- \"for now\"  \n\n  & <not> a tag; $(not run)  "
        script = str(SKILLS_ROOT / "decision-critic" / "scripts" / "decision-critic.py")
        first = subprocess.run([sys.executable, script, "--step", "1", "--decision=Use Go"],
                               capture_output=True, text=True, cwd=tmp_path, check=True)
        run_id = (run_of(ET.fromstring(first.stdout)) or "")
        subprocess.run([sys.executable, script, "--step", "challenge", "--run", run_id,
                        "--set", f"RESTATEMENT={value}", "--set", "ASSUMPTIONS=A1"],
                       capture_output=True, cwd=tmp_path, check=True)
        assert show(run_id, "RESTATEMENT").stdout == value.encode("utf-8")


class TestFailures:
    def test_an_unknown_run_names_the_listing_and_a_close_id(self) -> None:
        """A mistyped run id: exit 2, one line, `skillrail runs`, did-you-mean."""
        run_id = recorded({"NOTE": "x"})
        line = error_line(show(run_id[:-1] + "z", "NOTE"), 2)
        assert f"no run '{run_id[:-1]}z'" in line and "skillrail runs" in line
        assert f"Did you mean '{run_id}'?" in line

    def test_an_unknown_key_lists_the_keys_the_run_has(self) -> None:
        """A key the run never recorded: exit 2, one line naming every key it has."""
        line = error_line(show(recorded({"PROBLEM": "p", "EVIDENCE": "e"}), "PROBLEMS"), 2)
        assert "has no value 'PROBLEMS'" in line
        assert "Its values: EVIDENCE, PROBLEM." in line and "Did you mean 'PROBLEM'?" in line

    def test_a_run_without_values_says_so(self) -> None:
        line = error_line(show(recorded(), "NOTE"), 2)
        assert "recorded no values yet" in line

    @pytest.mark.parametrize("junk", [b"this is not an SQLite database\n" * 64,
                                      b"SQLite format 3\x00" + b"\xff" * 4080])
    def test_a_damaged_ledger_is_one_line_naming_the_file(self, ledger_home: Path,
                                                          junk: bytes) -> None:
        """Junk where the ledger should be: exit 1, one line with the file and the way out."""
        (ledger_home / "runs.sqlite3").write_bytes(junk)
        line = error_line(show("sh-000001", "NOTE"), 1)
        assert str(ledger_home / "runs.sqlite3") in line and ".bad" in line
