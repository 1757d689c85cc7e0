"""The ask_user gate: where the UserPromptSubmit hook records the session's user turns, an answer
to an `<ask_user>` step counts only after a user turn that came after the question; elsewhere the
gate is advisory, and the step says so."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .hooks_support import SKILLRAIL, Agent, answer, command, make_project, payload

ANSWERED = {"questions": [{"question": "Change it?"}], "answers": {"Change it?": "yes"}}


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    make_project(tmp_path / "app")
    return Agent(tmp_path / "app")


def at_question(agent: Agent) -> ET.Element:
    """A run at its ask_user step 'ask'."""
    return agent.follow(agent.start(), FOUND="x")


def user_says(text: str = "yes, change it") -> None:
    prompt = payload("stop", hook_event_name="UserPromptSubmit", prompt=text)
    assert answer("UserPromptSubmit", prompt) is None


def approve(agent: Agent, ask: ET.Element) -> subprocess.CompletedProcess[str]:
    return agent.call(command(ask, "approve"))


def current_step(agent: Agent, ask: ET.Element) -> str:
    proc = agent.call([*SKILLRAIL, "resume", ask.get("run", "")])
    return ET.fromstring(proc.stdout).get("id", "")


def test_the_step_says_the_check_is_advisory_without_hooks(agent: Agent) -> None:
    actions = [a.text or "" for a in at_question(agent).iterfind("DO/action")]
    assert any("advisory" in text and "Never choose for them" in text for text in actions)


def test_without_recorded_turns_an_answer_is_accepted(agent: Agent) -> None:
    """No hook recorded a turn of this session: hooks are not installed, the gate advises."""
    ask = at_question(agent)
    assert approve(agent, ask).returncode == 0
    assert current_step(agent, ask) == "change"


def test_an_answer_before_the_user_spoke_is_refused_and_the_run_is_unchanged(
        agent: Agent) -> None:
    user_says("run the guarded skill")  # the turn that started the work, before the question
    ask = at_question(agent)
    proc = approve(agent, ask)
    assert proc.returncode == 3 and proc.stdout == ""
    assert proc.stderr.startswith("error: no user turn was recorded since step 'ask'")
    assert " ".join(command(ask, "approve")) in proc.stderr.replace("'", "")
    assert current_step(agent, ask) == "ask"
    user_says()
    assert approve(agent, ask).returncode == 0
    assert current_step(agent, ask) == "change"


def test_a_user_prompt_is_kept_in_the_runs_audit(agent: Agent) -> None:
    ask = at_question(agent)
    user_says("yes, change it")
    approve(agent, ask)
    trace = agent.call([*SKILLRAIL, "trace", ask.get("run", "")]).stdout
    assert "user-turn: yes, change it" in trace


@pytest.mark.parametrize(("answers", "counts"), [(ANSWERED, True),
                                                 ({"answers": {"Change it?": "."}}, False)])
def test_an_answer_in_ask_user_question_is_a_user_turn(
        agent: Agent, answers: dict[str, object], counts: bool) -> None:
    """PostToolUse on AskUserQuestion records a turn when the user really answered."""
    user_says("run the guarded skill")
    ask = at_question(agent)
    done = payload("pretooluse-edit", hook_event_name="PostToolUse",
                   tool_name="AskUserQuestion", tool_input=ANSWERED, tool_response=answers)
    done["tool_input"] = {"questions": ANSWERED["questions"]}
    assert answer("PostToolUse", done) is None
    assert (approve(agent, ask).returncode == 0) is counts


def test_a_run_outside_any_session_is_never_gated(agent: Agent, tmp_path: Path) -> None:
    user_says()
    outside = Agent(agent.project, session=None)
    ask = outside.follow(outside.start(), FOUND="x")
    assert approve(outside, ask).returncode == 0


def test_another_sessions_turns_do_not_count(agent: Agent) -> None:
    user_says("start")
    ask = at_question(agent)
    elsewhere = payload("stop", hook_event_name="UserPromptSubmit", prompt="hi",
                        session_id="another-session")
    answer("UserPromptSubmit", elsewhere)
    assert approve(agent, ask).returncode == 3
