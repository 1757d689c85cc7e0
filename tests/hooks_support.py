"""Helpers of the hook tests: a project with a skill whose steps restrict tools, an agent that
runs its printed commands in a Claude Code session, and the hook entry run as Claude Code runs
it (a subprocess, the payload on stdin, the answer on stdout)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from .conftest import REPO, SKILLS_ROOT
from .harness import cmd_text, outcome_of, shell
from .harness import offered as invokes

ENTRY = SKILLS_ROOT / "lib" / "workflow" / "hooks" / "entry.py"
FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
#: `skillrail` run from this checkout (the Bash of a project where skillrail is not installed).
SKILLRAIL = [sys.executable, "-m", "skills.lib.workflow.commands"]
#: The session id of every fixture payload.
SESSION = json.loads((FIXTURES / "stop.json").read_text())["session_id"]

_HEAD = f'''import sys

sys.path.insert(0, {str(REPO / ".claude")!r})
from skills.lib.workflow import (Action, Arg, AskUser, Dispatch, StepDef, Workflow, main,
                                 register_workflow)
'''
#: look (Read, Grep, git log) -> ask (SKILL.md's allowed-tools) -> change (Edit, Read) -> done.
GUARDED = _HEAD + '''
WORKFLOW = register_workflow(Workflow(name="guarded", steps=[
    StepDef("look", "Look around", actions=[Action("Read the code.", out="FOUND")],
            args=[Arg("FOUND", "what you found")], tools=["Read", "Grep", "Bash(git log:*)"],
            next={"ok": "ask"}),
    StepDef("ask", "Ask the user", ask_user=AskUser("Change it?", {"approve": "yes",
                                                                  "reject": "no"}),
            next={"approve": "change", "reject": "done"}),
    StepDef("change", "Change", actions=["Edit the file."], tools=["Edit", "Read"],
            next={"ok": "review"}),
    StepDef("review", "Review", actions=["Hand the change to a reviewer; relay the reply."],
            dispatch=Dispatch("reviewer", "Review the change.", "PASS or FAIL",
                              script="scripts/check.py"),
            tools=[], next={"ok": "done"}),
    StepDef("done", "Done", actions=["Report."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''
#: The reviewer's sub-run: one step that may only read.
CHECK = _HEAD + '''
WORKFLOW = register_workflow(Workflow(name="guarded-check", steps=[
    StepDef("inspect", "Inspect", actions=["Read the change."], tools=["Read"],
            next={"ok": "verdict"}),
    StepDef("verdict", "Verdict", actions=["Say PASS or FAIL."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''
SKILL_MD = """---
name: guarded
description: A test skill whose steps restrict the tools.
allowed-tools: Read, "Bash(git status:*)"
---
Run ${CLAUDE_SKILL_DIR}/scripts/guarded.py --step look
"""


def make_project(root: Path) -> Path:
    """A project at `root` with the skill 'guarded'; returns the skill's folder."""
    skill = root / ".claude" / "skills" / "guarded"
    (skill / "scripts").mkdir(parents=True)
    (skill / "scripts" / "guarded.py").write_text(GUARDED)
    (skill / "scripts" / "check.py").write_text(CHECK)
    (skill / "SKILL.md").write_text(SKILL_MD)
    return skill


def env(session: str | None = SESSION) -> dict[str, str]:
    """The environment of a Bash tool process (or a hook) in the Claude Code session."""
    # skillrail's programs on PATH (`skillrail-hook` among them), as for a user who installed it
    path = os.pathsep.join([os.path.dirname(sys.executable),
                            os.environ.get("PATH", "/usr/bin:/bin")])
    base = {"PATH": path, "PYTHONPATH": str(REPO / ".claude"),
            "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"], "HOME": os.environ.get("HOME", "/"),
            "CODEX_HOME": os.environ["CODEX_HOME"]}
    return base | ledger_env() | ({"CLAUDE_CODE_SESSION_ID": session} if session else {})


def ledger_env() -> dict[str, str]:
    """SKILLRAIL_LEDGER when the test set it (a ledger test on PostgreSQL), for the commands a
    test runs with an environment of its own."""
    url = os.environ.get("SKILLRAIL_LEDGER")
    return {"SKILLRAIL_LEDGER": url} if url else {}


class Agent:
    """Runs a skill's commands in the project, inside the session, as the agent's Bash would
    (no terminal: stdin is not a TTY); `terminal=True`: as a person at a terminal would."""

    def __init__(self, project: Path, session: str | None = SESSION,
                 terminal: bool = False) -> None:
        self.project, self.session, self.terminal = project, session, terminal

    def call(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """Run `argv` in the project; without a terminal, in this process as a new interpreter
        would (harness.agent), unless it is no Python script or skillrail command."""
        if not self.terminal:
            return shell(argv, cwd=self.project, env=env(self.session))
        import pty

        leader, follower = pty.openpty()
        try:
            return subprocess.run(argv, capture_output=True, text=True, cwd=self.project,
                                  env=env(self.session), timeout=60, stdin=follower)
        finally:
            os.close(leader)
            os.close(follower)

    def run(self, argv: list[str]) -> ET.Element:
        proc = self.call(argv)
        assert proc.returncode == 0, proc.stderr
        return ET.fromstring(proc.stdout)

    def start(self, script: str = "guarded.py", *flags: str) -> ET.Element:
        path = self.project / ".claude" / "skills" / "guarded" / "scripts" / script
        return self.run([sys.executable, str(path), "--step", "1", *flags])

    def follow(self, doc: ET.Element, outcome: str | None = None, **values: str) -> ET.Element:
        return self.run(command(doc, outcome, **values))


def command(doc: ET.Element, outcome: str | None = None, **values: str) -> list[str]:
    """The argv of the `<NEXT>` command for `outcome`, with `--set` values."""
    found = [i for i in invokes(doc) if outcome in (None, outcome_of(i))]
    assert len(found) == 1
    argv = shlex.split(cmd_text(found[0]))
    for key, value in values.items():
        argv += ["--set", f"{key}={value}"]
    return argv


class Session(Agent):
    """An agent in a Claude Code session whose project has skillrail's hooks installed: every
    step command it runs is followed by the PostToolUse hook with the command's output, as
    Claude Code does; `user_says` is a UserPromptSubmit."""

    def __init__(self, project: Path, session: str = SESSION) -> None:
        super().__init__(project, session)
        done = self.call([*SKILLRAIL, "hooks", "install"])
        assert done.returncode == 0, done.stderr

    def call(self, argv: list[str], seen: bool = True) -> subprocess.CompletedProcess[str]:
        """Run `argv` as the Bash tool would; `seen=False`: as if its output never reached
        Claude Code (no PostToolUse)."""
        proc = super().call(argv)
        if seen and getattr(self, "session", None):
            after = payload("pretooluse-bash-step-script", hook_event_name="PostToolUse",
                            session_id=self.session, cwd=str(self.project),
                            tool_input={"command": shlex.join(argv)},
                            tool_response={"stdout": proc.stdout, "stderr": proc.stderr})
            hook("PostToolUse", after, self.session)
        return proc

    def user_says(self, text: str = "yes, go on") -> None:
        prompt = payload("stop", hook_event_name="UserPromptSubmit", prompt=text,
                         session_id=self.session, cwd=str(self.project))
        hook("UserPromptSubmit", prompt, self.session)


def next_cmd(doc: ET.Element, outcome: str | None = None) -> str:
    return " ".join(shlex.quote(w) for w in command(doc, outcome))


def payload(name: str, **fields: Any) -> dict[str, Any]:
    """The fixture payload `name` (tests/fixtures/hooks/NAME.json) with `fields` replaced."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return data | fields


def bash(project: Path, command_text: str, **fields: Any) -> dict[str, Any]:
    """A PreToolUse payload for the Bash command `command_text`, run in `project`."""
    return payload("pretooluse-bash-step-script", cwd=str(project),
                   tool_input={"command": command_text, "description": "a command"}, **fields)


def hook(event: str, data: dict[str, Any] | str | bytes, session: str | None = SESSION,
         process: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the hook entry for `event` as Claude Code does (its argv, the payload on stdin, the
    session's environment); it must always exit 0. In this process as a new interpreter would
    run it (harness.agent); with `process`, in a new interpreter, as the client starts it (the
    real client's own tests, tests/realclient, start every hook so)."""
    text = data if isinstance(data, str | bytes) else json.dumps(data)
    proc = shell([sys.executable, str(ENTRY), event], env=env(session),
                 stdin=text.decode() if isinstance(text, bytes) else text, process=process)
    assert proc.returncode == 0, proc.stderr
    return proc


def answer(event: str, data: dict[str, Any] | str) -> dict[str, Any] | None:
    """The hook's JSON answer, or None when it said nothing (the action goes through)."""
    out = hook(event, data).stdout.strip()
    return json.loads(out) if out else None


def denial(data: dict[str, Any]) -> str | None:
    """The deny reason of a PreToolUse answer; None when the tool is allowed."""
    out = answer("PreToolUse", data)
    if out is None:
        return None
    decision = out["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse"
    assert decision["permissionDecision"] == "deny"
    return str(decision["permissionDecisionReason"])
