"""`skillrail hooks install|uninstall`: merging into a Claude Code settings file without
clobbering anyone else's hooks, idempotently; `--dry-run` shows a diff and writes nothing; a
broken settings file is an error and stays untouched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import shell
from .hooks_support import ENTRY, SKILLRAIL, env, payload

THEIRS = {"type": "command", "command": "/usr/local/bin/audit-tool --log"}
EXISTING = {
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [THEIRS]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
    "model": "sonnet",
}
EVENTS = ["PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit"]


def skillrail(*args: str, cwd: Path | None = None,
              environ: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return shell([*SKILLRAIL, *args], env=environ or env(), cwd=cwd)


def ours(settings: dict[str, Any]) -> dict[str, list[str]]:
    """The commands per event that run skillrail's hooks: `skillrail-hook EVENT`, or this
    checkout's entry script by its path."""
    return {event: [h["command"] for g in groups for h in g["hooks"]
                    if str(ENTRY) in h["command"] or h["command"].startswith("skillrail-hook ")]
            for event, groups in settings.get("hooks", {}).items()}


def without_hook_program() -> dict[str, str]:
    """The environment of a user whose PATH holds no `skillrail-hook` (skillrail run from a
    checkout, or its virtual environment not on PATH)."""
    return {**env(), "PATH": "/usr/bin:/bin"}


@pytest.fixture
def settings(tmp_path: Path) -> Path:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(EXISTING, indent=4) + "\n")
    return path


def test_install_adds_one_hook_per_event_and_keeps_everything_else(settings: Path) -> None:
    proc = skillrail("hooks", "install", "--settings", str(settings))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(settings.read_text())
    assert data["permissions"] == EXISTING["permissions"] and data["model"] == "sonnet"
    assert data["hooks"]["PreToolUse"][0] == {"matcher": "Bash", "hooks": [THEIRS]}
    assert data["hooks"]["Notification"] == EXISTING["hooks"]["Notification"]
    assert {e: len(c) for e, c in ours(data).items() if c} == dict.fromkeys(EVENTS, 1)
    matchers = {e: g.get("matcher") for e, gs in data["hooks"].items() for g in gs
                if ours({"hooks": {e: [g]}})[e]}
    assert matchers["SessionStart"] == "compact|resume" and matchers["Stop"] is None
    assert settings.read_text().startswith('{\n    "permissions"')  # the file's indent kept


@pytest.mark.parametrize("flags, path", [((), True), (("--local",), False)],
                         ids=["shared", "local"])
def test_installed_commands_answer_a_payload_from_skillrails_installation(
        settings: Path, flags: tuple[str, ...], path: bool) -> None:
    """Shared, each command is `skillrail-hook EVENT`, the program pip installs, found on the
    user's PATH; --local, this installation's interpreter and entry script by absolute paths,
    which need no PATH. Run by a shell, as Claude Code does, each answers a real payload and
    exits 0."""
    skillrail("hooks", "install", "--settings", str(settings), *flags)
    commands = ours(json.loads(settings.read_text()))
    assert all(c.startswith("skillrail-hook ") == path for cs in commands.values() for c in cs)
    for event, listed in commands.items():
        for command in listed:
            data = payload("stop", hook_event_name=event)
            environ = {"SKILLRAIL_HOME": env()["SKILLRAIL_HOME"]}
            if path:
                environ["PATH"] = str(Path(sys.executable).parent) + ":/usr/bin:/bin"
            proc = subprocess.run(command, shell=True, input=json.dumps(data), text=True,
                                  capture_output=True, timeout=30, env=environ)
            assert proc.returncode == 0 and proc.stdout == "", (event, proc.stderr)


def test_installing_twice_changes_nothing(settings: Path) -> None:
    skillrail("hooks", "install", "--settings", str(settings))
    first = settings.read_bytes()
    proc = skillrail("hooks", "install", "--settings", str(settings))
    assert proc.returncode == 0 and "nothing to change" in proc.stdout
    assert settings.read_bytes() == first


def test_an_older_install_is_replaced_in_place_not_duplicated(settings: Path) -> None:
    old = json.loads(json.dumps(EXISTING))
    old["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command":
                                        "/old/python3 /old/.claude/skills/lib/workflow/hooks/"
                                        "entry.py Stop"}, THEIRS]}]
    settings.write_text(json.dumps(old))
    skillrail("hooks", "install", "--settings", str(settings))
    stop = json.loads(settings.read_text())["hooks"]["Stop"]
    assert stop[0] == {"hooks": [THEIRS]} and len(stop) == 2
    assert "/old/" not in settings.read_text()


def test_dry_run_prints_a_diff_and_writes_nothing(settings: Path, tmp_path: Path) -> None:
    before = settings.read_bytes()
    proc = skillrail("hooks", "install", "--dry-run", "--settings", str(settings))
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"--- {settings} (now)\n+++ {settings} (after)\n@@")
    assert '+                        "command": "' in proc.stdout
    assert settings.read_bytes() == before
    fresh = tmp_path / "new" / "settings.json"
    proc = skillrail("hooks", "install", "--dry-run", "--settings", str(fresh))
    assert "+{" in proc.stdout and not fresh.exists()


def test_without_the_hook_program_on_path_the_hooks_are_this_machines(
        tmp_path: Path) -> None:
    """No `skillrail-hook` on PATH: a shared command would not run for this user, so the hooks
    name this installation by its paths and go to the unshared settings.local.json, and the
    output says why."""
    proc = skillrail("hooks", "install", cwd=tmp_path, environ=without_hook_program())
    assert proc.returncode == 0 and "skillrail-hook is not on PATH here" in proc.stdout
    assert ours(json.loads((tmp_path / ".claude" / "settings.local.json").read_text()))["Stop"]
    assert not (tmp_path / ".claude" / "settings.json").exists()


def test_the_shared_hooks_run_the_users_installation_never_the_projects_copy(
        tmp_path: Path) -> None:
    """After `skillrail init` (the framework copied into the project, where the agent can edit
    it), the shared settings.json gets `skillrail-hook EVENT`: each teammate's own
    installation, nothing of this machine, nothing of the project's copy."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert skillrail("init", "problem-analysis", cwd=tmp_path / ".").returncode == 0
    proc = skillrail("hooks", "install", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / ".claude" / "settings.json").read_text()
    commands = [h["command"] for groups in json.loads(text)["hooks"].values() for g in groups
                for h in g["hooks"]]
    assert sorted(commands) == sorted(f"skillrail-hook {e}" for e in EVENTS)
    assert str(ENTRY.parent.parent.parent.parent) not in text and str(tmp_path) not in text
    doctor = skillrail("doctor", cwd=tmp_path)
    assert f"ok    hooks in {tmp_path / '.claude' / 'settings.json'}: 5" in doctor.stdout


def test_hooks_that_run_the_projects_copy_are_a_problem_doctor_names(tmp_path: Path) -> None:
    """Hooks installed before this release ran `$CLAUDE_PROJECT_DIR/.claude/skills/lib/...`,
    the project's copy, which the agent edits like any file: doctor says so, and installing
    the hooks again replaces them in place."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert skillrail("init", "problem-analysis", cwd=tmp_path).returncode == 0
    old = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": 'python3 '
                                          '"$CLAUDE_PROJECT_DIR/.claude/skills/lib/workflow/'
                                          'hooks/entry.py" Stop || true'}]}]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(old))
    doctor = skillrail("doctor", cwd=tmp_path)
    assert "run the project's copy of skillrail" in doctor.stdout and doctor.returncode == 1
    assert skillrail("hooks", "install", cwd=tmp_path).returncode == 0
    assert "$CLAUDE_PROJECT_DIR" not in (tmp_path / ".claude" / "settings.json").read_text()
    assert "run the project's copy" not in skillrail("doctor", cwd=tmp_path).stdout


@pytest.mark.parametrize("text", ['{"hooks": {"Stop": [', "[1, 2]",
                                  '{"hooks": {"Stop": {"command": "x"}}}'])
def test_a_broken_settings_file_is_an_error_and_left_untouched(
        settings: Path, text: str) -> None:
    settings.write_text(text)
    for args in (["install"], ["install", "--dry-run"], ["uninstall"]):
        proc = skillrail("hooks", *args, "--settings", str(settings))
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
        assert "left untouched" in proc.stderr
        assert settings.read_text() == text


def test_uninstall_removes_only_skillrails_hooks(settings: Path) -> None:
    skillrail("hooks", "install", "--settings", str(settings))
    proc = skillrail("hooks", "uninstall", "--settings", str(settings))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(settings.read_text()) == EXISTING
    again = skillrail("hooks", "uninstall", "--settings", str(settings))
    assert "not installed" in again.stdout


def test_install_with_sandbox_turns_it_on_keeping_the_users_paths(settings: Path,
                                                                 ledger_home: Path) -> None:
    """--sandbox: Claude Code's Bash sandbox on and hard (no unsandboxed commands, no session
    where it cannot run), the ledger's folder writable; the evidence folder, the settings
    files and the policy file neither writable by Bash nor editable by the file tools; the
    user's own sandbox paths and rules stay; uninstall takes out only ours. The shared file
    names the default state folder, which a teammate has; this machine keeps its state
    elsewhere (SKILLRAIL_HOME), so its folder goes to the unshared settings.local.json,
    absolute paths written `//...` (one slash means "from the project's folder")."""
    data = json.loads(settings.read_text())
    data["sandbox"] = {"filesystem": {"allowWrite": ["~/.kube"]}, "excludedCommands": ["x"]}
    settings.write_text(json.dumps(data))
    proc = skillrail("hooks", "install", "--sandbox", "--settings", str(settings))
    assert "turned on Claude Code's Bash sandbox" in proc.stdout, proc.stderr
    box = json.loads(settings.read_text())["sandbox"]
    default = "~/.local/state/skillrail"
    project = ["/.claude/settings.json", "/.claude/settings.local.json",
               "/.claude/skillrail.yaml"]
    assert (box["enabled"], box["allowUnsandboxedCommands"], box["failIfUnavailable"]) == (
        True, False, True)
    assert box["filesystem"] == {"allowWrite": ["~/.kube", default],
                                 "denyWrite": [default + "/evidence", *project]}
    assert json.loads(settings.read_text())["permissions"] == {
        "allow": ["Bash(npm test:*)"],
        "deny": [f"Edit({default}/evidence/**)", *(f"Edit({p})" for p in project)]}
    assert box["excludedCommands"] == ["x"]
    mine = settings.with_name("settings.local.json")
    ledger = "/" + str(ledger_home.resolve())
    assert json.loads(mine.read_text()) == {
        "sandbox": {"filesystem": {"allowWrite": [ledger], "denyWrite": [ledger + "/evidence"]}},
        "permissions": {"deny": [f"Edit({ledger}/evidence/**)"]}}
    assert "its paths went to" in proc.stdout and str(mine) in proc.stdout
    again = skillrail("hooks", "install", "--sandbox", "--settings", str(settings))
    assert "nothing to change" in again.stdout
    skillrail("hooks", "uninstall", "--settings", str(settings))
    left = json.loads(settings.read_text())
    assert left["sandbox"] == {"filesystem": {"allowWrite": ["~/.kube"]},
                               "excludedCommands": ["x"], "enabled": True,
                               "allowUnsandboxedCommands": False, "failIfUnavailable": True}
    assert left["permissions"] == {"allow": ["Bash(npm test:*)"]}
    assert "hooks" not in left or not any(ours(left).values())
    assert not mine.exists()  # it held only those paths


def test_install_with_sandbox_says_loudly_when_the_machine_cannot_run_it(
        settings: Path) -> None:
    """Without bubblewrap and socat on PATH, Claude Code would refuse to start (the settings say
    failIfUnavailable): install says so in a WARNING line and exits 1, the settings written."""
    proc = skillrail("hooks", "install", "--sandbox", "--settings", str(settings),
                     environ={**without_hook_program(), "PATH": str(Path(sys.executable).parent)})
    assert proc.returncode == 1 and "WARNING: Claude Code's sandbox cannot run on this " \
        "machine: bwrap and socat are not installed" in proc.stdout
    assert json.loads(settings.read_text())["sandbox"]["enabled"] is True
