"""Checks the policy does not allow, approved by the user for one run (issue 19): a test-first
plan whose checks run the project's test runner. The plan's approval says only that such checks
follow; a question of their own lists each command word for word (issue 28: one thing at a
time); the seal records them; the run's checks then run them, through the gateway, and the exit
status decides the red and the green step. Nothing else gains the command."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .harness import decided, first_action, offered, outcome_of, run_of
from .test_planner import Agent
from .test_skill_runner import FIXTURE, RUNNER

PYTEST = "python -m pytest -q"


def tdd_plan() -> dict[str, object]:
    return {"directive": "greet(name) returns 'Hello, <name>', test first", "steps": [
        {"id": "red", "title": "Write the failing test",
         "text_task": "Write test_greet.py: greet('a') == 'Hello, a'.",
         "optimizer": "One assertion.", "evaluator": "The test fails for want of greet.",
         "verify": PYTEST, "expect_failure": True},
        {"id": "green", "title": "Make it pass", "text_task": "Write greet.py.",
         "optimizer": "The smallest code.", "evaluator": "The test passes.",
         "verify": PYTEST}]}


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Agent:
    # `python` is this interpreter, with pytest installed: as in a project's own environment.
    monkeypatch.setenv("PATH", f"{os.path.dirname(sys.executable)}:/usr/bin:/bin")
    return Agent(tmp_path)


def approval_of(agent: Agent, plan: dict[str, object] | None = None) -> ET.Element:
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}"])
    doc = agent.follow(doc, DIRECTIVE="greet(name), test first")
    (agent.repo / ".skill-runner").mkdir(exist_ok=True)
    (agent.repo / ".skill-runner" / "plan.json").write_text(json.dumps(plan or tdd_plan()))
    return agent.follow(doc, PLAN_FILE=str(agent.repo / ".skill-runner" / "plan.json"))


def allowed(agent: Agent, approval: ET.Element) -> ET.Element:
    """The plan approved, then its commands outside the policy allowed: the seal's step."""
    return agent.follow(agent.follow(approval, "approve"), "allow")


def test_red_and_green_are_decided_by_the_approved_test_runner(agent: Agent) -> None:
    approval = approval_of(agent)
    question = approval.findtext("DO/ask_user/question", "")
    assert f"then `{PYTEST}` must fail (its test is red)" in question
    assert ("Some of its checks are outside the project's command policy: the next question "
            "asks about them, on their own.") in question
    assert [outcome_of(i) for i in offered(approval)] == [
        "approve", "revise", "abort"]
    ask = agent.follow(approval, "approve")
    assert (ask.get("id"), decided(ask)) == ("allow", [("commands", "ask")])
    assert ask.findtext("DO/ask_user/question", "").startswith(
        "The approved plan also runs commands the project's command policy does not allow: "
        f"`{PYTEST}`. Let this run, and no other, run exactly these")
    # The project's policy names no tests here: no hint to a ${PROJECT_TESTS} it cannot use.
    assert "${PROJECT_TESTS}" not in ask.findtext("DO/ask_user/question", "")
    sealed = agent.follow(ask, "allow")
    plan = json.loads((agent.repo / ".skill-runner" / "plan.json").read_text())
    assert plan["approved_commands"] == [PYTEST]
    start = shlex.split(first_action(sealed).split("follow the steps it prints: ")[1])
    doc = agent.run(start)
    assert doc.get("id") == "red"
    (agent.repo / "test_greet.py").write_text(
        "from greet import greet\n\n\ndef test_greet():\n    assert greet('a') == 'Hello, a'\n")
    doc = agent.follow(doc, RESULT_RED="wrote test_greet.py")
    assert decided(doc) == [("red-verify", "fail")] and doc.get("id") == "red-eval"
    said = "".join(i.text or "" for i in doc.iterfind("memory/*"))
    assert "ModuleNotFoundError: No module named 'greet'" in said, said  # pytest ran and failed
    doc = agent.follow(doc, "pass")
    assert doc.get("id") == "green"
    doc = agent.follow(doc, RESULT_GREEN="nothing yet")  # the test still fails: green fails
    assert decided(doc) == [("green-verify", "fail")] and doc.get("id") == "green-retry"
    doc = agent.follow(doc, CHANGE_GREEN="write greet.py")
    (agent.repo / "greet.py").write_text("def greet(name):\n    return f'Hello, {name}'\n")
    doc = agent.follow(doc, RESULT_GREEN="wrote greet.py")
    assert decided(doc) == [("green-verify", "ok")] and doc.get("id") == "green-eval"


def test_the_approval_is_the_plans_alone(agent: Agent, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the user approved the command for a plan's run (the ledger and the sealed plan in
    the workspace say so), the run's checks run it; the same command from a skill's own step
    in that workspace, even in the process that just ran it approved, is refused by the rule
    that refuses it with no approval at all."""
    from skills.lib.workflow.guard.gateway import attempt
    from skills.lib.workflow.step.discovery import SKILLS_DIR

    allowed(agent, approval_of(agent))
    assert json.loads((agent.repo / ".skill-runner" / "plan.json").read_text())[
        "approved_commands"] == [PYTEST]
    monkeypatch.chdir(agent.repo)
    runner, other = (os.path.join(SKILLS_DIR, name) for name in ("skill-runner", "planner"))
    ran = attempt(PYTEST, runner, approved=[PYTEST])  # as the approved run's check runs it
    assert (ran.status, ran.exit_code) == ("failed", 5), ran.head  # pytest: no tests here
    for skill in (runner, other):
        done = attempt(PYTEST, skill)
        assert done.status == "refused" and done.exit_code is None, done.head
        assert "refused by the gateway's rule 'interpreter-option'" in done.head, done.head


def test_a_plan_that_grants_itself_a_command_is_refused(agent: Agent) -> None:
    """An agent that adds a command to the sealed plan, even resealing it, gains nothing: the
    approving run's ledger holds what the user approved."""
    from skills.lib.runner.sealed import seal_of

    sealed = allowed(agent, approval_of(agent))
    start = shlex.split(first_action(sealed).split("follow the steps it prints: ")[1])
    path = agent.repo / ".skill-runner" / "plan.json"
    plan = json.loads(path.read_text())
    plan["approved_commands"].append("git push")
    plan["sealed"] = seal_of(plan)
    path.write_text(json.dumps(plan))
    proc = subprocess.run(start, capture_output=True, text=True, cwd=agent.repo, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "names commands beyond the policy that no run in the ledger approved" in proc.stderr


def test_allowing_commands_is_never_approved_in_advance(agent: Agent) -> None:
    """The plan's approval may be given in advance; allowing a command the policy refuses may
    not: the user's terminal is told it is always asked."""
    from .harness import shell

    run = (run_of(approval_of(agent)) or "")
    done = shell(["skillrail", "approve", run, "allow"], cwd=agent.repo)
    assert done.returncode == 2 and "always asked" in done.stderr, done.stderr
    done = shell(["skillrail", "approve", run, "plan"], cwd=agent.repo)
    assert done.returncode == 0, done.stderr
