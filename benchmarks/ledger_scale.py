#!/usr/bin/env python3
"""Benchmark: whether the run ledger stays cheap as it fills, and what it adds to one step.

1. `skillrail status`, `runs` and `stats`, as a person types them, with an empty ledger and with
   one holding 10,000 runs of the real skills, each against `python3 -c pass` of the same clean
   interpreter, measured side by side (interleaved, so machine noise hits all alike). The runs
   are walked through their skills' real graphs with the ledger's own API: values of realistic
   length, loop counts, refusals, sub-runs, eight workspaces (the one the commands run in among
   them), and the usual leftovers: of the runs that stopped early, half abandoned and half
   still active. Goal (issue 17): each command at most 1.5x its empty-ledger time.
2. What the ledger adds to a step: the entry step stateless vs starting a run, and a mid-run
   step stateless (state in the command) vs continuing the run, over each ledger.
   Goal: at most 5 ms.

Run: python benchmarks/ledger_scale.py [--rounds N] [--runs N] [--skill NAME] [--keep]
It measures the checkout it sits in (its `.claude`, whatever is installed): to compare with
older code, copy this file into a worktree of that code and run it there.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".claude"))

from skills.lib.workflow.graph.analysis import fingerprint
from skills.lib.workflow.graph.model import Workflow
from skills.lib.workflow.ledger.store import Ledger, Run
from skills.lib.workflow.protocol.reading import asked, command
from skills.lib.workflow.protocol.reading import invokes as offered
from skills.lib.workflow.step.discovery import discover_workflows
from skills.lib.workflow.step.routing import leg, script_path
from skills.lib.workflow.tools.simulate import entry_command, simulated_params
from stepbench import BARE, PYTHON, clean, site_packages

COMMANDS = ("status", "runs", "stats")
WORDS = ("the", "cache", "misses", "because", "its", "key", "includes", "a", "timestamp;",
         "see", "src/cache.py:42", "and", "the", "failing", "test", "output", "quoted", "below,")


def timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, bytes]:
    """Wall seconds of one run of `argv` (which must exit 0), and what it printed."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, cwd=cwd, check=True)
    return time.perf_counter() - start, done.stdout


def _text(rng: random.Random) -> str:
    """A reported value: a sentence or a few paragraphs, as agents write them."""
    return " ".join(rng.choice(WORDS) for _ in range(rng.choice((8, 30, 60, 150))))


def _walk(ledger: Ledger, run: Run, wf: Workflow, rng: random.Random) -> None:
    """Advance `run` through its graph by random outcomes until it ends or is left behind."""
    stop = rng.randrange(1, 12) if rng.random() < 0.3 else None
    for _ in range(80):
        step = wf.by_id[run.step]
        if stop is not None and run.hops > stop:
            if rng.random() < 0.5:
                ledger.set_status(run.id, "abandoned", f"abandoned at {run.step}")
            elif step.decided_by == "script":  # decided when the step was printed
                ledger.decide(run.id, rng.choice(list(step.next)))
            return
        outcome = rng.choice(list(step.next))
        went = leg(step, outcome, run.counts)
        if went.target is None:
            ledger.set_status(run.id, "completed", f"ended at {run.step}")
            return
        if rng.random() < 0.05:
            ledger.event(run.id, "refused", f"an answer to '{run.step}': not yet")
        ledger.advance(run, outcome, went.target,
                       {a.key: _text(rng) for a in step.args_for(outcome)}, went.counts)
        run = run._replace(step=went.target, hops=run.hops + 1, counts=went.counts)


def fill(path: str, count: int, workflows: list[Workflow], places: list[str]) -> None:
    """`count` runs of `workflows` in the ledger at `path`, in one transaction."""
    rng = random.Random(17)
    made: list[str] = []
    with Ledger(path) as ledger:
        with ledger.transaction():
            for n in range(count):
                wf = rng.choice(workflows)
                parent = rng.choice(made[-50:]) if made and rng.random() < 0.1 else None
                run = Run(id=f"{wf.skill[:2]}-{n:06x}", skill=wf.skill, workflow=wf.name,
                          script=script_path(wf), fingerprint=fingerprint(wf),
                          workspace=rng.choice(places), session=f"session-{n // 7}",
                          params=simulated_params(wf), status="active", parent=parent,
                          step=wf.entry, decided=None, hops=1, started=0.0, updated=0.0,
                          counts={}, memory={})
                ledger.create(run)
                _walk(ledger, run, wf, rng)
                made.append(run.id)
        ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # measure a settled file


def _next(doc: bytes) -> list[str]:
    """The first command a step printed, with a value for each value it asks for."""
    invoke = offered(ET.fromstring(doc))[0]
    argv = command(invoke)
    for arg in asked(invoke):
        argv += ["--set", f"{arg.key}={arg.choices[0] if arg.choices else 'x'}"]
    return argv


def _ratio(rows: list[tuple[float, ...]], i: int, j: int) -> float:
    return statistics.median(r[i] / r[j] for r in rows)


def commands(rounds: int, envs: list[dict[str, str]], here: str) -> None:
    """Part 1: status, runs and stats at each ledger size, against a bare interpreter."""
    bare = BARE
    argvs = [[PYTHON, "-m", "skills.lib.workflow.commands", c] for c in COMMANDS]
    sizes = {c: [len(timed(a, env, here)[1]) for env in envs]
             for c, a in zip(COMMANDS, argvs, strict=True)}
    rows = []
    for _ in range(rounds):
        row = [timed(bare, envs[0], here)[0]]
        for argv in argvs:
            row += [timed(argv, env, here)[0] for env in envs]
        rows.append(tuple(row))
    base = statistics.median(r[0] for r in rows) * 1000
    print(f"\nbare interpreter: {base:.1f} ms")
    print(f"{'command':<8} {'empty ms':>9} {'x bare':>7} {'full ms':>9} {'x bare':>7} "
          f"{'full/empty':>11}  output bytes (empty / full)")
    for n, name in enumerate(COMMANDS):
        empty, full = 1 + 2 * n, 2 + 2 * n
        ms = [statistics.median(r[i] for r in rows) * 1000 for i in (empty, full)]
        print(f"{name:<8} {ms[0]:>9.1f} {_ratio(rows, empty, 0):>7.2f} {ms[1]:>9.1f} "
              f"{_ratio(rows, full, 0):>7.2f} {_ratio(rows, full, empty):>11.2f}  "
              f"{sizes[name][0]} / {sizes[name][1]}")
    print("goal: full/empty <= 1.5")


def steps(rounds: int, envs: list[dict[str, str]], labels: list[str], wf: Workflow,
          here: str) -> None:
    """Part 2: the ledger's cost in one step, entry and mid-run, at each ledger size."""
    entry = clean(entry_command(wf))
    stateless_mid = _next(timed(entry + ["--stateless"], envs[0], here)[1])
    print(f"\n{wf.name}: ms per step (median); the ledger's cost = with run - stateless")
    print(f"{'ledger':<12} {'step':<8} {'stateless':>10} {'with run':>9} {'ledger +ms':>11}")
    for env, label in zip(envs, labels, strict=True):
        timed(entry, env, here)  # warm the file cache and the ledger
        rows = []
        for _ in range(rounds):
            started, doc = timed(entry, env, here)
            rows.append((timed(entry + ["--stateless"], env, here)[0], started,
                         timed(stateless_mid, env, here)[0],
                         timed(clean(_next(doc)), env, here)[0]))
        for name, i in (("entry", 0), ("mid-run", 2)):
            plain, with_run = (statistics.median(r[k] for r in rows) * 1000 for k in (i, i + 1))
            added = statistics.median(r[i + 1] - r[i] for r in rows) * 1000
            print(f"{label:<12} {name:<8} {plain:>10.1f} {with_run:>9.1f} {added:>11.1f}")
    print("goal: the ledger adds <= 5 ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="runs of each measurement")
    parser.add_argument("--runs", type=int, default=10_000, help="runs in the full ledger")
    parser.add_argument("--skill", default="problem-analysis", help="the skill for part 2")
    parser.add_argument("--keep", action="store_true", help="keep the ledgers (in /tmp) after")
    ns = parser.parse_args()
    found = discover_workflows(ROOT / ".claude" / "skills")
    mains = [wf for wf in found.workflows if wf.name == wf.skill]
    picked = [wf for wf in found.workflows if wf.skill == ns.skill]
    if found.errors or not picked:
        print(f"cannot benchmark: no skill '{ns.skill}', or skills fail to load", file=sys.stderr)
        return 1
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # The steady state: bytecode compiled once, as any real install has it.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / ".claude")], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    top = tempfile.mkdtemp(prefix="skillrail-scale-")
    places = [os.path.join(top, f"project-{k}") for k in range(8)]
    for place in places:
        os.mkdir(place)
    homes = [os.path.join(top, "empty"), os.path.join(top, "full")]
    began = time.perf_counter()
    fill(os.path.join(homes[1], "runs.sqlite3"), ns.runs, mains, places)
    with Ledger(os.path.join(homes[0], "runs.sqlite3")):
        pass  # an empty, created ledger
    print(f"interpreter: {PYTHON}  rounds: {ns.rounds}  code: {ROOT}")
    print(f"filled {ns.runs} runs in {time.perf_counter() - began:.1f} s: {top}")
    # The clean interpreter finds the framework, and its libraries, without this environment's
    # start-up hooks (stepbench.clean_python).
    path = f"{ROOT / '.claude'}:{site_packages()}"
    envs = [dict(env, PYTHONPATH=path, SKILLRAIL_HOME=h) for h in homes]
    try:
        commands(ns.rounds, envs, places[0])
        steps(ns.rounds, envs, ["empty", f"{ns.runs} runs"], picked[0], places[0])
    finally:
        if not ns.keep:
            shutil.rmtree(top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
