#!/usr/bin/env python3
"""Benchmark: the cost of one `--step` invocation of each skill against `python -c pass` with the
same interpreter, measured side by side (interleaved, so machine noise hits both alike), and the
size of every step's output in characters.

Run: python benchmarks/step_startup.py [--rounds N]
Goal (DESIGN.md section 3): median ratio at most 3.0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".claude"))

from skills.lib.workflow.discovery import discover_workflows
from skills.lib.workflow.samples import render_samples


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="invocations per skill")
    rounds = parser.parse_args().rounds
    found = discover_workflows(ROOT / ".claude" / "skills")
    if found.errors or not found.workflows:
        print("cannot benchmark: " + "; ".join(e.message for e in found.errors), file=sys.stderr)
        return 1
    bare = [sys.executable, "-c", "pass"]
    print(f"interpreter: {sys.executable}  rounds: {rounds}  cwd: {os.getcwd()}")
    print(f"{'workflow':<20} {'bare ms':>8} {'step ms':>8} {'ratio':>6}  output chars "
          "(min / median / max over every step shape)")
    ratios = []
    for wf in found.workflows:
        step = [sys.executable, wf.source, "--step", wf.entry]
        step += [f"--{p.name}=benchmark value" for p in wf.params]
        timed(step)  # warm the file cache and bytecode
        pairs = [(timed(bare), timed(step)) for _ in range(rounds)]
        base = statistics.median(b for b, _ in pairs)
        cost = statistics.median(s for _, s in pairs)
        ratio = statistics.median(s / b for b, s in pairs)
        ratios.append(ratio)
        sizes = sorted(len(doc) for _, doc in render_samples(wf))
        print(f"{wf.name:<20} {base * 1000:>8.1f} {cost * 1000:>8.1f} {ratio:>6.2f}  "
              f"{sizes[0]} / {int(statistics.median(sizes))} / {sizes[-1]}")
    overall = statistics.median(ratios)
    print(f"median ratio over all workflows: {overall:.2f} (goal: <= 3.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
