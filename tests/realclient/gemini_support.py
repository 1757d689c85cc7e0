"""The real Gemini CLI (npm package @google/gemini-cli) driven against the scripted fake model
(fakeapi.py, which answers the Gemini API's generateContent calls) on 127.0.0.1, in a scratch
project: `gemini -p PROMPT --yolo` runs the agent's tools with no approval asked, as a user's
session does once they are allowed. The caller sets skillrail up in the project
(`skillrail init --agents`, its hooks), as a user would.

The client is `$GEMINI_BIN`, else `gemini` on PATH; tests skip (with the reason) where it is
missing. Gemini reads its user settings from ~/.gemini, so HOME is a folder of the test's own,
whose settings.json picks API-key auth (with GOOGLE_GEMINI_BASE_URL set and no auth chosen,
Gemini takes the "gateway" auth, which headless mode refuses) and turns off everything that
reaches the network: update checks, usage statistics, telemetry, the IDE integration.
GEMINI_CLI_TRUST_WORKSPACE=true trusts the project, so Gemini reads its .gemini/settings.json
(where skillrail's hooks go); without it a headless run in an untrusted folder exits 55, and
`--skip-trust` would run but drop the project's settings. Gemini has no sandbox here (its
sandboxes are a container or macOS's seatbelt): the agent's commands run as the test's user,
with the test's environment (its virtual environment first on PATH), except that Gemini's shell
hides git's global config and turns git's hooks off (core.hooksPath="").

Without --yolo, headless Gemini does not offer its shell tool at all. Without -m it first asks a
router which model to use; the fake answers that too, but a run names its model. A script must
not repeat the same tool call (or cycle of up to five calls) five times in a row: Gemini's loop
detector then steps in with a turn of its own, which takes the script's next entry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..conftest import REPO
from . import fakeapi
from .support import ScratchProject, client_binary

FAKEAPI = Path(__file__).with_name("fakeapi.py")

#: A model Gemini CLI knows, so that it neither routes nor falls back to another.
MODEL = "gemini-2.5-flash"

#: ~/.gemini/settings.json: API-key auth, and nothing that reaches the network.
SETTINGS: dict[str, Any] = {
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "ide": {"enabled": False, "hasSeenNudge": True},
    "security": {"auth": {"selectedType": "gemini-api-key"}},
}


def gemini_binary() -> str | None:
    return client_binary("GEMINI_BIN", "gemini")


def why_not() -> str | None:
    """Why the Gemini tests cannot run here, or None."""
    if gemini_binary() is None:
        return ("the Gemini CLI is not installed (npm install @google/gemini-cli; set GEMINI_BIN "
                "to its bin/gemini)")
    return None


needs_gemini = pytest.mark.skipif(why_not() is not None, reason=why_not() or "")


class GeminiProject(ScratchProject):
    """A scratch project (a git repository), a ledger of its own and a home folder whose
    Gemini settings talk only to the fake model."""

    def __init__(self, root: Path, origin: str | None = None,
                 clone_of: Path | None = None) -> None:
        self.root, self.app = root, root / "app"
        self.home, self.user_home, self.logs = root / "state", root / "home", root / "logs"
        for folder in (self.app, self.home, self.user_home / ".gemini", self.logs):
            folder.mkdir(parents=True)
        self.settings = self.user_home / ".gemini" / "settings.json"
        self.settings.write_text(json.dumps(SETTINGS, indent=2) + "\n")
        self.env = self._env()
        self.start(origin, clone_of)

    def _env(self) -> dict[str, str]:
        venv = os.path.dirname(sys.executable)
        env = {**os.environ, "PATH": f"{venv}:{os.environ.get('PATH', '')}",
               "PYTHONPATH": str(REPO / ".claude"), "SKILLRAIL_HOME": str(self.home),
               "HOME": str(self.user_home), "GEMINI_API_KEY": "fake-gemini-key",
               "GEMINI_CLI_TRUST_WORKSPACE": "true", "TERM": "dumb"}
        # The test's own, never the caller's: a base URL or model from outside, another auth
        # (Vertex, a Google login) or a sandbox would take the run somewhere else.
        for name in ("GOOGLE_GEMINI_BASE_URL", "GEMINI_MODEL", "GOOGLE_API_KEY",
                     "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "GOOGLE_CLOUD_PROJECT",
                     "GOOGLE_APPLICATION_CREDENTIALS", "GEMINI_SANDBOX", "GEMINI_CLI_HOME",
                     "GEMINI_CLI_SYSTEM_SETTINGS_PATH"):
            env.pop(name, None)
        return env

    def gemini(self, name: str, script: Any, prompt: str, *args: str) -> list[dict[str, Any]]:
        """Run `gemini -p PROMPT --yolo -m MODEL -o stream-json ARGS` in the project against a
        fake model playing `script`; the stream-json events (logs/NAME.out, .err and
        .api.jsonl keep the run)."""
        (self.logs / f"{name}.script.json").write_text(json.dumps(script))
        server = subprocess.Popen([sys.executable, str(FAKEAPI), "--port", "0", "--script",
                                   str(self.logs / f"{name}.script.json"), "--log",
                                   str(self.logs / f"{name}.api.jsonl")],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            port = server.stdout.readline().split(":")[1].split(",")[0]
            env = {**self.env, "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}"}
            done = subprocess.run([gemini_binary() or "gemini", "-p", prompt, "--yolo", "-m",
                                   MODEL, "-o", "stream-json", *args], cwd=self.app, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=300)
        finally:
            server.kill()
            server.wait()
            if server.stdout is not None:
                server.stdout.close()
        (self.logs / f"{name}.out").write_text(done.stdout)
        (self.logs / f"{name}.err").write_text(done.stderr)
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    def results_sent(self, name: str) -> list[str]:
        """What Gemini sent the model back for each tool call of run `name`, in order, from the
        fake's log: a command's output (fakeapi.gemini_output: Gemini's <untrusted_context>
        wrapper, "Output: " label and "Process Group PGID" line taken off; "Exit Code: N"
        stays) or an error, such as a hook's refusal ("Tool execution blocked: REASON").
        Each turn resends the history, so a result counts once, by its id; the results of a
        resumed session (-r), already in the run's first turn, do not count."""
        log = self.logs / f"{name}.api.jsonl"
        sent: dict[str, str | None] = {}
        first = True
        for line in log.read_text().splitlines() if log.exists() else []:
            entry = json.loads(line)
            if not entry.get("main"):  # utility calls carry the history too, ids unstripped
                continue
            for result in function_responses(entry.get("body") or {}):
                key = str(result.get("id") or json.dumps(result, sort_keys=True))
                sent.setdefault(key, None if first else fakeapi.output_text(
                    result.get("response")))
            first = False
        return [text for text in sent.values() if text is not None]


def function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The functionResponse parts of a Gemini request's user contents, in order."""
    contents = body.get("contents")
    return [part["functionResponse"]
            for content in (contents if isinstance(contents, list) else [])
            if isinstance(content, dict) and content.get("role") == "user"
            for part in content.get("parts") or []
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)]


def tool_uses(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call Gemini made, as stream-json reports it: tool_name, tool_id, parameters."""
    return [e for e in events if e.get("type") == "tool_use"]


def tool_outputs(events: list[dict[str, Any]]) -> list[str]:
    """The output of every tool call Gemini made, in order, as stream-json reports it (the
    error message for a refused or failed one)."""
    return [str(e.get("output") or (e.get("error") or {}).get("message") or "")
            for e in events if e.get("type") == "tool_result"]
