"""skillrail's hooks for the Codex CLI (issue 29): `skillrail hooks install --client codex` and
the hooks answering Codex's payloads, which differ from Claude Code's in three ways: no variable
names the session in the agent's shell (a run starts without one, and the hooks tie it to the
session that saw it), a command's output is one string, and a file edit is `apply_patch` with
the patch as its input. The payloads are as Codex 0.171.0 sends them; tests/realclient
drives the real client through the same hooks."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from .hooks_support import SKILLRAIL, Agent, hook
from .repo_shapes import make_shape

SESSION = "019a2379-9269-7e61-9b62-009955f03ced"


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


@pytest.fixture
def project(tmp_path: Path, codex_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone (an origin remote) with the test skill `guarded` and Codex's hooks installed."""
    root = make_shape("https-origin", tmp_path, monkeypatch)
    done = Agent(root, session=None).call([*SKILLRAIL, "hooks", "install", "--client", "codex"])
    assert done.returncode == 0, done.stderr
    return root


def codex(event: str, root: Path, **fields: Any) -> dict[str, Any] | None:
    """The hook's answer to a payload of Codex's shape for `event`, or None (it said nothing)."""
    data = {"session_id": SESSION, "transcript_path": None, "cwd": str(root),
            "hook_event_name": event, "model": "gpt-5.5", "permission_mode": "bypassPermissions",
            **({} if event == "SessionStart" else {"turn_id": "019a2379-9282-7c33"}), **fields}
    out = hook(event, data, session=None).stdout.strip()
    return json.loads(out) if out else None


def ran(agent: Agent, argv: list[str], root: Path) -> str:
    """Run a step command in the agent's shell (no session variable, as under Codex), then
    PostToolUse with its output as one string, as Codex reports it."""
    proc = agent.call(argv)
    assert proc.returncode == 0, proc.stderr
    codex("PostToolUse", root, tool_name="Bash", tool_use_id="call_1",
          tool_input={"command": " ".join(argv)}, tool_response=proc.stdout)
    return proc.stdout


def test_install_writes_the_hook_file_and_the_users_trust(project: Path,
                                                          codex_home: Path) -> None:
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == ["PostToolUse", "PreToolUse", "SessionStart", "Stop",
                             "UserPromptSubmit"]
    assert hooks["PreToolUse"][0]["matcher"] == "*"
    state = tomllib.loads((codex_home / "config.toml").read_text())["hooks"]["state"]
    hook_file = project / ".codex" / "hooks.json"
    assert sorted(state) == sorted(f"{hook_file}:{e}:0:0" for e in (
        "pre_tool_use", "post_tool_use", "stop", "session_start", "user_prompt_submit"))
    assert all(v["trusted_hash"].startswith("sha256:") for v in state.values())
    again = Agent(project, session=None).call([*SKILLRAIL, "hooks", "install", "--client",
                                               "codex"])
    assert "already installed and trusted" in again.stdout


def test_uninstall_keeps_the_users_own_hooks_and_config(project: Path, codex_home: Path) -> None:
    hook_file = project / ".codex" / "hooks.json"
    data = json.loads(hook_file.read_text())
    data["hooks"]["Stop"].insert(0, {"hooks": [{"type": "command", "command": "notify-me"}]})
    hook_file.write_text(json.dumps(data))
    config = codex_home / "config.toml"
    config.write_text('model = "gpt-5.5"\n' + config.read_text())
    agent = Agent(project, session=None)
    reinstalled = agent.call([*SKILLRAIL, "hooks", "install", "--client", "codex"])
    assert reinstalled.returncode == 0, reinstalled.stderr
    assert f"{hook_file}:stop:1:0" in tomllib.loads(config.read_text())["hooks"]["state"]
    done = agent.call([*SKILLRAIL, "hooks", "uninstall", "--client", "codex"])
    assert done.returncode == 0, done.stderr
    assert json.loads(hook_file.read_text()) == {"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "notify-me"}]}]}}
    # The trust goes; the ledger's folder stays writable, for the runs of other projects.
    assert tomllib.loads(config.read_text()) == {"model": "gpt-5.5", "sandbox_workspace_write": {
        "writable_roots": [os.environ["SKILLRAIL_HOME"]]}}


def test_a_config_codex_could_not_read_is_left_alone(tmp_path: Path, codex_home: Path) -> None:
    codex_home.mkdir()
    broken = '[hooks.state]\n"x" = 1\n[hooks.state]\n'
    (codex_home / "config.toml").write_text(broken)
    (tmp_path / ".git").mkdir()
    done = Agent(tmp_path, session=None).call([*SKILLRAIL, "hooks", "install", "--client",
                                               "codex"])
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: cannot record the hooks' trust in")
    assert (codex_home / "config.toml").read_text() == broken


def test_claude_only_options_are_refused_for_codex(tmp_path: Path, codex_home: Path) -> None:
    (tmp_path / ".git").mkdir()
    done = Agent(tmp_path, session=None).call([*SKILLRAIL, "hooks", "install", "--client",
                                               "codex", "--sandbox"])
    assert done.returncode == 2 and "--sandbox is for Claude Code's settings" in done.stderr
    assert not (tmp_path / ".codex").exists()


def test_a_run_the_hooks_saw_holds_the_end_of_the_turn(project: Path) -> None:
    """No session variable in the shell: the run starts without a session, the step printed
    ties it to Codex's, and Stop blocks once with the next command."""
    agent = Agent(project, session=None)
    script = project / ".claude" / "skills" / "guarded" / "scripts" / "guarded.py"
    out = ran(agent, ["python3", str(script), "--step", "1"], project)
    assert "<step " in out
    stop = codex("Stop", project, stop_hook_active=False, last_assistant_message="Done.")
    assert stop is not None and stop["decision"] == "block"
    assert "is not finished: it is at step 'look'" in stop["reason"]
    assert codex("Stop", project, stop_hook_active=True, last_assistant_message="x") is None


def test_a_run_never_seen_here_is_not_held(project: Path) -> None:
    """Another session's run, or one at a person's terminal, is none of this session's."""
    agent = Agent(project, session=None)
    script = project / ".claude" / "skills" / "guarded" / "scripts" / "guarded.py"
    assert agent.call(["python3", str(script), "--step", "1"]).returncode == 0
    assert codex("Stop", project, stop_hook_active=False, last_assistant_message="x") is None


def test_apply_patch_is_held_to_the_steps_tools(project: Path) -> None:
    """At `look` (Read, Grep, git log) a patch is denied, naming the next command; the patch's
    files are what the step's Edit rules judge."""
    agent = Agent(project, session=None)
    script = project / ".claude" / "skills" / "guarded" / "scripts" / "guarded.py"
    ran(agent, ["python3", str(script), "--step", "1"], project)
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-a\n+b\n*** End Patch\n"
    out = codex("PreToolUse", project, tool_name="apply_patch", tool_use_id="call_2",
                tool_input={"command": patch})
    assert out is not None
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "apply_patch" in reason and "--step" in reason


def test_apply_patch_into_the_run_ledger_is_refused(project: Path) -> None:
    state = os.environ["SKILLRAIL_HOME"]
    patch = f"*** Begin Patch\n*** Add File: {state}/runs.sqlite3\n+x\n*** End Patch\n"
    out = codex("PreToolUse", project, tool_name="apply_patch", tool_use_id="call_3",
                tool_input={"command": patch})
    assert out is not None
    assert "writes skillrail's run ledger or its evidence store" in \
        out["hookSpecificOutput"]["permissionDecisionReason"]


def test_doctor_tells_when_codex_would_skip_the_hooks(project: Path) -> None:
    """Codex skips a hook whose definition changed since the user trusted it, silently: an
    agent that edits .codex/hooks.json turns the hooks off for the next session. doctor says
    so, and the fix is the user's."""
    agent = Agent(project, session=None)
    said = agent.call([*SKILLRAIL, "doctor"]).stdout
    assert "Codex's hooks in" in said and ": 5, trusted in" in said
    hook_file = project / ".codex" / "hooks.json"
    hook_file.write_text(hook_file.read_text().replace('"timeout": 10', '"timeout": 11', 1))
    doctor = agent.call([*SKILLRAIL, "doctor"])
    assert doctor.returncode == 1
    assert "1 of 5 not trusted" in doctor.stdout
    assert "skillrail hooks install --client codex" in doctor.stdout


@pytest.mark.parametrize("call", [
    {"tool_name": "apply_patch", "tool_input": {"command": (
        "*** Begin Patch\n*** Update File: .codex/hooks.json\n@@\n-a\n+b\n*** End Patch\n")}},
    {"tool_name": "Bash", "tool_input": {"command": "echo '{}' > .codex/hooks.json"}},
], ids=["patch", "bash"])
def test_the_hook_file_is_the_users_to_change(project: Path, call: dict[str, Any]) -> None:
    out = codex("PreToolUse", project, tool_use_id="call_4", **call)
    assert out is not None
    assert "changes Codex's hooks or the user's trust of them" in \
        out["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("call", [
    {"tool_name": "apply_patch", "tool_input": {"command": (
        "*** Begin Patch\n*** Update File: .claude/skillrail.yaml\n@@\n-a\n+b\n*** End Patch\n")}},
    {"tool_name": "Bash", "tool_input": {"command": "echo 'defaults: false' >> "
                                                    ".claude/skillrail.yaml"}},
    {"tool_name": "Bash", "tool_input": {"command": "sed -i s/x/y/ .claude/settings.json"}},
], ids=["patch", "redirect", "sed"])
def test_the_policy_and_settings_are_the_users_to_change(project: Path,
                                                         call: dict[str, Any]) -> None:
    """Codex's sandbox keeps .codex and .agents read-only, not .claude: the hooks refuse
    what would change the command policy or Claude Code's settings. Reading them is fine."""
    out = codex("PreToolUse", project, tool_use_id="call_5", **call)
    assert out is not None
    assert "what skillrail's hooks or its command policy allow" in \
        out["hookSpecificOutput"]["permissionDecisionReason"]
    read = codex("PreToolUse", project, tool_use_id="call_6", tool_name="Bash",
                 tool_input={"command": "cat .claude/skillrail.yaml"})
    assert read is None
