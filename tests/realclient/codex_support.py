"""The real Codex CLI (npm package @openai/codex) driven against the scripted fake model
(fakeapi.py, which answers Codex's Responses API calls) on 127.0.0.1, in a scratch project:
`codex exec` runs the agent's commands in its own sandbox (`-s workspace-write`), exactly as in
a user's session. The caller sets skillrail up in the project (`skillrail init --agents`, its
hooks), as a user would.

The client is `$CODEX_BIN`, else `codex` on PATH; tests skip (with the reason) where it is
missing. Codex reads its config from CODEX_HOME, here a folder of the test's own: the fake model
as its provider, the project trusted, and nothing that reaches the network (update checks,
analytics, feedback, the plugin catalog). Two things differ from a user's machine on purpose:
Codex will not make its sandbox's helper under the temporary folder, so TMPDIR is a folder of
the test's own and CODEX_HOME, beside it, is not inside it; and the agent's commands run in a
plain (not login) shell, so they see the PATH the test gives (its virtual environment first)
rather than the one the system's /etc/profile sets.

Under `-s workspace-write` Codex lets a command write the project (but not its `.git`, `.codex`
or `.agents`), /tmp and TMPDIR. The test's folders all lie under /tmp, so here a command may
write the ledger (SKILLRAIL_HOME) and CODEX_HOME, as it may not on a user's machine where they
lie in the home folder; to take /tmp away, add `[sandbox_workspace_write]`
`exclude_slash_tmp = true` and `exclude_tmpdir_env_var = true` to `config`.
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

#: A model Codex knows: it then offers the tools a user's session has (apply_patch among them)
#: and does not warn of missing model metadata.
MODEL = "gpt-5.5"


def codex_binary() -> str | None:
    return client_binary("CODEX_BIN", "codex")


def why_not() -> str | None:
    """Why the Codex tests cannot run here, or None."""
    if codex_binary() is None:
        return ("the Codex CLI is not installed (npm install @openai/codex; set CODEX_BIN to its "
                "bin/codex)")
    return None


needs_codex = pytest.mark.skipif(why_not() is not None, reason=why_not() or "")


_FEATURES: dict[str, frozenset[str]] = {}


def features(binary: str, env: dict[str, str]) -> frozenset[str]:
    """The feature flags this Codex knows (`--disable` of an unknown one is an error), asked
    once per binary."""
    if binary not in _FEATURES:
        done = subprocess.run([binary, "features", "list"], env=env, capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
        _FEATURES[binary] = frozenset(line.split()[0] for line in done.stdout.splitlines()
                                      if line.strip())
    return _FEATURES[binary]


def toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


class CodexProject(ScratchProject):
    """A scratch project (a git repository), a ledger of its own and a Codex config folder
    that trusts the project and talks only to the fake model."""

    def __init__(self, root: Path, origin: str | None = None,
                 clone_of: Path | None = None) -> None:
        self.root, self.app = root, root / "app"
        self.home, self.codex_home, self.logs = root / "state", root / "codex-home", root / "logs"
        self.user_home, self.tmp = root / "home", root / "tmp"
        for folder in (self.app, self.home, self.codex_home, self.logs, self.user_home,
                       self.tmp):
            folder.mkdir(parents=True)
        self.config = self.codex_home / "config.toml"
        self.config.write_text(self._config())
        self.env = self._env()
        self.start(origin, clone_of)

    def _config(self) -> str:
        # base_url is given on each run's command line (-c), where the fake's port is known;
        # the one here answers nothing, so a run without it fails at once.
        return "\n".join([
            f"model = {toml_string(MODEL)}",
            'model_provider = "fake"',
            "check_for_update_on_startup = false",
            "allow_login_shell = false",
            "",
            "[model_providers.fake]",
            'name = "Fake"',
            'base_url = "http://127.0.0.1:9/v1"',
            'env_key = "FAKE_API_KEY"',
            'wire_api = "responses"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[feedback]",
            "enabled = false",
            "",
            "[features]",
            "plugins = false",  # else it asks api.github.com and chatgpt.com for the catalog
            "",
            # A user's Codex writes only the workspace and the temporary folders: this test's
            # folders (the ledger, CODEX_HOME) lie under /tmp, which it would let commands
            # write, so that is taken away; skillrail's hooks install adds the ledger's folder.
            "[sandbox_workspace_write]",
            "exclude_slash_tmp = true",
            "exclude_tmpdir_env_var = true",
            "",
            f"[projects.{toml_string(str(self.app))}]",
            'trust_level = "trusted"',
            ""])

    def _env(self) -> dict[str, str]:
        venv = os.path.dirname(sys.executable)
        return {**os.environ, "PATH": f"{venv}:{os.environ.get('PATH', '')}",
                "PYTHONPATH": str(REPO / ".claude"), "SKILLRAIL_HOME": str(self.home),
                "CODEX_HOME": str(self.codex_home), "HOME": str(self.user_home),
                "TMPDIR": str(self.tmp), "FAKE_API_KEY": "sk-fake-key"}

    def codex(self, name: str, script: Any, prompt: str, *args: str) -> list[dict[str, Any]]:
        """Run `codex exec --json ARGS PROMPT` in the project's sandbox against a fake model
        playing `script`; the JSONL events (logs/NAME.out, .err and .api.jsonl keep the run)."""
        binary = codex_binary() or "codex"
        (self.logs / f"{name}.script.json").write_text(json.dumps(script))
        server = subprocess.Popen([sys.executable, str(FAKEAPI), "--port", "0", "--script",
                                   str(self.logs / f"{name}.script.json"), "--log",
                                   str(self.logs / f"{name}.api.jsonl")],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            port = server.stdout.readline().split(":")[1].split(",")[0]
            url = f"http://127.0.0.1:{port}/v1"
            fail_fast = (["--disable", "unbounded_connection_retries"]
                         if "unbounded_connection_retries" in features(binary, self.env) else [])
            done = subprocess.run([binary, "exec", "--json", "--skip-git-repo-check", "-s",
                                   "workspace-write", *fail_fast, "-c",
                                   f"model_providers.fake.base_url={toml_string(url)}", *args,
                                   prompt], cwd=self.app, env=self.env,
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
        """What Codex sent the model back for each tool call of run `name`, in order, from the
        fake's log: a command's output (Codex's "Chunk ID: ... Output:" header taken off) or a
        hook's refusal ("Command blocked by PreToolUse hook: REASON. Command: ..."), which
        `tool_outputs` lacks: a refused command gives no command_execution event."""
        log = self.logs / f"{name}.api.jsonl"
        sent: dict[str, str] = {}
        for line in log.read_text().splitlines() if log.exists() else []:
            items = (json.loads(line).get("body") or {}).get("input")
            for item in items if isinstance(items, list) else []:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    sent.setdefault(str(item.get("call_id")),
                                    fakeapi.output_text(item.get("output")))
        return list(sent.values())


def commands(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every command Codex ran, as `codex exec --json` reports it when done: the
    command_execution item (command, aggregated_output, exit_code, status), in order."""
    return [e["item"] for e in events if e.get("type") == "item.completed"
            and e.get("item", {}).get("type") == "command_execution"]


def tool_outputs(events: list[dict[str, Any]]) -> list[str]:
    """The output (stdout and stderr together) of every command Codex ran, in order."""
    return [str(item.get("aggregated_output") or "") for item in commands(events)]
