#!/usr/bin/env python3
"""Benchmark: what one step costs an agent, for every workflow, against `python3 -c pass` of a
clean interpreter (stepbench.clean_python, a user's python3, which runs the steps too). Each
round runs, interleaved (so machine noise hits all alike): the bare
interpreter, the entry step as an agent starts it (a run begins in a scratch ledger), and a
mid-run step: the command that entry printed on the shortest way to the run's end, with a value
for every arg it asks (as `skillrail simulate` supplies them), continuing that same run. Steps
run from a scratch git repository. A step that printed a `<context>` ran commands through the
gateway (sandboxed git, see gateway_cost.py): its column is marked `+cmd`, and its cost is
mostly theirs.

With `--instructions`, each command runs once under callgrind instead, and the ratios are of
the instructions the step's own process executed (steady, whatever the machine's load; the
commands a step runs are not counted).

Run: python benchmarks/step_cost.py [--rounds N | --instructions] [WORKFLOW ...]
Goal (issue 17, a lean hot path): every entry and mid-run step at most 2.5x the bare
interpreter (the median over rounds of the per-round ratio); rows over it are flagged `!`.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / ".claude"))

from skills.lib.workflow.graph.model import Workflow
from skills.lib.workflow.protocol.reading import command
from skills.lib.workflow.protocol.reading import invokes as offered
from skills.lib.workflow.tools.simulate import Walker, entry_command
from stepbench import (
    BARE,
    PYTHON,
    captured,
    clean,
    ratio,
    repository,
    steady_state,
    workflows,
)

GOAL = 2.5
#: One command run: (its cost, its stdout).
Runner = Callable[[list[str], Path], tuple[float, str]]


def to_end(wf: Workflow) -> dict[str, int]:
    """Steps from each step to the end of a run (a step that may end it is 0 away)."""
    into: dict[str, set[str]] = {}
    for edge in wf.edges:
        if edge.target is not None:
            into.setdefault(edge.target, set()).add(edge.source)
    ends = [e.source for e in wf.edges if e.target is None]
    found, frontier = dict.fromkeys(ends, 0), list(ends)
    while frontier:
        step = frontier.pop(0)
        for before in sorted(into.get(step, ())):
            if before not in found:
                found[before] = found[step] + 1
                frontier.append(before)
    return found


def next_command(wf: Workflow, walker: Walker, document: str) -> list[str] | None:
    """The command `document` printed that heads for the run's end soonest, args supplied;
    None when the step ends the run (a one-step workflow has no mid-run step)."""
    root = ET.fromstring(document)
    invokes = offered(root)
    if not invokes:
        return None
    far = to_end(wf)

    def distance(invoke: ET.Element) -> int:
        cmd = command(invoke)
        return far.get(cmd[cmd.index("--step") + 1], len(wf.steps))

    return walker.supply(min(invokes, key=distance), source=wf.by_id.get(root.get("id", "")))


class Measured(NamedTuple):
    rows: list[list[float]]  # per round: bare, entry and mid-run (when there is one)
    mid: str  # the mid-run step's id, or "-"
    marks: tuple[str, str]  # "+cmd" where the step ran commands through the gateway


def measure(wf: Workflow, rounds: int, repo: Path, run: Runner) -> Measured:
    """Interleaved rounds of the bare interpreter, the entry step starting a run, and the
    mid-run step continuing it. `run` gives (cost, stdout) of one command."""
    walker = Walker(wf, str(repo), dict(os.environ))
    entry = entry_command(wf)
    rows, mid_id, marks = [], "-", ("", "")
    for n in range(rounds + 1):  # the first round warms the file cache and the ledger
        row = [run(BARE, repo)[0]]
        cost, document = run(clean(entry), repo)
        row.append(cost)
        mid = next_command(wf, walker, document)
        shown = ""
        if mid is not None:
            cost, shown = run(clean(mid), repo)
            row.append(cost)
            mid_id = mid[mid.index("--step") + 1]
        marks = tuple("+cmd" if "<context " in text else "" for text in (document, shown))
        if n or rounds == 0:
            rows.append(row)
    return Measured(rows, mid_id, marks)  # type: ignore[arg-type]


def instructions(argv: list[str], cwd: Path) -> tuple[float, str]:
    """(instructions the process executed, its stdout), counted by callgrind: the process's
    own work, not its children's (the commands a step runs through the gateway)."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *argv], cwd=cwd, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        sys.exit(f"callgrind counted nothing for {shlex.join(argv)}: {done.stderr[-300:]}")
    return float(found.group(1)), done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds per workflow")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions with callgrind (one round) instead of time")
    parser.add_argument("names", nargs="*", metavar="WORKFLOW", help="only these workflows")
    ns = parser.parse_args()
    found = workflows(ns.names)
    home, repo = steady_state(), repository()
    run: Runner = instructions if ns.instructions else captured
    rounds = 0 if ns.instructions else ns.rounds
    unit = "Minstr" if ns.instructions else "ms"
    print(f"interpreter: {PYTHON}  {'callgrind' if rounds == 0 else f'rounds: {rounds}'}"
          f"  ledger: {home}  cwd: {repo}")
    print(f"{'workflow':<26} {'bare':>7} {'entry':>7} {'ratio':>10} {'mid-run step':<22} "
          f"{'mid':>7} {'ratio':>10}   ({unit})")
    over: list[str] = []
    for wf in found:
        m = measure(wf, rounds, repo, run)
        cells = []
        for column, step in ((1, wf.entry), (2, m.mid)):
            if column >= len(m.rows[0]):
                cells += ["-", "-"]
                continue
            value = ratio(m.rows, column)
            if value > GOAL:
                over.append(f"{wf.name}:{step}")
            flag = "!" if value > GOAL else " "
            cells += [f"{scaled(m.rows, column, ns.instructions):.1f}",
                      f"{value:.2f}{flag}{m.marks[column - 1]}"]
        print(f"{wf.name:<26} {scaled(m.rows, 0, ns.instructions):>7.1f} {cells[0]:>7} "
              f"{cells[1]:<10} {m.mid:<22} {cells[2]:>7} {cells[3]:<10}")
    print(f"over {GOAL}x: {len(over)} steps" + (f" ({', '.join(over)})" if over else ""))
    return 0


def scaled(rows: list[list[float]], column: int, counted: bool) -> float:
    """A column's median in the unit shown: milliseconds, or millions of instructions."""
    value = statistics.median(row[column] for row in rows)
    return value / 1e6 if counted else value * 1000


if __name__ == "__main__":
    sys.exit(main())
