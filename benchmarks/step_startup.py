#!/usr/bin/env python3
"""Benchmark: the cost of one `--step` invocation of each skill against `python3 -c pass` of a
clean interpreter (stepbench.clean_python, a user's python3), measured side by side
(interleaved, so machine noise hits all alike): the entry step stateless, and the entry step
starting a run in the ledger (a write transaction). Also the size of every step's output in
characters. (step_cost.py measures a mid-run step too, and flags the steps over issue 17's
goal.)

Run: python benchmarks/step_startup.py [--rounds N]
Goals (the first design note, the ledger issue): median ratio at most 3.0; the ledger adds at most
5 ms to the median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / ".claude"))

from skills.lib.workflow.tools.samples import render_samples
from skills.lib.workflow.tools.simulate import simulated_params
from stepbench import BARE, PYTHON, steady_state, timed, workflows


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="invocations per skill")
    rounds = parser.parse_args().rounds
    found = workflows()
    home, bare = steady_state(), BARE
    print(f"interpreter: {PYTHON}  rounds: {rounds}  ledger: {home}")
    print(f"{'workflow':<18} {'bare ms':>8} {'stateless':>10} {'ratio':>6} {'with run':>9} "
          f"{'ratio':>6} {'ledger +ms':>10}  output chars (min / median / max)")
    stateless_ratios, run_ratios, added = [], [], []
    for wf in found:
        step = [PYTHON, wf.source, "--step", wf.entry]
        step += [f"--{name}={value}" for name, value in simulated_params(wf).items()]
        timed(step)  # warm the file cache, the bytecode and the ledger file
        rows = [(timed(bare), timed(step + ["--stateless"]), timed(step)) for _ in range(rounds)]
        base, plain, with_run = (statistics.median(col) for col in zip(*rows, strict=True))
        stateless_ratios.append(statistics.median(s / b for b, s, _ in rows))
        run_ratios.append(statistics.median(r / b for b, _, r in rows))
        added.append((with_run - plain) * 1000)
        sizes = sorted(len(doc) for _, doc in render_samples(wf))
        print(f"{wf.name:<18} {base * 1000:>8.1f} {plain * 1000:>10.1f} "
              f"{stateless_ratios[-1]:>6.2f} {with_run * 1000:>9.1f} {run_ratios[-1]:>6.2f} "
              f"{added[-1]:>10.1f}  {sizes[0]} / {int(statistics.median(sizes))} / {sizes[-1]}")
    print(f"median ratio, stateless: {statistics.median(stateless_ratios):.2f}; with a run: "
          f"{statistics.median(run_ratios):.2f} (goal: <= 3.0); the ledger adds "
          f"{statistics.median(added):.1f} ms (goal: <= 5 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
