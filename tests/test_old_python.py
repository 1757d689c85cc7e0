"""A teammate's `python3` older than the framework needs (macOS's 3.9, Ubuntu 22.04's 3.10): a
step says so in one line and exits 1, never a traceback; the hook says so to the user (Claude
Code's systemMessage) and lets the action through, never silently. Each runs as the client or
the agent runs it, under an interpreter made to report an old version before anything else
runs (this machine has no old Python)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import REPO

#: Runs a script as `python3 SCRIPT ARGS` would, with sys.version_info saying 3.9.6.
OLD = ("import runpy, sys; sys.version_info = (3, 9, 6, 'final', 0); sys.argv = sys.argv[1:]; "
       "runpy.run_path(sys.argv[0], run_name='__main__')")
SCRIPT = REPO / ".claude" / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"
HOOK = REPO / ".claude" / "skills" / "lib" / "workflow" / "hooks" / "entry.py"


def old_python(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", OLD, *argv], capture_output=True, text=True,
                          input=stdin, timeout=60)


@pytest.mark.parametrize("args", [["--step", "1"], ["--help"], ["--run", "pa-000000",
                                                                 "--resume"]])
def test_a_step_under_an_old_python_says_what_it_needs_in_one_line(args: list[str]) -> None:
    done = old_python(str(SCRIPT), *args)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"error: skillrail's skills need Python 3.11 or newer, and {sys.executable} is Python "
        "3.9.6. Run the command again with a newer interpreter in place of python3 (e.g. "
        "python3.11), or install one\n")


@pytest.mark.parametrize("event", ["PreToolUse", "UserPromptSubmit", "Stop"])
def test_a_hook_under_an_old_python_tells_the_user_and_lets_the_action_through(
        event: str) -> None:
    payload = json.dumps({"hook_event_name": event, "session_id": "s", "tool_name": "Bash",
                          "tool_input": {"command": "ls"}})
    done = old_python(str(HOOK), event, stdin=payload)
    assert done.returncode == 0 and done.stderr == ""
    said = json.loads(done.stdout)
    assert list(said) == ["systemMessage"]
    assert said["systemMessage"].startswith(
        f"skillrail's hook did nothing: it needs Python 3.11 or newer, and {sys.executable} is "
        "Python 3.9.6, so this action was not checked against the running skill.")
