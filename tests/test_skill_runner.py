"""skill-runner: an instructions-only SKILL.md (tests/fixtures/skills/release-notes) planned,
approved, run as a generated workflow and learned from; bad plans refused with the run
unchanged; a plan changed after approval refused; simulation covers every edge."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.ledger.store import Ledger
from skills.lib.workflow.step.discovery import discover_workflows
from skills.lib.workflow.tools.simulate import simulate

from .conftest import REPO, SKILLS_ROOT
from .harness import (
    cmd_text,
    decided,
    first_action,
    in_process,
    next_cmd_text,
    offered,
    outcome_of,
    run_of,
)
from .test_planner import Agent

FIXTURE = REPO / "tests" / "fixtures" / "skills" / "release-notes"
RUNNER = SKILLS_ROOT / "skill-runner" / "scripts" / "skill-runner.py"
CHECK = "python3 ${SKILL_DIR}/scripts/_file_check.py RELEASE_NOTES.md --contains 2.4.0"


def good_plan() -> dict[str, object]:
    return {"directive": "RELEASE_NOTES.md for 2.4.0, grouped into Added, Fixed and Changed",
            "max_retries": 2, "steps": [
                {"id": "collect", "title": "Collect the merged changes",
                 "tool_call": "Bash: git log v2.3.0..HEAD --merges --format=%s",
                 "optimizer": "List every merged pull request with its number.",
                 "evaluator": "Every merge since v2.3.0 is listed once; report CHANGES.",
                 "key_outputs": ["CHANGES"]},
                {"id": "write", "title": "Write the notes",
                 "text_task": "Sort CHANGES into the three groups and write RELEASE_NOTES.md.",
                 "optimizer": "One line per change, ending with its pull-request number.",
                 "evaluator": "Every change of CHANGES is in exactly one group.",
                 "key_outputs": ["NOTES_FILE"], "verify": CHECK}]}


def refused(argv: list[str], cwd: Path) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=60)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    return proc.stderr


def command(doc: ET.Element, outcome: str | None = None, **values: str) -> list[str]:
    found = [i for i in offered(doc) if outcome in (None, outcome_of(i))]
    argv = shlex.split(cmd_text(found[0]))
    return argv + [f"--set={k}={v}" for k, v in values.items()]


def long_plan(steps: int) -> dict[str, object]:
    """A plan of `steps` text tasks, 'part-1' to 'part-N', none with a check."""
    return {"directive": "RELEASE_NOTES.md for 2.4.0", "steps": [
        {"id": f"part-{n}", "title": f"Write part {n}", "text_task": f"Write part {n}.",
         "optimizer": "Keep it short.", "evaluator": f"Part {n} is written."}
        for n in range(1, steps + 1)]}


def plan_to_approval(agent: Agent, plan: dict[str, object] | None = None) -> ET.Element:
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}",
                     "--args=2.4.0"])
    doc = agent.follow(doc, DIRECTIVE="RELEASE_NOTES.md for 2.4.0")
    (agent.repo / ".skill-runner").mkdir(exist_ok=True)
    (agent.repo / ".skill-runner" / "plan.json").write_text(json.dumps(plan or good_plan()))
    return agent.follow(doc, PLAN_FILE=str(agent.repo / ".skill-runner" / "plan.json"))


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return Agent(tmp_path)


def test_the_planning_step_shows_the_skill_made_concrete(agent: Agent) -> None:
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}",
                     "--args=2.4.0"])
    shown = first_action(doc)
    assert "Write release notes for version 2.4.0." in shown  # $ARGUMENTS filled in
    assert "Read, Write, Bash(git log:*), Bash(git tag:*)" in shown
    assert "No earlier run of this skill was recorded." in shown


@pytest.mark.parametrize("change, expected", [
    (lambda p: p["steps"][0].pop("evaluator"),
     "step 1 ('collect'), field 'evaluator': Field required"),
    (lambda p: p["steps"][1].update(tool_call="Bash: ls"),
     "step 2 ('write'): give exactly one action: tool_call"),
    (lambda p: p["steps"][1].update(verify="mdcheck RELEASE_NOTES.md"),
     "step 2 ('write'), field 'verify': refused by the gateway's rule 'not-installed': "
     "'mdcheck' is not installed"),
    (lambda p: p["steps"][1].update(verify="python -m pytest ${CHANGES}"),
     "a check the user must approve is approved word for word, so it may use no run values"),
    (lambda p: p["steps"].extend(dict(p["steps"][0], id=f"more-{n}", key_outputs=[])
                                 for n in range(11)),
     "the plan has 13 steps, more than the limit of 12"),
])
def test_a_bad_plan_is_refused_with_what_to_fix_and_the_run_unchanged(
        agent: Agent, change: object, expected: str) -> None:
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}"])
    doc = agent.follow(doc, DIRECTIVE="notes")
    run = (run_of(doc) or "")
    with Ledger() as ledger:
        before = ledger.run(run)
    plan = good_plan()
    change(plan)  # type: ignore[operator]
    path = agent.repo / ".skill-runner" / "plan.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(plan))
    error = refused(command(doc, PLAN_FILE=str(path)), agent.repo)
    assert expected in error and "the run has not moved" in error
    with Ledger() as ledger:
        assert ledger.run(run) == before


def test_a_plan_runs_learns_and_is_remembered_next_time(agent: Agent) -> None:
    approval = plan_to_approval(agent)
    question = approval.findtext("DO/ask_user/question", "")
    assert "1. Collect the merged changes (tool call: Bash: git log" in question
    assert "The run goes through these 2 plan steps in order, with at most 15 attempts in " \
           "all (a step's first try is one), so at most 4 retries in all; a step is retried " \
           "up to 2 times before it is brought to you" in question
    sealed = agent.follow(approval, "approve")
    start = shlex.split(first_action(sealed).split("follow the steps it prints: ")[1])
    doc = agent.run(start)
    assert doc.get("id") == "collect"
    assert "Directive of the whole run: RELEASE_NOTES.md for 2.4.0" in first_action(doc)
    doc = agent.follow(agent.follow(doc, RESULT_COLLECT="3 merges"), "pass",
                       CHANGES="#12 add --json; #14 fix crash")
    assert doc.get("id") == "write"
    # Attempt 1: no file, the check fails; attempt 2: the file lacks the version; attempt 3:
    # the check passes but the evaluation fails. Then the user is asked.
    notes = agent.repo / "RELEASE_NOTES.md"
    for attempt in range(3):
        if attempt == 1:
            notes.write_text("# Release\n- #12 add --json\n")
        if attempt == 2:
            notes.write_text("# 2.4.0\n- #12 add --json\n")
        doc = agent.follow(doc, RESULT_WRITE="wrote RELEASE_NOTES.md")
        # The script runs the check itself; the run goes on by its verdict, at no turn.
        assert decided(doc) == [("write-verify", "ok" if attempt == 2 else "fail")]
        if attempt == 2:
            doc = agent.follow(doc, "fail", FINDINGS_WRITE="#14 is missing from Fixed")
        assert doc.get("id") == "write-retry"
        doc = agent.follow(doc, CHANGE_WRITE=["write the file", "add the version heading",
                                              "include every change"][attempt])
    assert doc.get("id") == "write-escalate"
    doc = agent.follow(doc, "skip")
    assert doc.get("id") == "feedback"
    done = agent.follow(doc, "feedback", FEEDBACK="Group by PR label, not title")
    assert done.get("id") == "learn" and done.find("NEXT/complete") is not None
    history = subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "history",
                              "release-notes"], capture_output=True, text=True,
                             env={**__import__("os").environ,
                                  "PYTHONPATH": str(REPO / ".claude")}, timeout=60)
    assert history.returncode == 0, history.stderr
    lines = history.stdout.splitlines()
    assert len(lines) == 8  # feedback, 3 failures, 3 failed approaches, 1 success
    assert "feedback" in lines[0] and "Group by PR label, not title" in lines[0]
    assert any("passed in order: collect (CHANGES=#12 add --json; #14 fix crash); "
               "skipped: write" in line for line in lines)
    assert any("write: #14 is missing from Fixed" in line for line in lines)
    assert any("write: the approach 'add the version heading' did not pass" in line
               for line in lines)
    assert any("write check: FAIL: RELEASE_NOTES.md does not contain '2.4.0'" in line
               for line in lines)
    # The next planning of the same skill starts from what this run taught.
    again = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}"])
    shown = first_action(again)
    assert "What earlier runs of this skill taught" in shown and "Group by PR label" in shown


def test_history_exports_a_readable_section(agent: Agent, tmp_path: Path) -> None:
    with Ledger() as ledger, ledger.transaction():
        from skills.lib.workflow.ledger.learned import record

        ledger.db.execute("INSERT INTO runs (id, skill, workflow, script, fingerprint, "
                          "workspace, status, step, hops, started, updated) VALUES ('sr-1',"
                          "'skill-runner','skill-runner-plan','x','f','/w','completed','learn',"
                          "1,0,0)")
        record(ledger, "release-notes", "sr-1", "failure", "write: a change was missing")
        record(ledger, "release-notes", "sr-1", "feedback", "Group by label")
    out = tmp_path / "lessons.md"
    proc = subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "history",
                           "release-notes", "--export", str(out)], capture_output=True,
                          text=True, env={**__import__("os").environ,
                                          "PYTHONPATH": str(REPO / ".claude")}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("## What runs of release-notes taught")
    assert "### What failed" in text and "### User feedback" in text


def test_the_approval_bounds_the_run_in_plan_steps_and_tries(agent: Agent) -> None:
    """A plan of 10 steps: the question says 10 plan steps, each tried up to 3 times (the
    skill's default), and no count of printed documents: neither the static bound over the
    retry loops (hundreds) nor a step count of the generated workflow."""
    question = plan_to_approval(agent, long_plan(10)).findtext("DO/ask_user/question", "")
    assert question.splitlines()[-1] == (
        "The run goes through these 10 plan steps in order, with at most 15 attempts in all "
        "(a step's first try is one), so at most 5 retries in all; a step is retried up to 3 "
        "times before it is brought to you: try again with your guidance, skip it, or stop the "
        "run. A run that uses up its attempts ends with what it met and what not.")
    numbers = {int(n) for line in question.splitlines()[2:] for n in re.findall(r"\d+", line)}
    assert numbers <= set(range(1, 16)), numbers  # steps, tries, attempts: no document count


def test_a_plan_step_is_counted_once_in_plan_steps(agent: Agent) -> None:
    """At the third of four plan steps every printed text counts 'Plan step 3 of 4', its
    evaluation and a reprint in text form too; the hooks' and titles' old 'Step n of total'
    is gone (the document gives no step number since protocol 2.0)."""
    sealed = agent.follow(plan_to_approval(agent, long_plan(4)), "approve")
    doc = agent.run(shlex.split(first_action(sealed).split("follow the steps it prints: ")[1]))
    for n in (1, 2):
        doc = agent.follow(agent.follow(doc, **{f"RESULT_PART_{n}": "done"}), "pass")
    assert (doc.get("id"), doc.get("n")) == ("part-3", None)
    evaluate = agent.follow(doc, RESULT_PART_3="done")
    assert doc.get("title") == "Plan step 3 of 4: Write part 3"
    assert evaluate.get("title") == "Plan step 3 of 4: Write part 3 (evaluate)"
    text = subprocess.run([*shlex.split(next_cmd_text(evaluate))[:2],
                           "--run", (run_of(evaluate) or ""), "--resume", "--format", "text"],
                          capture_output=True, text=True, cwd=agent.repo, timeout=60).stdout
    for printed in (agent.printed[-2], agent.printed[-1], text):
        assert re.findall(r"(?i)\bstep \d+ of \d+", printed) == ["step 3 of 4"], printed


def test_a_plan_changed_after_approval_is_refused(agent: Agent) -> None:
    sealed = agent.follow(plan_to_approval(agent), "approve")
    start = shlex.split(first_action(sealed).split("follow the steps it prints: ")[1])
    path = agent.repo / ".skill-runner" / "plan.json"
    plan = json.loads(path.read_text())
    plan["steps"][0]["optimizer"] = "Also push the tag."
    path.write_text(json.dumps(plan))
    error = refused(start, agent.repo)
    assert "changed after it was approved" in error and "Traceback" not in error


def test_simulation_walks_the_planning_of_the_fixture_skill() -> None:
    """Over the fixture skill, the planning walks without a failure. (Over the example skills,
    one per execution mode, tests/test_skills.py walks every edge of the planning, the plan's
    run and the simple run.)"""
    workflows = {w.name: w for w in discover_workflows(SKILLS_ROOT).workflows}
    fixture = simulate(workflows["skill-runner"], params={"skill": str(FIXTURE)}, run=in_process)
    assert fixture.failures == (), fixture


def test_a_verify_command_may_not_use_its_own_key_outputs(agent: Agent) -> None:
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={FIXTURE}"])
    doc = agent.follow(doc, DIRECTIVE="notes")
    plan = good_plan()
    plan["steps"][0]["verify"] = "git rev-parse --verify ${CHANGES}"  # type: ignore[index]
    plan["steps"][1]["verify"] = "python3 ${SKILL_DIR}/scripts/_file_check.py ${CHANGES}"  # type: ignore[index]
    path = agent.repo / ".skill-runner" / "plan.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(plan))
    error = refused(command(doc, PLAN_FILE=str(path)), agent.repo)
    assert "step 1 ('collect'), field 'verify': refused by the gateway's rule 'unknown-variable'" \
        in error and "own key outputs are set only after its check" in error
    assert "step 2 ('write')" not in error  # an earlier step's key output is fine


def long_skill(root: Path) -> Path:
    """A skill whose SKILL.md is far longer than a step shows: an introduction, then ten
    sections of about 900 characters, one holding a table, one a code block with a `#` line."""
    folder = root / "long-skill"
    folder.mkdir()
    parts = ["---\nname: long-skill\ndescription: A long skill.\n---\n# Long skill\n\n"
             "Follow the sections in order.\n\n"]
    for n in range(1, 11):
        body = f"Do part {n} carefully. " * 40
        if n == 3:
            body += "\n\n| column | value |\n|---|---|\n" + "| a | b |\n" * 10
        if n == 4:
            body += "\n\n```sh\n# not a heading\necho part 4\n```\n"
        parts.append(f"## Part {n}\n\n{body}\n\n")
    (folder / "SKILL.md").write_text("".join(parts))
    return folder


def test_a_long_skill_md_is_shown_by_whole_sections(agent: Agent, tmp_path: Path) -> None:
    """Never cut mid-element: whole sections while they fit, then each remaining section's
    heading with the lines of the file that hold it."""
    folder = long_skill(tmp_path)
    doc = agent.run([sys.executable, str(RUNNER), "--step", "1", f"--skill={folder}"])
    shown = first_action(doc)
    body = shown.split("----- SKILL.md -----", 1)[1].split("----- end of SKILL.md -----")[0]
    assert len(body) < 7_000
    kept = [n for n in range(1, 11) if f"## Part {n}\n" in body]
    assert kept == list(range(1, len(kept) + 1)) and 3 <= len(kept) < 10
    for n in kept:  # each section shown is whole: its last sentence, table and code included
        assert body.count(f"Do part {n} carefully.") == 40
    assert "| a | b |\n" * 10 in body and "# not a heading\necho part 4\n```" in body
    lines = (folder / "SKILL.md").read_text().splitlines()
    for n in range(len(kept) + 1, 11):
        listed = next(line for line in body.splitlines() if line.startswith(f"- ## Part {n} ("))
        first, last = map(int, listed.split("(lines ")[1].rstrip(")").split("-"))
        assert lines[first - 1] == f"## Part {n}" and (
            last == len(lines) or lines[last].startswith("## Part"))
    assert f"read each section below in {folder / 'SKILL.md'}" in body
