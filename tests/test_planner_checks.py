"""The planner's check (issue 19): a plan may name the command that shows the change works,
even one the project's policy does not allow (the test runner). A question of its own, after
the plan's approval (issue 28), asks to allow it; the allowance is kept in the planning run's
ledger; the executor runs it itself, through the gateway, and its exit status decides: a
failing check sends the agent to fix, a passing one lets the review begin. A plan file that
grants itself the command does not. The project's own tests (`${PROJECT_TESTS}`) need no
allowance at all."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from .harness import decided
from .test_planner import SCRIPTS, Agent, plan_to_approval

PYTEST = "python -m pytest -q"


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Agent:
    monkeypatch.setenv("PATH", f"{os.path.dirname(sys.executable)}:/usr/bin:/bin")
    repo = tmp_path / "sample"
    repo.mkdir()
    (repo / "greet.py").write_text("")
    (repo / "test_greet.py").write_text(
        "from greet import greet\n\n\ndef test_greet():\n    assert greet('a') == 'Hello, a'\n")
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return Agent(repo)


def executed_to_the_check(agent: Agent) -> object:
    doc = agent.run([sys.executable, str(SCRIPTS / "executor.py"), "--step", "1"])
    implement = agent.follow(agent.follow(doc, BASE="abc123"))
    (agent.repo / ".planner" / "progress").mkdir()
    (agent.repo / ".planner" / "progress" / "M1.done").write_text("")
    return agent.follow(implement, FAILURES="none")


def test_the_approved_test_runner_decides_after_implementation(agent: Agent) -> None:
    approval = plan_to_approval(agent, check=PYTEST)
    question = approval.findtext("DO/ask_user/question", "")
    assert question.endswith("Its check is a command outside the project's command policy: "
                             "the next question asks about it, on its own.")
    ask = agent.follow(approval, "approve")  # the command is a question of its own
    assert (ask.get("id"), decided(ask)) == ("allow-check", [("check", "ask")])
    assert ask.findtext("DO/ask_user/question", "").startswith(
        f"The plan's check is a command the project's command policy does not allow: "
        f"`{PYTEST}`. Let the executor run exactly it, for this plan alone")
    agent.follow(ask, "allow")
    plan = json.loads((agent.repo / ".planner" / "plan.json").read_text())
    assert plan["approved_commands"] == [PYTEST] and plan["approved_by"]
    fix = executed_to_the_check(agent)
    assert decided(fix)[-2:] == [("has-check", "run"), ("run-check", "fail")]
    assert fix.get("id") == "fix-check"
    assert "assert '' == 'Hello, a'" in fix.findtext("memory/VERIFY_OUTPUT", "") \
        or "greet" in fix.findtext("memory/VERIFY_OUTPUT", "")
    (agent.repo / "greet.py").write_text("def greet(name):\n    return f'Hello, {name}'\n")
    doc = agent.follow(fix)
    assert decided(doc) == [("run-check", "ok")] and doc.get("id") == "verify"


def test_a_plan_that_grants_itself_the_command_gains_nothing(agent: Agent) -> None:
    agent.follow(agent.follow(plan_to_approval(agent, check=PYTEST), "approve"), "allow")
    path = agent.repo / ".planner" / "plan.json"
    plan = json.loads(path.read_text())
    plan["approved_by"] = ""
    path.write_text(json.dumps(plan))
    fix = executed_to_the_check(agent)
    assert fix.get("id") == "fix-check" and decided(fix)[-1] == ("run-check", "fail")
    said = fix.findtext("memory/VERIFY_OUTPUT", "")
    assert "not run: refused by the gateway's rule 'interpreter-option'" in said, said


def test_the_projects_tests_as_the_check_need_no_allowance_and_decide(agent: Agent) -> None:
    """With the policy's `tests:` (here this interpreter, which has pytest), a plan whose
    check is ${PROJECT_TESTS} is sealed straight after its approval, and the executor's check
    runs the project's tests: red before the fix, green after."""
    (agent.repo / ".claude").mkdir(exist_ok=True)
    (agent.repo / ".claude" / "skillrail.yaml").write_text(
        f"version: 2\ntests: {{command: {sys.executable} -m pytest -q}}\n")
    approval = plan_to_approval(agent, check="${PROJECT_TESTS}")
    assert "outside the project's command policy" not in approval.findtext(
        "DO/ask_user/question", "")
    sealed = agent.follow(approval, "approve")
    assert (sealed.get("id"), decided(sealed)) == ("seal", [("check", "none")])
    plan = json.loads((agent.repo / ".planner" / "plan.json").read_text())
    assert plan["approved_commands"] == []
    fix = executed_to_the_check(agent)
    assert decided(fix)[-2:] == [("has-check", "run"), ("run-check", "fail")]
    (agent.repo / "greet.py").write_text("def greet(name):\n    return f'Hello, {name}'\n")
    assert decided(agent.follow(fix)) == [("run-check", "ok")]
