"""`skillrail trace RUN --since ID`: the entries after one, by the id trace prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from skills.lib.workflow.run.entries import read
from skills.lib.workflow.run.ledger import Ledger
from skills.lib.workflow.tools.history import timeline

from .conftest import REPO
from .history_support import GITHUB_TOKEN, PASSWORD
from .ledger.support import follow, start, write_script

#: Generous: only there so that a process that hangs fails its test rather than the suite.
TIMEOUT = 60


def skillrail(*args: str) -> subprocess.CompletedProcess[str]:
    """`skillrail ARGS` with this test's ledger (SKILLRAIL_HOME, and SKILLRAIL_LEDGER when a
    test sets it)."""
    return subprocess.run(_argv(*args), capture_output=True, text=True, env=_env(),
                          timeout=TIMEOUT)


def _argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "skills.lib.workflow.commands", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO / ".claude")}


@pytest.fixture
def script(tmp_path: Path) -> Path:
    return write_script(tmp_path / "chain" / "scripts" / "chain.py")


def ledger_ids(run_id: str) -> list[str]:
    """The ids of the run's entries, as the ledger holds them now, in order."""
    with Ledger() as ledger:
        return [entry["id"] for entry in timeline(read(ledger, run_id), None)]


#: The moves of a run of chain (tests/ledger/support.py) from its start to its end: each the
#: outcome and the values the printed command is given. The values hold secrets.
WALK: list[tuple[str | None, dict[str, str]]] = [
    (None, {"TOPIC": f"db login password={PASSWORD}"}),
    (None, {"NOTE": f"used {GITHUB_TOKEN}"}),
    ("iterate", {}),
    (None, {"NOTE": "second draft"}),
    ("ok", {}),
    (None, {"SCORE": "7"}),  # then judge passes (the script decides), and the run completes
]


def walk(doc: ET.Element, moves: list[tuple[str | None, dict[str, str]]],
         after: Callable[[str], object]) -> ET.Element:
    """Make `moves` from `doc`, calling `after` with the ledger's newest entry id after each."""
    for outcome, values in moves:
        doc = follow(doc, outcome, **values)
        after(ledger_ids(doc.get("run", ""))[-1])
    return doc


class TestSince:
    def test_since_shows_exactly_the_entries_after_the_id(self, script: Path) -> None:
        """From an event, a move, a value and the last entry: the entries after it, as the
        full trace shows them, at full and at summary level."""
        run_id = walk(start(script), WALK, lambda _: None).get("run", "")
        full = json.loads(skillrail("trace", run_id, "--json").stdout)["timeline"]
        ids = [entry["id"] for entry in full]
        assert ids == ledger_ids(run_id) and ids[0] == "e1" and "t2.NOTE" in ids
        for since in ("e1", "t3", "t2.NOTE", ids[-1]):
            proc = skillrail("trace", run_id, "--since", since, "--json")
            assert (proc.returncode, proc.stderr) == (0, "")
            assert json.loads(proc.stdout)["timeline"] == full[ids.index(since) + 1:], since
        summary = json.loads(skillrail("trace", run_id, "--level", "summary", "--json",
                                       "--since", "t2.NOTE").stdout)["timeline"]
        assert [e["id"] for e in summary] == ["t3", "t5", "t7", "e2"]

    def test_text_lines_carry_the_ids(self, script: Path) -> None:
        """Each line of the timeline starts with its entry's id."""
        run_id = walk(start(script), WALK[:2], lambda _: None).get("run", "")
        lines = skillrail("trace", run_id, "--since", "t1").stdout.splitlines()
        assert [line.split()[0] for line in lines[2:]] == ["t1.TOPIC", "t2", "t2.NOTE"]

    @pytest.mark.parametrize(("since", "said"), [
        ("t99", "has no entry 't99'"), ("x1", "'x1' is not an entry id"),
        ("e", "'e' is not an entry id")])
    def test_an_id_the_run_has_not_is_one_line(self, script: Path, since: str,
                                               said: str) -> None:
        run_id = start(script).get("run", "")
        proc = skillrail("trace", run_id, "--since", since)
        assert (proc.returncode, proc.stdout) == (2, "")
        assert proc.stderr.count("\n") == 1 and said in proc.stderr, proc.stderr
        assert "An entry id is e<N>" in proc.stderr
