"""skill-runner honours the execution settings a skill's SKILL.md gives (issue 20): simple mode
runs the skill's steps with no plan and no approval; max_iterations caps a run's attempts and a
run that uses them up ends as partial with its report; max_retries_per_tool sends a step to the
user after that many retries, each of which must name a new approach; context: fork hands the
plan to the named agent and model in a linked sub-run with half the budget; early_termination
ends the run once the plan's acceptance check passes; timeout_per_iteration bounds each check.
Every skill is a small prose skill written here, run as an agent runs it."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.ledger.store import Ledger

from .harness import decided, first_action, next_cmd_text, run_of
from .test_planner import Agent
from .test_skill_runner import RUNNER

BODY = """
# Notes

1. Collect the changes since the last tag.
2. Write them to NOTES.md.
"""
CHECK = "python3 ${SKILL_DIR}/scripts/_file_check.py NOTES.md"


def skill(player: Agent, name: str, **settings: str) -> Path:
    """A prose skill with these frontmatter settings, in the project."""
    folder = player.repo / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    keys = "".join(f"{k}: {v}\n" for k, v in settings.items())
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Writes notes. Use when "
                                     f"asked for notes.\n{keys}---\n{BODY}")
    return folder


def plan(steps: int = 2, **extra: object) -> dict[str, object]:
    """A plan of `steps` text tasks; the last writes NOTES.md, checked by the file check."""
    made = [{"id": f"part-{n}", "title": f"Part {n}", "text_task": f"Do part {n}.",
             "optimizer": "Briefly.", "evaluator": f"Part {n} is done."}
            for n in range(1, steps + 1)]
    made[-1]["verify"] = CHECK
    return {"directive": "NOTES.md lists the changes", "steps": made, **extra}


def approved(agent: Agent, folder: Path, the_plan: dict[str, object]) -> ET.Element:
    """Plan and approve (and allow the plan's checks outside the policy, when it has some,
    in the question of their own): the document the approval leads to."""
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={folder}"])
    assert doc.get("id") == "read"
    doc = agent.follow(doc, DIRECTIVE="notes")
    path = agent.repo / ".skill-runner" / "plan.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(the_plan))
    approval = agent.follow(doc, PLAN_FILE=str(path))
    assert approval.get("id") == "approve"
    doc = agent.follow(approval, "approve")
    return agent.follow(doc, "allow") if doc.get("id") == "allow" else doc


def started(agent: Agent, folder: Path, the_plan: dict[str, object]) -> ET.Element:
    """The plan's run, at its first step."""
    sealed = approved(agent, folder, the_plan)
    return agent.run(shlex.split(first_action(sealed).split("follow the steps it prints: ")[1]))


def fail_once(agent: Agent, doc: ET.Element, step: str, change: str) -> ET.Element:
    """One failed attempt of `step` (its evaluation fails), and the retry naming `change`."""
    assert doc.get("id") == step, doc.get("id")
    doc = agent.follow(doc, **{f"RESULT_{step.upper().replace('-', '_')}": "tried"})
    if doc.get("id") == f"{step}-eval":
        doc = agent.follow(doc, "fail", **{f"FINDINGS_{step.upper().replace('-', '_')}": "no"})
    assert doc.get("id") == f"{step}-retry", doc.get("id")
    return agent.follow(doc, **{f"CHANGE_{step.upper().replace('-', '_')}": change})


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return Agent(tmp_path)


def test_a_simple_skill_runs_its_steps_with_no_plan_and_no_approval(agent: Agent) -> None:
    folder = skill(agent, "notes", execution_mode="simple")
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={folder}"])
    assert doc.get("id") == "simple" and decided(doc) == [("mode", "simple")]
    command = first_action(doc).split("follow the steps it prints: ")[1]
    first = agent.run(shlex.split(command))
    assert first.get("title") == "Step 1 of 2: Collect the changes since the last tag."
    assert "Collect the changes since the last tag." in first_action(first)
    last = agent.follow(first, RESULT_1="two changes since v0.1.0")
    assert last.get("title") == "Step 2 of 2: Write them to NOTES.md."
    assert last.find("NEXT/complete") is not None
    assert last.findtext("memory/RESULT_1") is None  # just reported: not echoed
    again = agent.run([sys.executable, shlex.split(command)[1], "--run", (run_of(last) or ""),
                       "--resume"])  # a reprint shows every value the step reads
    assert again.findtext("memory/RESULT_1") == "two changes since v0.1.0"
    assert not (agent.repo / ".skill-runner").exists()  # no plan was asked for


def test_max_iterations_caps_the_run_and_ends_it_partial_with_its_report(agent: Agent) -> None:
    """max_iterations: 4 and a step that keeps failing: attempts 1 (part-1), 2, 3 and 4
    (part-2 and its retries), then no attempt is left: the run ends with what it met, and the
    ledger records it as partial."""
    folder = skill(agent, "notes", max_iterations="4", max_retries_per_tool="5")
    doc = started(agent, folder, plan())
    doc = agent.follow(agent.follow(doc, RESULT_PART_1="done"), "pass")
    for change in ("write it again", "write it with a heading"):
        doc = fail_once(agent, doc, "part-2", change)
        assert decided(doc)[-1] == ("next", "part-2")
    doc = fail_once(agent, doc, "part-2", "write it from the log")
    assert doc.get("id") == "feedback", doc.get("id")
    assert decided(doc)[-1] == ("next", "part-2")  # the fifth attempt: none was left
    question = doc.findtext("DO/ask_user/question", "")
    assert "1 of 2 plan steps met: part-1; not met: part-2 (tried; the run used its " \
           "attempts first)." in question
    done = agent.follow(doc, "none")
    assert "1 of 2 plan steps met" in first_action(done)
    with Ledger() as ledger:
        run = ledger.run(run_of(done) or "")
    assert run is not None and (run.status, run.result, run.state) == ("completed", "partial",
                                                                       "partial")


def test_max_retries_per_tool_sends_the_step_to_the_user_after_one_retry(agent: Agent) -> None:
    folder = skill(agent, "notes", max_retries_per_tool="1")
    doc = started(agent, folder, plan(1))
    doc = fail_once(agent, doc, "part-1", "write the file")
    assert doc.get("id") == "part-1" and decided(doc) == [("part-1-again", "go"),
                                                          ("next", "part-1")]
    doc = fail_once(agent, doc, "part-1", "write the file with a heading")
    assert doc.get("id") == "part-1-escalate"
    assert "failed 2 times" in doc.findtext("DO/ask_user/question", "")


def test_a_retry_must_name_an_approach_not_tried_yet(agent: Agent) -> None:
    folder = skill(agent, "notes")
    doc = fail_once(agent, started(agent, folder, plan(1)), "part-1", "write the file")
    doc = agent.follow(doc, RESULT_PART_1="tried")  # the check fails again: retry
    assert doc.get("id") == "part-1-retry"
    assert "- write the file" in first_action(doc)  # the approaches tried
    with Ledger() as ledger:
        before = ledger.run(run_of(doc) or "")
    argv = shlex.split(next_cmd_text(doc)) + ["--set",
                                                              "CHANGE_PART_1=Write the file!"]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=agent.repo, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr.count("\n")) == (2, "", 1)
    assert "repeats an approach this run already tried" in proc.stderr
    with Ledger() as ledger:
        assert ledger.run(run_of(doc) or "") == before


def test_a_forked_skill_hands_the_plan_to_its_agent_in_a_linked_sub_run(agent: Agent) -> None:
    folder = skill(agent, "notes", context="fork", agent="Explore", model="haiku",
                   max_iterations="8")
    fork = approved(agent, folder, plan())
    assert fork.get("id") == "fork" and decided(fork) == [("commands", "none"),
                                                          ("seal", "fork")]
    dispatch = fork.find("DO/dispatch")
    assert dispatch is not None
    assert (dispatch.get("agent"), dispatch.get("model")) == ("Explore", "haiku")
    prompt = dispatch.findtext("prompt", "")
    command = prompt.split("First run this command and follow the steps it prints, to the "
                           "end: ")[1].split("\n")[0]
    assert "run-plan.py --step 1 --plan=" in command and f"--parent {run_of(fork)}" in command
    sub = agent.run(shlex.split(command))
    assert sub.get("id") == "part-1"
    sealed = json.loads((agent.repo / ".skill-runner" / "plan.json").read_text())
    assert sealed["budget"] == 4  # half the skill's eight attempts
    with Ledger() as ledger:
        linked = ledger.run(run_of(sub) or "")
    assert linked is not None and linked.parent == run_of(fork)
    report = agent.follow(fork)
    assert f"skillrail trace {run_of(sub)}" in first_action(report)


def test_early_termination_ends_the_run_once_the_acceptance_check_passes(
        agent: Agent) -> None:
    folder = skill(agent, "notes", early_termination="true")
    (agent.repo / "NOTES.md").write_text("- a change\n")  # the goal is already met
    doc = started(agent, folder, plan(3, acceptance=CHECK))
    doc = agent.follow(agent.follow(doc, RESULT_PART_1="done"), "pass")
    assert doc.get("id") == "feedback" and decided(doc) == [("part-1-accept", "ok")]
    assert "the directive is met" in doc.findtext("DO/ask_user/question", "")
    done = agent.follow(doc, "none")
    with Ledger() as ledger:
        run = ledger.run(run_of(done) or "")
    assert run is not None and run.state == "completed"


def test_bad_settings_keep_the_run_from_starting(agent: Agent) -> None:
    folder = skill(agent, "notes", timeout_per_iteration="soon")
    proc = subprocess.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={folder}"],
                          capture_output=True, text=True, cwd=agent.repo, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr.count("\n")) == (2, "", 1)
    assert f"{folder / 'SKILL.md'}:4: timeout_per_iteration: 'soon' is not a duration" in \
        proc.stderr and "e.g. 30s, 5m, 1h" in proc.stderr


def test_timeout_per_iteration_bounds_each_check(agent: Agent,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """timeout_per_iteration: 1s stops a check that runs longer (an approved test runner on a
    slow test), under the gateway's own limit: the check fails, saying so."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    (agent.repo / "test_slow.py").write_text("import time\n\n\ndef test_slow():\n"
                                             "    time.sleep(5)\n")
    folder = skill(agent, "notes", timeout_per_iteration="1s")
    the_plan = plan(1)
    the_plan["steps"][0]["verify"] = "python -m pytest -q test_slow.py"  # type: ignore[index]
    doc = agent.follow(started(agent, folder, the_plan), RESULT_PART_1="ran it")
    assert doc.get("id") == "part-1-retry" and decided(doc) == [("part-1-verify", "fail")]
    said = "".join(i.text or "" for i in doc.iterfind("memory/*"))
    assert "stopped after the 1 s timeout" in said, said
