"""The refactor skill played through as an agent would (real subprocesses, only the printed
commands): the mode branch and the dimensions each mode explores, one explorer per dimension,
triage, the plan and its critique loop, and the hand-off into the planner."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.protocol.reading import lines

from . import harness
from .conftest import REPO, SKILLS_ROOT
from .harness import (
    cmd_text,
    first_action,
    flag,
    listed,
    next_cmd_text,
    offered,
    outcome_of,
    subagent_cmd,
)
from .test_planner import Agent

SCRIPT = SKILLS_ROOT / "refactor" / "scripts" / "refactor.py"
CONVENTION_SET = sorted(p.name[len("code-quality-"):-3]
                        for p in (REPO / "conventions").glob("code-quality-*.md"))


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return Agent(tmp_path)


def start(agent: Agent, scope: str = "in: jobs/", checks: str = "pytest tests/jobs -q"
          ) -> ET.Element:
    """From the entry step to the mode choice, with the scope and the checks reported."""
    doc = agent.run([sys.executable, str(SCRIPT), "--step", "1", "--scope", "jobs/"])
    assert "The scope: jobs/." in first_action(doc)
    return agent.follow(doc, SCOPE=scope, CHECKS=checks)


def choose(agent: Agent, doc: ET.Element, mode: str) -> ET.Element:
    """The mode step's outcome, with the MODE its command asks for."""
    return agent.follow(doc, mode, MODE=mode)


def to_critique(agent: Agent, doc: ET.Element) -> ET.Element:
    """From an explore step through triage and the plan to the critique."""
    doc = agent.follow(doc, RAW="repetition: SHOULD | S | jobs/mail.py:18, jobs/sync.py:90")
    doc = agent.follow(doc, FINDINGS="R1 | SHOULD | S | priority 6 | repetition | "
                       "jobs/mail.py:18, jobs/sync.py:90", SET_ASIDE="none")
    return agent.follow(doc)


def refused(agent: Agent, doc: ET.Element, **values: str) -> str:
    """Run the step's one command with `values` that its checks refuse: the error line."""
    argv = shlex.split(next_cmd_text(doc))
    for key, value in values.items():
        argv += ["--set", f"{key}={value}"]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=agent.repo, timeout=60)
    assert proc.returncode != 0 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    return proc.stderr


def expected(doc: ET.Element) -> str:
    """The `Expected output:` of a step's `<DO>`."""
    return next((x.text for x in lines(doc.find("DO")) if x.kind == "expected"), "")


def dimensions_dispatched(doc: ET.Element) -> list[str]:
    """The dimension each explorer's prompt names, in dispatch order."""
    items = [p.text or "" for p in doc.iterfind("DO/dispatch/prompt")]
    return [re.search(r"Your item: ([\w-]+)\n", p).group(1)  # type: ignore[union-attr]
            for p in items]


def test_code_mode_explores_plans_revises_once_and_hands_off_to_the_planner(
        agent: Agent) -> None:
    """The happy path: code mode, four explorers, a plan that fails its first critique and
    passes the second, and the planner command that starts the planner with the plan file."""
    doc = start(agent, "in: jobs/; out: jobs/vendor/")
    assert doc.get("id") == "mode" and [outcome_of(i) for i in offered(doc)] == [
        "design", "code", "both", "custom"]
    doc = choose(agent, doc, "code")
    assert doc.get("id") == "explore-code"
    assert dimensions_dispatched(doc) == ["docs-and-tests", "naming", "patterns", "repetition"]
    prompt = doc.findtext("DO/dispatch/prompt", "")
    assert "- SCOPE: in: jobs/; out: jobs/vendor/" in prompt
    assert "- CHECKS: pytest tests/jobs -q" in prompt
    assert "explore-dimension.py --step 1 --parent" in prompt

    doc = agent.follow(doc, RAW="repetition: SHOULD | S | jobs/mail.py:18, jobs/sync.py:90")
    assert doc.get("id") == "triage" and listed(doc, "convention", "severity") is not None
    assert doc.findtext("memory/CHECKS") == "pytest tests/jobs -q"
    assert "not worth doing" in "".join(doc.itertext())
    doc = agent.follow(doc, FINDINGS="R1 | SHOULD | S | priority 6 | repetition | "
                       "jobs/mail.py:18, jobs/sync.py:90", SET_ASIDE="none")
    plan_file = agent.repo / ".refactor" / "refactor-plan.md"
    said = first_action(doc)
    assert doc.get("id") == "plan" and str(plan_file) in said
    assert f"Create the folder {plan_file.parent}" in said
    assert "'Mode: code (docs-and-tests, naming, patterns, repetition)'" in said
    assert "The Baseline line names the commands in CHECKS" in said
    assert listed(doc, "resource", "plan-format") is not None
    assert doc.findtext("memory/CHECKS") == "pytest tests/jobs -q"

    doc = agent.follow(doc)
    assert doc.get("id") == "critique"
    assert "critique-plan.py --step 1 --parent" in subagent_cmd(doc.find("DO/dispatch"))
    doc = agent.follow(doc, "revise", CRITIQUE="FAIL 1. RF1: Verify names no command")
    assert doc.get("id") == "plan" and "pass 2 of" in doc.findtext("banner", "").lower()
    assert "found MUST or SHOULD problems in the plan at" in first_action(doc)
    assert "leave its COULD notes" in first_action(doc)
    assert "update the Order and Findings sections" in first_action(doc)
    assert doc.find("memory/CRITIQUE") is None  # just reported, not echoed

    doc = agent.follow(agent.follow(doc), "accept", CRITIQUE="PASS")
    assert doc.get("id") == "handoff" and doc.find("DO/ask_user") is not None
    assert "open critique points" not in "".join(doc.itertext())
    doc = agent.follow(doc, "planner")
    assert doc.get("id") == "to-planner" and doc.find("NEXT/complete") is not None
    said = first_action(doc)
    command = said[said.index(sys.executable):]
    planner = agent.run(shlex.split(command))
    assert planner.get("skill") == "planner" and planner.get("id") == "draft"
    assert f"Carry out the refactoring plan in {plan_file}" in planner.findtext(
        "params/param[@name='request']", "")
    assert "open critique points" not in first_action(planner)
    assert max(agent.sizes()[:-1]) < 4000


def test_a_project_without_checks_gets_a_plan_that_pins_behaviour_first(agent: Agent) -> None:
    """CHECKS none found: explorers and triage see it, and the plan starts with a
    characterisation-test refactoring and a Baseline with no command yet."""
    doc = choose(agent, start(agent, checks="none found"), "design")
    assert "- CHECKS: none found" in doc.findtext("DO/dispatch/prompt", "")
    doc = agent.follow(doc, RAW="structure: SHOULD | M | jobs/run.py:10")
    assert doc.findtext("memory/CHECKS") == "none found"
    doc = agent.follow(doc, FINDINGS="R1 | SHOULD | M | priority 4 | structure | jobs/run.py:10",
                       SET_ASIDE="none")
    said = first_action(doc)
    assert "make RF1 'Pin the current behaviour'" in said
    assert "'Baseline: none before RF1; then <that command>'" in said
    assert "'Mode: design (consistency, modules, structure)'" in said


def test_a_critique_still_failing_after_the_revision_is_recorded_then_put_to_the_user(
        agent: Agent) -> None:
    """The revision loop runs out: the last revise leads to a step that has the open points
    written into the plan (as the banner says), then the hand-off asks how to go on, and the
    planner is told to settle them first."""
    doc = to_critique(agent, choose(agent, start(agent), "code"))
    doc = agent.follow(agent.follow(doc, "revise", CRITIQUE="FAIL 1. RF1 | SHOULD | no test"))
    assert doc.get("id") == "critique"
    assert "leads to 'Record the open critique points'" in doc.findtext("banner", "")
    doc = agent.follow(doc, "revise", CRITIQUE="FAIL 1. RF1 | SHOULD | still no test")
    assert doc.get("id") == "open-points"
    said = first_action(doc)
    assert "'## Open critique points' (rule 7 of the plan format)" in said
    assert "asks the user how to go on" in said
    assert doc.find("memory/CRITIQUE") is None  # just reported, not echoed
    doc = agent.follow(doc, OPEN_POINTS="1. RF1 | SHOULD | Verify names no test")
    assert doc.get("id") == "handoff"
    assert "list the open critique points (OPEN_POINTS)" in first_action(doc)
    assert "How do you want to go on" in doc.findtext("DO/ask_user/question", "")
    said = first_action(agent.follow(doc, "done"))
    assert "First settle the open critique points listed at its end." in said


def test_a_plan_with_could_notes_only_is_accepted_without_open_points(agent: Agent) -> None:
    """The critique fails on MUST and SHOULD problems only: the orchestrator's outcomes say so,
    the reviewer's reply step grades by severity, and an accepted plan has no open points."""
    doc = to_critique(agent, choose(agent, start(agent), "code"))
    when = {outcome_of(i): i.get("when", "") for i in offered(doc)}
    assert "a MUST or SHOULD problem is open" in when["revise"]
    assert "COULD problems only" in when["accept"]
    check = agent.run(shlex.split(subagent_cmd(doc.find("DO/dispatch"))))
    assert any(c.path and c.path.endswith("/severity.md") for c in lines(check.find("DO")))
    assert "COULD: wording" in "".join(check.itertext())
    reply = agent.follow(check)
    said = first_action(reply)
    assert "FAIL when you found at least one MUST or SHOULD problem" in said
    assert "COULD problems alone never fail the plan" in said
    assert "not severity.md's F-id format" in said
    assert expected(reply).split("\n")[0] == "FAIL"
    doc = agent.follow(doc, "accept", CRITIQUE="PASS\n1. RF1 | COULD | a.py:1 | title | retitle")
    assert doc.get("id") == "handoff"
    assert "open critique points" not in "".join(doc.itertext())
    said = first_action(agent.follow(doc, "done"))
    assert "open critique points" not in said


def test_the_mode_is_reported_with_the_outcome_that_chose_it(agent: Agent) -> None:
    """Each mode's command carries MODE with its own name (the one value it allows), and asks
    for no MODE of the agent; the custom plan names the dimensions that were explored."""
    doc = start(agent)
    carried = {outcome_of(i): flag(shlex.split(cmd_text(i)), "--set") for i in offered(doc)}
    assert carried == {m: f"MODE={m}" for m in ("design", "code", "both", "custom")}
    assert not any(i.find("arg[@key='MODE']") is not None for i in offered(doc))
    # The agent may add the value again, as the DO line asks; another value is refused.
    code = next(i for i in offered(doc) if outcome_of(i) == "code")
    refused = harness.agent([*shlex.split(cmd_text(code)), "--set", "MODE=design"],
                            cwd=agent.repo)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "MODE is given twice, with different values" in refused.stderr
    doc = agent.follow(choose(agent, doc, "custom"), DIMENSIONS="naming, repetition")
    doc = to_critique(agent, doc)
    plan = agent.printed[-2]
    assert doc.get("id") == "critique"
    assert ("'Mode: custom (naming, repetition); not explored: consistency, modules, structure, "
            "docs-and-tests, patterns'") in plan


def test_the_explorer_knows_where_severity_is_and_how_to_reply(agent: Agent) -> None:
    """The sub-agent's steps name the conventions' folder, grade effort by CHECKS, and show
    the reply format by example."""
    doc = choose(agent, start(agent), "code")
    read = agent.run(shlex.split(subagent_cmd(doc.find("DO/dispatch"))))
    assert str(REPO / ".claude" / "skills" / "lib" / "conventions") in first_action(read)
    search = agent.follow(read)
    assert str(REPO / ".claude" / "skills" / "lib" / "conventions" / "severity.md") in [
        c.path for c in lines(search.find("DO")) if c.kind == "convention"]
    said = "".join(search.itertext())
    assert "covered by tests that CHECKS runs" in said
    assert "not severity.md's F-id format" in said and "at most eight findings" in said
    assert "Smell starts 'Bug:'" in said and "Say 'no history'" in said
    reply = agent.follow(search)
    assert "not severity.md's F-id format" in first_action(reply)
    example = expected(reply).split("\n")
    assert example[1].startswith("Smell: ") and example[3].startswith("Evidence: ")
    assert example[4] == "" and example[0].count(" | ") == 3
    assert example[6].startswith("Smell: Bug: ")


def test_the_skill_description_names_the_dimensions_as_the_conventions_do() -> None:
    description = (SKILLS_ROOT / "refactor" / "SKILL.md").read_text().split("\n")[2]
    listed = re.search(r"dimension \(([^)]*)\)", description).group(1)  # type: ignore[union-attr]
    assert sorted(listed.split(", ")) == CONVENTION_SET


def test_custom_mode_names_are_refused_until_all_are_in_the_set(agent: Agent) -> None:
    """A misspelt or unknown name is refused with a suggestion and the run does not move; once
    every name is in the set, each named dimension gets one explorer, in the convention set's
    order whatever the order they were named in."""
    doc = choose(agent, start(agent), "custom")
    assert doc.get("id") == "name-dimensions"
    assert all(f"{name} (" in first_action(doc) for name in CONVENTION_SET)
    error = refused(agent, doc, DIMENSIONS="repetiton\nnaming\nperformance")
    assert "'repetiton' (did you mean 'repetition'?), 'performance'." in error
    assert "the run has not moved" in error
    assert "no dimension was named" in refused(agent, doc, DIMENSIONS="none")
    doc = agent.follow(doc, DIMENSIONS="Repetition, naming, structure")
    assert doc.get("id") == "explore-custom"
    assert dimensions_dispatched(doc) == ["structure", "naming", "repetition"]


def test_a_hedged_request_fits_the_custom_outcome(agent: Agent) -> None:
    """'Mostly naming and repetition' is custom by the mode step's own words, and the naming
    step says to name just those."""
    doc = start(agent)
    when = {outcome_of(i): i.get("when", "") for i in offered(doc)}
    assert "'mostly naming and repetition'" in when["custom"]
    assert all("naming no single dimension" in when[m] for m in ("design", "code"))
    said = first_action(choose(agent, doc, "custom"))
    assert "for 'mostly naming and repetition', those two" in said


def test_both_modes_explore_every_convention_design_first(agent: Agent) -> None:
    """Mode both dispatches one explorer per code-quality convention; design mode only the
    design ones, the same on every run."""
    both = choose(agent, start(agent), "both")
    names = dimensions_dispatched(both)
    assert sorted(names) == CONVENTION_SET and len(names) == 7
    design = choose(agent, start(agent), "design")
    assert dimensions_dispatched(design) == ["consistency", "modules", "structure"]
    assert names[:3] == dimensions_dispatched(design)
