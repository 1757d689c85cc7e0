"""skill-runner, as a review found it: a step's used-up retries are counted in good English
(one pluralizer for the runner), and a simple run of a skill that is not there is refused in
one line, not with a traceback."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from .conftest import SKILLS_ROOT
from .test_planner import Agent
from .test_skill_runner import long_plan, plan_to_approval, refused

RUN_STEPS = SKILLS_ROOT / "skill-runner" / "scripts" / "run-steps.py"


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return Agent(tmp_path)


def test_a_step_whose_retries_are_used_up_says_retries(agent: Agent) -> None:
    """A plan step that fails every attempt: after its 3 retries (the default) the printed
    step says 'retries', never 'retrys', on its way to asking the user."""
    sealed = agent.follow(plan_to_approval(agent, long_plan(1)), "approve")
    doc = agent.run(shlex.split(sealed.findtext("DO/action", "")
                                .split("follow the steps it prints: ")[1]))
    for attempt in range(4):
        assert doc.get("id") == "part-1", attempt
        doc = agent.follow(agent.follow(doc, RESULT_PART_1="done"), "fail",
                           FINDINGS_PART_1="not written")
        doc = agent.follow(doc, CHANGE_PART_1=f"approach {attempt}")
    assert doc.get("id") == "part-1-escalate"
    said = {d.get("step"): d.text or "" for d in doc.findall("decided")}
    assert said["part-1-again"] == "This step's 3 retries are used up: the user decides."
    assert "retrys" not in agent.printed[-1]
    assert "failed 4 times" in doc.findtext("DO/ask_user/question", "")


def test_the_runners_pluralizer_knows_retries() -> None:
    from skills.lib.runner.target import times

    assert [times(1, "retry", "retries"), times(3, "retry", "retries"), times(1, "time"),
            times(2, "time")] == ["1 retry", "3 retries", "1 time", "2 times"]
    assert sys.modules["skills.lib.runner.target"].__dict__.get("_times") is None


@pytest.mark.parametrize("given", [["--skill=nonexistent"], ["--skill", "nonexistent"]])
def test_a_simple_run_of_no_skill_is_refused_in_one_line(given: list[str],
                                                         tmp_path: Path) -> None:
    """The simple run's workflow is built from the skill's SKILL.md when the script loads:
    a --skill naming none is refused as --skill's own check words it (exit 2, one line), not
    with the FileNotFoundError of reading it."""
    error = refused([sys.executable, str(RUN_STEPS), "--step", "step-1", *given], tmp_path)
    assert error.startswith("error: --skill is refused: no SKILL.md in 'nonexistent'"), error
    assert error.rstrip().endswith("Fix the value and run the command again")


def test_the_default_budget_is_one_constant() -> None:
    """The plan's budget when it names none, the plan model's default and the settings'
    max_iterations (both of its forms) are the settings' DEFAULT_ITERATIONS."""
    from skills.lib.runner.build import DEFAULT_ITERATIONS as used
    from skills.lib.runner.plan import plan_model
    from skills.lib.workflow.authoring.execution import (
        DEFAULT_ITERATIONS,
        Settings,
        settings_model,
    )

    assert used is DEFAULT_ITERATIONS
    assert plan_model().model_fields["budget"].default == DEFAULT_ITERATIONS
    assert settings_model().model_fields["max_iterations"].default == DEFAULT_ITERATIONS
    assert Settings().max_iterations == DEFAULT_ITERATIONS
