#!/usr/bin/env python3
"""Benchmark: what a step costs with the team ledger on PostgreSQL against this machine's SQLite
ledger and against `python3 -c pass`, all with a clean interpreter (stepbench.clean_python, a
user's python3; psycopg from this environment on its path). Each round runs, interleaved (so
machine noise hits all alike): the bare interpreter, then for each backend the entry step
starting a run (a write transaction) and the mid-run step continuing it (read, check, advance),
as step_cost.py picks them.

The server is a throwaway cluster on a Unix socket (tests/pgserver.py) with fsync on, as a
real server has it; `--url` measures a server of your own instead (a team's, over the network).

Run: python benchmarks/ledger_backends.py [--rounds N] [--url postgresql://...] [WORKFLOW ...]
What to read: the PostgreSQL steps' ratio to the bare interpreter beside SQLite's, and the
milliseconds PostgreSQL adds to a step (connecting, the driver's import, the round trips).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.pgserver

from skills.lib.workflow.graph.model import Workflow
from skills.lib.workflow.tools.simulate import Walker, entry_command
from step_cost import next_command
from stepbench import (
    BARE,
    PYTHON,
    captured,
    clean,
    ratio,
    repository,
    site_packages,
    steady_state,
    workflows,
)

BACKENDS = ("sqlite", "postgresql")


@contextmanager
def server(url: str | None) -> Iterator[str]:
    """The URL to measure: `url`, else a throwaway cluster's, made for this run and removed."""
    if url:
        yield url
        return
    from tests.pgserver import PgServer

    why = PgServer.why_not()
    if why:
        sys.exit(f"cannot start a PostgreSQL server: {why} (or give --url)")
    with PgServer(settings={"fsync": "on", "full_page_writes": "on"}) as pg:
        yield pg.fresh_database()


def measure(wf: Workflow, rounds: int, repo: Path, ledgers: dict[str, str]) -> list[list[float]]:
    """Per round: bare, then entry and mid-run step on each backend in BACKENDS's order."""
    walker = Walker(wf, str(repo), dict(os.environ))
    rows = []
    for n in range(rounds + 1):  # the first round warms the caches, the ledgers, the server
        row = [captured(BARE, repo)[0]]
        for backend in BACKENDS:
            os.environ["SKILLRAIL_LEDGER"] = ledgers[backend]
            cost, document = captured(clean(entry_command(wf)), repo)
            mid = next_command(wf, walker, document)
            row += [cost, captured(clean(mid), repo)[0] if mid else float("nan")]
        if n:
            rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds per workflow")
    parser.add_argument("--url", help="a PostgreSQL server to measure (default: a throwaway "
                                      "cluster on a Unix socket)")
    parser.add_argument("names", nargs="*", metavar="WORKFLOW", help="only these workflows")
    ns = parser.parse_args()
    found, home, repo = workflows(ns.names), steady_state(), repository()
    # psycopg for the clean interpreter, without this environment's start-up hooks; every
    # command of a round gets the same path.
    os.environ["PYTHONPATH"] = site_packages()
    with server(ns.url) as url:
        ledgers = {"sqlite": os.path.join(home, "runs.sqlite3"), "postgresql": url}
        print(f"interpreter: {PYTHON}  rounds: {ns.rounds}  cwd: {repo}")
        print(f"{'workflow':<26} {'bare':>6} {'sqlite entry':>13} {'mid':>11} "
              f"{'postgresql entry':>17} {'mid':>11}   (ms, ratio to bare)")
        ratios: dict[int, list[float]] = {c: [] for c in range(1, 5)}
        added: list[float] = []
        for wf in found:
            rows = measure(wf, ns.rounds, repo, ledgers)
            cells = [f"{_ms(rows, 0):>6.1f}"]
            for column in range(1, 5):
                value = ratio(rows, column)
                if value != value:  # NaN: its entry step printed no command to go on with
                    cells.append("-")
                    continue
                ratios[column].append(value)
                cells.append(f"{_ms(rows, column):>6.1f} {value:>4.2f}x")
            added += [_ms(rows, c + 2) - _ms(rows, c) for c in (1, 2)
                      if _ms(rows, c + 2) == _ms(rows, c + 2)]
            print(f"{wf.name:<26} {cells[0]} {cells[1]:>13} {cells[2]:>11} {cells[3]:>17} "
                  f"{cells[4]:>11}")
    entry, mid = (statistics.median(ratios[c]) for c in (1, 2))
    pg_entry, pg_mid = (statistics.median(ratios[c]) for c in (3, 4))
    print(f"median ratio to bare: SQLite entry {entry:.2f}x, mid-run {mid:.2f}x; PostgreSQL "
          f"entry {pg_entry:.2f}x, mid-run {pg_mid:.2f}x; PostgreSQL adds "
          f"{statistics.median(added):.1f} ms to a step (median over both steps of every "
          "workflow)")
    return 0


def _ms(rows: list[list[float]], column: int) -> float:
    return statistics.median(row[column] for row in rows) * 1000


if __name__ == "__main__":
    sys.exit(main())
