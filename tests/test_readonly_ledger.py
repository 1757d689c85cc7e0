"""A ledger that exists but cannot be written (issue 29): a client's sandbox, Codex's among them,
lets commands write only in the workspace, so the user's state folder is a read-only mount. A
new run then goes stateless with a one-line warning, the ledger is left as it was, and `doctor`
says what it sees. The read-only mount is the subject, so each runs in a process, under
bubblewrap (what runs around it, in-process)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import REPO
from .gateway_support import HAS_BWRAP
from .harness import next_cmd_text, shell
from .repo_shapes import git

pytestmark = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap is not installed")

SCRIPT = REPO / ".claude" / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"


def read_only(state: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`argv` with the state folder mounted read-only, as a client's sandbox mounts it."""
    env = {**os.environ, "SKILLRAIL_HOME": str(state), "PYTHONPATH": str(REPO / ".claude")}
    return subprocess.run(["bwrap", "--bind", "/", "/", "--ro-bind", str(state), str(state),
                           "--dev", "/dev", "--proc", "/proc", "--", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def runs(state: Path) -> int:
    with sqlite3.connect(state / "runs.sqlite3") as db:
        return int(db.execute("SELECT count(*) FROM runs").fetchone()[0])


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    root, state = tmp_path / "app", tmp_path / "state"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", "https://example.com/app.git")
    done = shell([sys.executable, str(SCRIPT), "--step", "1"], cwd=root,
                 env={**os.environ, "SKILLRAIL_HOME": str(state)})
    assert done.returncode == 0, done.stderr  # the ledger exists, with one run
    return root, state


def test_a_new_run_on_a_read_only_ledger_goes_stateless_and_says_so(
        project: tuple[Path, Path]) -> None:
    root, state = project
    done = read_only(state, sys.executable, str(SCRIPT), "--step", "1", cwd=root)
    assert done.returncode == 0, done.stderr
    step = ET.fromstring(done.stdout)
    assert step.get("id") == "frame" and step.get("run") is None  # stateless
    assert "--from frame" in next_cmd_text(step)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "warning: the run ledger cannot be written")
    assert done.stderr.endswith("Running stateless: state travels in the printed commands.\n")
    assert runs(state) == 1  # the ledger is as it was


def test_doctor_says_the_ledger_is_read_only_with_the_fix(project: tuple[Path, Path]) -> None:
    root, state = project
    done = read_only(state, sys.executable, "-m", "skills.lib.workflow.commands", "doctor",
                     cwd=root)
    assert done.returncode == 1
    assert (f"FAIL  run ledger: SQLite {state / 'runs.sqlite3'}, this machine's, read-only "
            "here: a new run goes stateless") in done.stdout
    assert f"fix: Make {state} writable" in done.stdout
    writable = shell(["skillrail", "doctor"], cwd=root,
                     env={**os.environ, "SKILLRAIL_HOME": str(state)})
    assert "read-only here" not in writable.stdout and runs(state) == 1
