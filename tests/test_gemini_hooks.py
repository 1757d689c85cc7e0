"""skillrail's hooks for Gemini CLI (issue 29): `skillrail hooks install --client gemini` and the
hooks answering Gemini's events (BeforeTool, AfterTool, AfterAgent, BeforeAgent) as Gemini
sends and reads them: its tool names, a command's output in `llmContent`, a refusal as
`decision: deny`, and the Stop hook's reason, which Gemini hands back to BeforeAgent as a
prompt and which is no turn of the user's. The payloads are as Gemini CLI 0.61.0 sends them;
tests/realclient drives the real client through the same hooks."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import shell
from .hooks_support import ENTRY, SKILLRAIL, Agent, env
from .repo_shapes import make_shape

SESSION = "0a0a0a0a-1111-2222-3333-444444444444"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone with the test skill `guarded` and Gemini's hooks installed."""
    root = make_shape("https-origin", tmp_path, monkeypatch)
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text('{"ui": {"theme": "Default"}}\n')
    done = Agent(root, session=None).call([*SKILLRAIL, "hooks", "install", "--client",
                                           "gemini"])
    assert done.returncode == 0, done.stderr
    return root


def gemini(event: str, root: Path, **fields: Any) -> dict[str, Any] | None:
    """The hook's answer to a payload of Gemini's shape for `event`, run as Gemini runs it (the
    command from the settings file); None when it said nothing."""
    data = {"session_id": SESSION, "transcript_path": "/home/dev/.gemini/tmp/chat.jsonl",
            "cwd": str(root), "hook_event_name": event,
            "timestamp": "2026-12-02T16:56:00.976Z", **fields}
    done = shell([sys.executable, str(ENTRY), event, "gemini"], env=env(None),
                 stdin=json.dumps(data))
    assert done.returncode == 0, done.stderr
    out = done.stdout.strip()
    return json.loads(out) if out else None


def started(root: Path) -> str:
    """Run the skill's first step in the agent's shell (no session variable, as under Gemini),
    then AfterTool with its output as Gemini reports it; the printed step."""
    script = root / ".claude" / "skills" / "guarded" / "scripts" / "guarded.py"
    proc = Agent(root, session=None).call(["python3", str(script), "--step", "1"])
    assert proc.returncode == 0, proc.stderr
    gemini("AfterTool", root, tool_name="run_shell_command",
           tool_input={"command": f"python3 {script} --step 1"},
           tool_response={"llmContent": f"<untrusted_context>\nOutput: {proc.stdout}\n"
                                        "</untrusted_context>", "returnDisplay": ""})
    return proc.stdout


def test_install_writes_gemini_s_events_and_keeps_the_other_settings(project: Path) -> None:
    data = json.loads((project / ".gemini" / "settings.json").read_text())
    assert data["ui"] == {"theme": "Default"}
    assert sorted(data["hooks"]) == ["AfterAgent", "AfterTool", "BeforeAgent", "BeforeTool",
                                     "SessionStart"]
    [hook] = data["hooks"]["BeforeTool"][0]["hooks"]
    assert hook["timeout"] == 10_000  # milliseconds, Gemini's unit
    assert hook["command"].endswith(" BeforeTool gemini || true")  # a missing program: let on
    agent = Agent(project, session=None)
    assert agent.call([*SKILLRAIL, "hooks", "uninstall", "--client", "gemini"]).returncode == 0
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == {
        "ui": {"theme": "Default"}}


def test_the_end_of_the_turn_is_held_and_the_reason_is_no_user_turn(project: Path) -> None:
    """AfterAgent blocks once with the next command; Gemini hands the reason back to
    BeforeAgent as a prompt, which must not count as the user speaking."""
    assert "<step " in started(project)
    told = gemini("AfterAgent", project, prompt="go", prompt_response="Done.",
                  stop_hook_active=False)
    assert told is not None and told["decision"] == "block"
    assert told["reason"].startswith("skillrail: run ")
    assert gemini("BeforeAgent", project, prompt=told["reason"]) is None
    agent = Agent(project, session=None)
    [run] = json.loads(agent.call([*SKILLRAIL, "runs", "--json"]).stdout)["runs"]
    trace = [*SKILLRAIL, "trace", run["run"], "--level", "full"]
    assert "user-turn" not in agent.call(trace).stdout
    gemini("BeforeAgent", project, prompt="yes, go on")  # the user, this time
    assert "yes, go on" in agent.call(trace).stdout


def test_a_tool_outside_the_step_is_refused_in_gemini_s_form(project: Path) -> None:
    started(project)
    out = gemini("BeforeTool", project, tool_name="write_file",
                 tool_input={"file_path": str(project / "app.py"), "content": "x"})
    assert out is not None and out["decision"] == "deny"
    assert "is at step 'look'" in out["reason"] and "Write" in out["reason"]
    assert "hookSpecificOutput" not in out  # Gemini ignores it, and would run the tool
    shell_out = gemini("BeforeTool", project, tool_name="run_shell_command",
                       tool_input={"command": "touch x", "description": "d"})
    assert shell_out is not None and shell_out["decision"] == "deny"
    allowed = gemini("BeforeTool", project, tool_name="run_shell_command",
                     tool_input={"command": "git log -n 3", "description": "d"})
    assert allowed is None


def test_the_settings_file_is_the_users_to_change(project: Path) -> None:
    out = gemini("BeforeTool", project, tool_name="run_shell_command",
                 tool_input={"command": "echo '{}' > .gemini/settings.json"})
    assert out is not None and out["decision"] == "deny"
    assert ".gemini/settings.json" in out["reason"]


def test_doctor_names_the_hooks_gemini_runs(project: Path) -> None:
    said = Agent(project, session=None).call([*SKILLRAIL, "doctor"]).stdout
    assert "Gemini CLI's hooks in" in said
    assert ": 5 (Gemini runs them in a folder you trust)" in said
