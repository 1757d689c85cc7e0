"""The ask_user gate in every shape of repository users have (repo_shapes.py): with skillrail's
hooks installed, an agent's answer before the user spoke is refused, by the hooks (PreToolUse on
the answering command) and by the step script; without hooks the gate is advisory and the
answer passes. `skillrail doctor` says which, and why, and what it says is what the gate does.
(In clones with an `origin` remote the gate used to be advisory whatever was installed: the run's
workspace, which names the repository, was read as a folder.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .hooks_support import SKILLRAIL, Agent, Session, bash, command, denial, env, next_cmd
from .repo_shapes import SHAPES, make_shape


@pytest.fixture(params=SHAPES)
def project(request: pytest.FixtureRequest, tmp_path: Path,
            monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_shape(request.param, tmp_path, monkeypatch)


def gate_line(project: Path) -> str:
    """What `skillrail doctor` says of the ask_user gate, run in the project."""
    done = subprocess.run([*SKILLRAIL, "doctor", "--json"], cwd=project, env=env(),
                          capture_output=True, text=True, timeout=120)
    checks = json.loads(done.stdout)["checks"]
    return next(c["what"] for c in checks if c["what"].startswith("ask_user gate:"))


def test_with_hooks_the_gate_binds_and_doctor_says_so(project: Path) -> None:
    session = Session(project)
    assert gate_line(project).startswith("ask_user gate: binding for runs an agent starts here")
    ask = session.follow(session.start(), FOUND="x")
    answer = next_cmd(ask, "approve")
    reason = denial(bash(project, answer, session_id=session.session))
    assert reason is not None and "no user turn was recorded since step 'ask'" in reason
    proc = session.call(command(ask, "approve"))
    assert proc.returncode == 3 and "no user turn was recorded since step 'ask'" in proc.stderr
    session.user_says()
    assert denial(bash(project, answer, session_id=session.session)) is None
    assert session.call(command(ask, "approve")).returncode == 0


def test_without_hooks_the_gate_is_advisory_and_doctor_says_so(project: Path) -> None:
    agent = Agent(project)
    assert gate_line(project).startswith("ask_user gate: advisory for runs an agent starts "
                                         "here: no Claude Code settings file installs")
    ask = agent.follow(agent.start(), FOUND="x")
    assert agent.call(command(ask, "approve")).returncode == 0
