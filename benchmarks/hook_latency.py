#!/usr/bin/env python3
"""Benchmark: how long Claude Code waits for skillrail's hooks. Runs the hook entry as Claude Code
does (a subprocess, the payload on stdin) against `python3 -c pass`, both with a clean
interpreter (stepbench.clean_python, a user's python3), interleaved: PreToolUse with no run in
the session, with the run's own step command (allowed without loading the workflow), with
another tool (the workflow loaded to judge it), Stop and SessionStart (compact) with the run
active, and PostToolUse after a plain Bash command (which Claude Code now sends for every Bash
call: it must stay at the bare interpreter's cost) and after a step command that printed an
`<ask_user>` question (recorded in the evidence store).

Run: python benchmarks/hook_latency.py [--rounds N]
Goal (the hooks issue): well under 1 s each; a hook that times out lets the action through.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from stepbench import BARE, PYTHON, steady_state

ROOT = Path(__file__).resolve().parents[1]
ENTRY = ROOT / ".claude" / "skills" / "lib" / "workflow" / "hooks" / "entry.py"
SCRIPT = ROOT / ".claude" / "skills" / "codebase-analysis" / "scripts" / "codebase-analysis.py"
SESSION = "bench-session"


def timed(argv: list[str], stdin: str = "") -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, text=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _question(first: str) -> str:
    """The first step's document made to look like an ask_user step (what the hook looks for:
    the run, the step id, `--at N` and an <ask_user> element)."""
    return first.replace("<DO>", "<DO><ask_user step=\"x\"><question>Go on?</question>"
                                 "</ask_user>", 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="runs of each case")
    rounds = parser.parse_args().rounds
    steady_state()  # bytecode compiled, a scratch ledger
    os.environ["CLAUDE_CODE_SESSION_ID"] = SESSION
    first = subprocess.run([PYTHON, str(SCRIPT), "--step", "1"], text=True,
                           capture_output=True, check=True).stdout
    doc = ET.fromstring(first)  # a linear step's NEXT holds its command (PROTOCOL.md)
    step_cmd = (doc.findtext("NEXT/cmd") or doc.findtext("NEXT/invoke/cmd")
                or (doc.findtext("NEXT") or "").strip())
    base = {"session_id": SESSION, "cwd": os.getcwd(), "transcript_path": "/dev/null"}
    tool = dict(base, hook_event_name="PreToolUse")
    cases = {
        "PreToolUse, no run": dict(tool, session_id="other", tool_name="Read",
                                   tool_input={"file_path": "x"}),
        "PreToolUse, step script": dict(tool, tool_name="Bash", tool_input={
            "command": step_cmd + " --set X='a value'"}),
        "PreToolUse, other tool": dict(tool, tool_name="WebFetch", tool_input={"url": "x"}),
        "Stop, run active": dict(base, hook_event_name="Stop", stop_hook_active=False),
        "SessionStart, compact": dict(base, hook_event_name="SessionStart", source="compact"),
        "PostToolUse, plain Bash": dict(base, hook_event_name="PostToolUse", tool_name="Bash",
                                        tool_input={"command": "ls"},
                                        tool_response={"stdout": "a\nb\n" * 200}),
        "PostToolUse, a question": dict(base, hook_event_name="PostToolUse", tool_name="Bash",
                                        tool_input={"command": step_cmd},
                                        tool_response={"stdout": _question(first)}),
    }
    # In a session the hooks see each step printed (PostToolUse) before the agent's next tool
    # call, and keep the run's shape: PreToolUse judges tools by it.
    seen = dict(base, hook_event_name="PostToolUse", tool_name="Bash",
                tool_input={"command": "python3 " + shlex.quote(str(SCRIPT)) + " --step 1"},
                tool_response={"stdout": first})
    timed([PYTHON, str(ENTRY), "PostToolUse"], json.dumps(seen))
    bare = BARE
    print(f"interpreter: {PYTHON}  rounds: {rounds}  entry: {shlex.quote(str(ENTRY))}")
    print(f"{'case':<26} {'bare ms':>8} {'hook ms':>8} {'ratio':>6}")
    for name, payload in cases.items():
        argv = [PYTHON, str(ENTRY), payload["hook_event_name"]]
        stdin = json.dumps(payload)
        timed(argv, stdin)  # warm the caches and the bytecode
        rows = [(timed(bare), timed(argv, stdin)) for _ in range(rounds)]
        b, h = (statistics.median(col) for col in zip(*rows, strict=True))
        ratio = statistics.median(x / y for y, x in rows)
        print(f"{name:<26} {b * 1000:>8.1f} {h * 1000:>8.1f} {ratio:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
