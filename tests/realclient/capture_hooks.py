"""The hook payloads of tests/fixtures/hooks/, captured from the real Claude Code client.

    CLAUDE_BIN=.../node_modules/.bin/claude .venv/bin/python -m tests.realclient.capture_hooks

A scratch project (support.ClaudeProject: skillrail's skills, its hooks and Claude Code's
sandbox installed) gets one more hook on every event the fixtures hold: a recorder that appends
the payload it reads on stdin to a file and says nothing. A scripted model (fakeapi.py) then
makes the client do what each fixture shows, in three sessions:

1. a sub-agent that reads a file (before any run: the Agent tool is not restricted yet); the
   problem-analysis skill's first step, run with Bash; WebFetch, Edit and Skill, which
   skillrail's hooks deny at that step (the recorder sees them all the same); an end of the
   turn, which skillrail's Stop hook blocks while the run is active, and the end after it;
2. `/compact` in that session (`--continue`): SessionStart with source 'compact';
3. `/problem-analysis why do totals drift` in a new session: UserPromptExpansion.

Each fixture is the first payload of its kind, scrubbed of this machine: the scratch folder
becomes /home/dev (the project /home/dev/app, Claude Code's config folder /home/dev/.claude),
the interpreter a printed step command names /home/dev/app/.venv/bin/python3, and the
sessions' ids the first session's, so that the fixtures read as one session (the hook tests
run them against runs of one session). Nothing else is changed: every field is the client's
(the tool_use ids are the fake model's). The fixtures
are rewritten and the client's version printed; tests/fixtures/hooks/README.md says which
version they came from.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..conftest import REPO
from .support import ClaudeProject, claude_binary, why_not

FIXTURES = REPO / "tests" / "fixtures" / "hooks"
EVENTS = ("PreToolUse", "Stop", "SessionStart", "UserPromptExpansion")
#: The recorder each event runs beside skillrail's hooks: the payload, one JSON line a call.
RECORDER = """import sys
with open(sys.argv[1], "a", encoding="utf-8") as log:
    log.write(sys.stdin.read().replace("\\n", " ") + "\\n")
"""
#: What the sub-agent is asked, with the marker fakeapi.py tells a sub-agent's calls by.
SUBAGENT_TASK = "SUBAGENT-TASK: read plan.json and say what it plans."


def bash(command: str) -> dict[str, Any]:
    return {"tool": "Bash", "input": {"command": command,
                                      "description": "Run the next step of the skill"}}


def first_session(app: Path) -> dict[str, list[dict[str, Any]]]:
    """The model's turns for session 1 (see the module's docstring)."""
    return {"main": [
        {"tool": "Agent", "input": {"description": "Read the plan", "prompt": SUBAGENT_TASK,
                                    "subagent_type": "general-purpose"}},
        bash("python3 .claude/skills/problem-analysis/scripts/problem-analysis.py --step 1"),
        {"follow": {"default": "the login test fails since the parser changed"}},
        {"tool": "WebFetch", "input": {"url": "https://example.com/docs",
                                       "prompt": "Summarize"}},
        {"tool": "Edit", "input": {"file_path": str(app / "durations" / "__init__.py"),
                                   "old_string": "findall", "new_string": "fullmatch"}},
        {"tool": "Skill", "input": {"skill": "problem-analysis",
                                    "args": "why do totals drift"}},
        {"text": "I have analysed the problem; the parser skips unknown text."},
        {"text": "Done."}],
        "sub": [{"tool": "Read", "input": {"file_path": str(app / "plan.json")}},
                {"text": "It plans one change."}]}


def recorded(project: ClaudeProject) -> list[dict[str, Any]]:
    """Every payload the recorder saw, in order."""
    log = project.logs / "payloads.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def with_recorder(project: ClaudeProject) -> None:
    """The recorder on every event of EVENTS, in the project's local settings (skillrail's
    hooks stay in its shared ones)."""
    recorder = project.logs / "recorder.py"
    recorder.write_text(RECORDER, encoding="utf-8")
    command = f"{sys.executable} {recorder} {project.logs / 'payloads.jsonl'}"
    local_file = project.app / ".claude" / "settings.local.json"
    local = json.loads(local_file.read_text(encoding="utf-8"))
    local["hooks"] = {event: [{**({"matcher": "*"} if event.endswith("ToolUse") else {}),
                               "hooks": [{"type": "command", "command": command}]}]
                      for event in EVENTS}
    local_file.write_text(json.dumps(local, indent=2), encoding="utf-8")


def drive(project: ClaudeProject) -> None:
    """The three sessions (see the module's docstring)."""
    (project.app / "durations").mkdir()
    (project.app / "durations" / "__init__.py").write_text("import re\nre.findall\n")
    (project.app / "plan.json").write_text('{"milestones": []}\n')
    project.claude("session", first_session(project.app),
                   "Why does the login test fail? Use the problem-analysis skill.")
    project.claude("compact", [{"text": "Compacted."}], "--continue", "/compact")
    project.claude("expansion", [{"text": "Looking into it."}, {"text": "Done."}],
                   "/problem-analysis why do totals drift")


#: fixture name -> which recorded payload it is (the first that matches).
WANTED: dict[str, Any] = {
    "pretooluse-bash-step-script": lambda p: p.get("tool_name") == "Bash" and
    "problem-analysis.py" in p["tool_input"].get("command", "") and
    "--run " in p["tool_input"]["command"],
    "pretooluse-webfetch": lambda p: p.get("tool_name") == "WebFetch",
    "pretooluse-edit": lambda p: p.get("tool_name") == "Edit",
    "pretooluse-skill": lambda p: p.get("tool_name") == "Skill",
    "pretooluse-subagent-read": lambda p: p.get("tool_name") == "Read" and "agent_id" in p,
    "sessionstart-compact": lambda p: p.get("hook_event_name") == "SessionStart" and
    p.get("source") == "compact",
    "stop": lambda p: p.get("hook_event_name") == "Stop" and not p.get("stop_hook_active"),
    "stop-already-continuing": lambda p: p.get("hook_event_name") == "Stop" and
    p.get("stop_hook_active") is True,
    "userpromptexpansion-skill": lambda p: p.get("hook_event_name") == "UserPromptExpansion",
}


def scrubbed(value: Any, places: dict[str, str]) -> Any:
    """`value` with each text of `places` (longest first) replaced by its stand-in."""
    if isinstance(value, dict):
        return {k: scrubbed(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [scrubbed(v, places) for v in value]
    if isinstance(value, str):
        for real, stand_in in sorted(places.items(), key=lambda p: -len(p[0])):
            value = value.replace(real, stand_in)
    return value


def capture(root: Path) -> dict[str, dict[str, Any]]:
    """The payload of each fixture, captured in a scratch project under `root` and scrubbed;
    a fixture the client did not produce is missing."""
    project = ClaudeProject(root)
    with_recorder(project)
    drive(project)
    payloads = recorded(project)
    sessions = list(dict.fromkeys(p["session_id"] for p in payloads))
    places = {str(project.app): "/home/dev/app", str(project.config): "/home/dev/.claude",
              str(root): "/home/dev", project_slug(project.app): "-home-dev-app",
              # the interpreter the printed step commands name: the project's own, as a
              # user's would be
              os.path.dirname(sys.executable): "/home/dev/app/.venv/bin",
              str(REPO): "/home/dev/skillrail",
              **{session: sessions[0] for session in sessions[1:]}}
    found = {}
    for name, matches in WANTED.items():
        first = next((p for p in payloads if matches(p)), None)
        if first is not None:
            found[name] = scrubbed(first, places)
    left = [name for name, p in found.items()
            if any(str(place) in json.dumps(p) for place in (root, REPO))]
    assert not left, f"this machine's folders are still in {left}"
    return found


def project_slug(app: Path) -> str:
    """How Claude Code names a project's folder of transcripts: its path, every character
    but a letter or digit as '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(app))


def client_version() -> str:
    done = subprocess.run([claude_binary() or "claude", "--version"], capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout.strip()


def main() -> int:
    why = why_not()
    if why:
        print(f"cannot capture: {why}", file=sys.stderr)
        return 1
    os.environ.setdefault("SKILLRAIL_HOME", tempfile.mkdtemp(prefix="skillrail-capture-"))
    with tempfile.TemporaryDirectory(prefix="skillrail-capture-") as scratch:
        found = capture(Path(scratch))
    missing = sorted(set(WANTED) - set(found))
    for name, payload in found.items():
        (FIXTURES / f"{name}.json").write_text(json.dumps(payload) + "\n", encoding="utf-8")
    print(f"captured with {client_version()}: {', '.join(sorted(found))}")
    if missing:
        print(f"not produced by the client: {', '.join(missing)}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
