#!/usr/bin/env python3
"""Benchmark: what the security gateway costs a step that injects commands. commit-message's
first step injects `git diff --cached --stat` and `git log -n 20 --format=%s`; it is printed
(stateless) in a scratch repository, interleaved with a bare `python3 -c pass` of the same clean
interpreter, under the policy layer alone (the user's `SKILLRAIL_SANDBOX=off`; a project's
file cannot turn the sandbox off) and inside bubblewrap (`sandbox: required`, when bwrap is
installed). Each command the gateway runs pays for its allow-list check, a `git rev-parse` to
check where the repository is and a `git config --list` to neutralise its config, and a bwrap
start (with the sandbox) or a supervisor's (without); this shows what that adds up to.

Run: python benchmarks/gateway_cost.py [--rounds N]
Goal (issue 15): the sandbox adds at most a few tens of milliseconds to such a step.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from stepbench import BARE, PYTHON

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".claude" / "skills" / "commit-message" / "scripts" / "commit-message.py"


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - start


def repository() -> Path:
    repo = Path(tempfile.mkdtemp(prefix="skillrail-gateway-bench-"))
    for argv in (["git", "init", "-q"], ["git", "commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(argv, cwd=repo, check=True, env={
            **os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
            "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"})
    (repo / "a.txt").write_text("a\n")
    subprocess.run(["git", "add", "a.txt"], cwd=repo, check=True)
    (repo / ".claude").mkdir()
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="runs of each case")
    rounds = parser.parse_args().rounds
    os.environ["SKILLRAIL_HOME"] = tempfile.mkdtemp(prefix="skillrail-gateway-bench-home-")
    repo = repository()
    modes = ["off"] + (["required"] if shutil.which("bwrap") else [])
    step = [PYTHON, str(SCRIPT), "--step", "1", "--stateless"]
    bare = BARE
    print(f"interpreter: {PYTHON}  rounds: {rounds}")
    print(f"{'sandbox':<10} {'bare ms':>8} {'step ms':>8} {'ratio':>6}")
    medians = {}
    for mode in modes:
        (repo / ".claude" / "skillrail.yaml").write_text(
            "version: 2\n" + ("sandbox: required\n" if mode == "required" else ""))
        os.environ["SKILLRAIL_SANDBOX"] = mode  # the step inherits it
        timed(step, repo)  # warm the caches and the bytecode
        rows = [(timed(bare, repo), timed(step, repo)) for _ in range(rounds)]
        b, s = (statistics.median(col) for col in zip(*rows, strict=True))
        medians[mode] = s
        ratio = statistics.median(x / y for y, x in rows)
        print(f"{mode:<10} {b * 1000:>8.1f} {s * 1000:>8.1f} {ratio:>6.2f}")
    if "required" in medians:
        added = (medians["required"] - medians["off"]) * 1000
        print(f"bubblewrap adds {added:.1f} ms to the step (two commands)")
    else:
        print("bubblewrap is not installed: only the policy layer was measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
