#!/usr/bin/env python3
"""Benchmark: how the time to validate a workflow grows with its number of steps.

Registers (registration is validation: every graph and reference check) generated workflows of
100, 1,000, 10,000 and 50,000 steps, without and with memory (args that write keys, steps that
read them), shaped like real skills: a chain of segments, each a work step in a counted review
loop that escalates to the user, a branch whose deep side has a counted sub-loop, and a merge.
Also times the static step bound (`worst_case_steps`), which a run computes when it starts.

Prints, per size, the median time (and CPU time, which other processes on a busy machine do
not inflate), the time per step and the growth ratio against the size before (linear growth is
about 10x per 10x steps). Each size runs in its own process, ended
after --timeout seconds (code that grows faster than linearly may not finish the large sizes).

Run: python benchmarks/validation_scale.py [--rounds N] [--timeout S] [--sizes 100,1000,...]
Goals (issue #17, item 4): 10,000 steps validate in at most 200 ms, 50,000 in at most 1 s, and
the time grows linearly with the number of steps.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".claude"))

from skills.lib.workflow import (
    Arg,
    AskUser,
    InvalidWorkflow,
    Rework,
    StepDef,
    Workflow,
    register_workflow,
)
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.analysis import worst_case_steps

SEGMENT = 10  # steps per generated segment
GOALS = {10_000: 0.2, 50_000: 1.0}  # seconds


def segment(i: int, after: str, memory: bool) -> list[StepDef]:
    """One segment `s<i>`: plan, work and review in a review loop escalating to the user, a
    branch whose deep side loops through a probe, a merge and a record step leading to `after`.
    With `memory`, the steps write keys and read what earlier steps of every path wrote."""
    s = f"s{i}"
    key = {name: f"{name}_{i}" for name in ("PLAN", "VERDICT", "NOTE", "RESULT")}

    def args(name: str) -> tuple[Arg, ...]:
        return (Arg(key[name], "a value"),) if memory else ()

    def reads(*names: str) -> tuple[str, ...]:
        return tuple(key.get(n, n) for n in names) if memory else ()

    return [
        StepDef(f"{s}-plan", "Plan", next={"ok": f"{s}-work"}, args=args("PLAN"),
                reads=reads(f"RESULT_{i - 1}") if i else ()),
        StepDef(f"{s}-work", "Work", next={"ok": f"{s}-review"}, reads=reads("PLAN")),
        StepDef(f"{s}-review", "Review", args=args("VERDICT"),
                next={"pass": f"{s}-branch", "fail": Rework(f"{s}-work", 3, f"{s}-escalate")},
                when={"pass": "no blocking finding", "fail": "a blocking finding"}),
        StepDef(f"{s}-escalate", "Ask", next={"accept": f"{s}-branch", "abort": "abort"},
                ask_user=AskUser("Go on?", {"accept": "Go on", "abort": "Stop"})),
        StepDef(f"{s}-branch", "Choose", next={"quick": f"{s}-quick", "deep": f"{s}-deep"},
                when={"quick": "the change is small", "deep": "it is not"}),
        StepDef(f"{s}-quick", "Quick", next={"ok": f"{s}-merge"}),
        StepDef(f"{s}-deep", "Deep", next={"ok": f"{s}-probe"}, args=args("NOTE")),
        StepDef(f"{s}-probe", "Probe", reads=reads("NOTE"),
                next={"iterate": Rework(f"{s}-deep", 4, f"{s}-merge"), "ok": f"{s}-merge"},
                when={"iterate": "a lead remains", "ok": "none does"}),
        StepDef(f"{s}-merge", "Merge", next={"ok": f"{s}-record"}, reads=reads("PLAN")),
        StepDef(f"{s}-record", "Record", next={"ok": after}, args=args("RESULT"),
                reads=reads("VERDICT")),
    ]


def generated(size: int, memory: bool) -> Workflow:
    """A valid workflow of exactly `size` steps (at least 12): segments, a tail of plain steps
    to make up the count, and the two ends (done, abort)."""
    count = (size - 2) // SEGMENT
    tail = [f"pad-{j}" for j in range(size - 2 - count * SEGMENT)] + ["done"]
    steps = [st for i in range(count)
             for st in segment(i, f"s{i + 1}-plan" if i + 1 < count else tail[0], memory)]
    steps += [StepDef(t, "Pad", next={"ok": after}) for t, after in itertools.pairwise(tail)]
    steps += [StepDef("done", "Done", next={"ok": None}),
              StepDef("abort", "Abort", next={"ok": None})]
    return Workflow(f"scale-{size}{'-memory' if memory else ''}", steps)


Timing = tuple[float, float, float]  # seconds: validation (wall, CPU), the bound (wall)


def measure(size: int, memory: bool, rounds: int) -> Timing:
    """The median seconds to register (validate) the workflow, on the clock and in CPU time
    (which other processes on a busy machine do not inflate), and to compute its bound."""
    wf = generated(size, memory)
    assert len(wf.steps) == size
    found: list[Timing] = []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            register_workflow(wf)
        except InvalidWorkflow as exc:  # the generator is wrong: say so, do not time it
            sys.exit(f"generated workflow is invalid: {exc.findings[:3]}")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        unregister(wf.name)
        start = time.perf_counter()
        worst_case_steps(wf)
        found.append((wall, cpu, time.perf_counter() - start))
    wall, cpu, bound = (statistics.median(column) for column in zip(*found, strict=True))
    return wall, cpu, bound


def child(size: int, memory: bool, rounds: int, timeout: float) -> Timing | None:
    """`measure` in a process of its own, or None when it outlives `timeout`."""
    argv = [sys.executable, __file__, "--one", str(size), "--rounds", str(rounds)]
    try:
        done = subprocess.run(argv + (["--memory"] if memory else []), capture_output=True,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode:
        sys.exit(f"measuring {size} steps failed: {done.stderr.strip()}")
    wall, cpu, bound = (float(word) for word in done.stdout.split())
    return wall, cpu, bound


def report(sizes: list[int], rounds: int, timeout: float) -> None:
    print(f"{'steps':>7} {'memory':>6} {'validate ms':>12} {'cpu ms':>8} {'us/step':>8} "
          f"{'growth':>7} {'bound ms':>9} {'growth':>7}")
    for memory in (False, True):
        flag, before = ("yes" if memory else "no"), None
        for size in sizes:
            got = child(size, memory, rounds, timeout)
            if got is None:
                print(f"{size:>7} {flag:>6} {'timeout':>12}  (not done in {timeout:.0f} s)")
                before = None
                continue
            (wall, cpu, bound), grew = got, ("", "")
            if before is not None:
                grew = (f"{wall / before[0]:.1f}x", f"{bound / before[2]:.1f}x")
            print(f"{size:>7} {flag:>6} {wall * 1000:>12.1f} {cpu * 1000:>8.1f} "
                  f"{wall / size * 1e6:>8.1f} {grew[0]:>7} {bound * 1000:>9.1f} {grew[1]:>7}")
            goal = GOALS.get(size)
            if goal is not None and wall > goal:
                print(f"        goal missed: {size} steps in {wall:.3f} s (goal <= {goal} s)")
            before = got


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="validations per size (median)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds each size may take, all rounds together")
    parser.add_argument("--sizes", default="100,1000,10000,50000",
                        help="comma-separated step counts (each at least 12)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--memory", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(*measure(args.one, args.memory, args.rounds))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"interpreter: {sys.executable}  rounds: {args.rounds}  timeout: {args.timeout:.0f} s")
    report(sizes, args.rounds, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
