"""The real Claude Code client (npm package @anthropic-ai/claude-code) driven against the
scripted fake Messages API (fakeapi.py) on 127.0.0.1, in a scratch project with skillrail's
skills copied in and its hooks installed with Claude Code's sandbox: the hooks then fire with
the real payloads and the agent's Bash runs in the real sandbox, exactly as in a user's session.

The client is `$CLAUDE_BIN`, else `claude` on PATH; tests skip (with the reason) where it is
missing, or where the sandbox cannot run (Linux needs bubblewrap and socat). Running as root,
Claude Code refuses --dangerously-skip-permissions, so a local permission allow-list is used,
and it ignores local permissions until the folder is trusted: its config folder says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ..conftest import REPO

FAKEAPI = Path(__file__).with_name("fakeapi.py")
SKILLRAIL = [sys.executable, "-m", "skills.lib.workflow.commands"]


def client_binary(variable: str, program: str) -> str | None:
    """A client's program: `$VARIABLE`, else `program` on PATH; None where neither runs."""
    found = os.environ.get(variable) or shutil.which(program)
    return found if found and os.access(found, os.X_OK) else None


def claude_binary() -> str | None:
    return client_binary("CLAUDE_BIN", "claude")


def why_not() -> str | None:
    """Why the real-client tests cannot run here, or None."""
    if claude_binary() is None:
        return ("the Claude Code client is not installed (npm install @anthropic-ai/claude-code; "
                "set CLAUDE_BIN to its bin/claude)")
    if sys.platform.startswith("linux"):
        missing = [p for p in ("bwrap", "socat") if shutil.which(p) is None]
        if missing:
            return f"Claude Code's sandbox needs {' and '.join(missing)} (apt-get install " \
                   "bubblewrap socat)"
    return None


needs_client = pytest.mark.skipif(why_not() is not None, reason=why_not() or "")


class ScratchProject:
    """What the scratch projects of every client share: commands run in the project folder
    (`app`) with the project's environment (`env`), skillrail among them, and its ledger."""

    app: Path
    env: dict[str, str]

    def start(self, origin: str | None, clone_of: Path | None) -> bool:
        """Make `app` a repository: a clone of `clone_of` (a teammate's, of a project set up
        and committed: False), else a new one with one commit and, given `origin`, that remote
        (most projects are clones: True)."""
        if clone_of is not None:
            self.sh(["git", "clone", "-q", str(clone_of), "."])
            return False
        self.sh(["git", "init", "-q"])
        (self.app / "README.md").write_text("# app\n")
        self.sh(["git", "add", "-A"])
        self.sh(["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init"])
        if origin is not None:
            self.sh(["git", "remote", "add", "origin", origin])
        return True

    def sh(self, argv: list[str]) -> str:
        done = subprocess.run(argv, cwd=self.app, env=self.env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, f"{argv}: {done.stderr}"
        return done.stdout

    def skillrail(self, *args: str) -> str:
        return self.sh([*SKILLRAIL, *args])

    def skillrail_call(self, *args: str) -> subprocess.CompletedProcess[str]:
        """A skillrail command in the project that may fail: its exit status and output."""
        return subprocess.run([*SKILLRAIL, *args], cwd=self.app, env=self.env,
                              capture_output=True, text=True, timeout=120)

    def runs(self) -> list[dict[str, str]]:
        """The ledger's runs: id, status and step, newest first."""
        rows = json.loads(self.skillrail("runs", "--json", "--limit", "all"))["runs"]
        return [{"id": r["run"], "status": r["status"], "step": r["step"]} for r in rows]

    def trace(self, run: str) -> str:
        return self.skillrail("trace", run, "--level", "full")


class ClaudeProject(ScratchProject):
    """A scratch project (a git repository) with skillrail's skills copied in, its hooks and
    the sandbox installed, and a Claude Code config folder that trusts it."""

    def __init__(self, root: Path, skills: tuple[str, ...] = ("problem-analysis",),
                 origin: str | None = None, clone_of: Path | None = None) -> None:
        self.root, self.app = root, root / "app"
        self.home, self.config, self.logs = root / "state", root / "config", root / "logs"
        for folder in (self.app, self.home, self.config, self.logs):
            folder.mkdir(parents=True)
        self.env = self._env()
        if self.start(origin, clone_of):
            self.skillrail("install", "--target", "claude", "--copy", *skills)
        self.skillrail("hooks", "install", "--sandbox")
        # The hooks' install put this machine's state folder (SKILLRAIL_HOME, not the default
        # one the shared settings name) in the unshared file: Claude Code adds it to theirs.
        mine = self.app / ".claude" / "settings.local.json"
        local = json.loads(mine.read_text()) if mine.exists() else {}
        local.setdefault("permissions", {})["allow"] = ["Bash", "Write", "Edit", "Read"]
        mine.write_text(json.dumps(local))
        trusted = {"projects": {str(self.app): {"hasTrustDialogAccepted": True,
                                                "allowedTools": []}}}
        (self.config / ".claude.json").write_text(json.dumps(trusted))

    def _env(self) -> dict[str, str]:
        venv = os.path.dirname(sys.executable)
        return {**os.environ, "PATH": f"{venv}:{os.environ.get('PATH', '')}",
                "PYTHONPATH": str(REPO / ".claude"), "SKILLRAIL_HOME": str(self.home),
                "CLAUDE_CONFIG_DIR": str(self.config), "ANTHROPIC_API_KEY": "sk-ant-fake-key",
                "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
                "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}

    def claude(self, name: str, script: Any, *args: str) -> list[dict[str, Any]]:
        """Run `claude -p ARGS` against a fake API playing `script`; the stream-json events."""
        (self.logs / f"{name}.script.json").write_text(json.dumps(script))
        server = subprocess.Popen([sys.executable, str(FAKEAPI), "--port", "0", "--script",
                                   str(self.logs / f"{name}.script.json"), "--log",
                                   str(self.logs / f"{name}.api.jsonl")],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            port = server.stdout.readline().split(":")[1].split(",")[0]
            env = {**self.env, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"}
            done = subprocess.run([claude_binary() or "claude", "-p", "--output-format",
                                   "stream-json", "--verbose", *args], cwd=self.app, env=env,
                                  capture_output=True, text=True, timeout=300)
        finally:
            server.kill()
            server.wait()
            if server.stdout is not None:
                server.stdout.close()
        (self.logs / f"{name}.out").write_text(done.stdout)
        (self.logs / f"{name}.err").write_text(done.stderr)
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def session_of(events: list[dict[str, Any]]) -> str:
    return next(str(e["session_id"]) for e in events if e.get("session_id"))


def tool_results(events: list[dict[str, Any]]) -> list[str]:
    """The text of every tool result the client sent back, in order."""
    found = []
    for event in events:
        content = event.get("message", {}).get("content") if event.get("type") == "user" else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                found.append(inner if isinstance(inner, str) else json.dumps(inner))
    return found


def wait_for(predicate: Any, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return bool(predicate())
