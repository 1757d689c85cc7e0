"""Helpers of the `skillrail ledger copy` tests: a SQLite run history holding every kind of row a
run owns, the CLI run as a user runs it, and a ledger's rows read back without the numbers the
ledger gives them itself (rowids)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

from skills.lib.workflow.ledger.learned import record
from skills.lib.workflow.ledger.store import Ledger, Run
from skills.lib.workflow.step.routing import leg

from ..conftest import REPO
from ..harness import shell
from .test_totals import PLAN

#: Every table a run owns, with the columns that say what it holds (rowids left out: each
#: ledger numbers its own), and its order; `runs` first.
TABLES = {
    "runs": "id, skill, workflow, script, fingerprint, workspace, session, status, parent, "
            "step, decided, hops, started, updated, result, host, who",
    "params": "run, name, value",
    "transitions": "run, seq, source, outcome, target, at",
    "memory": "run, key, seq, step, value",
    "loops": "run, edge, count",
    "events": "run, at, kind, detail",
    "agents": "session, agent, run",
    "cases": "skill, run, kind, at, text",
}
#: The running totals `stats` reads, kept by the ledger's triggers.
TOTALS = ("move_totals", "departure_totals", "loop_totals", "end_totals", "check_totals",
          "change_totals", "open_failures")


def skillrail(*args: str, ledger: str | None = None, env: dict[str, str] | None = None,
              process: bool = False) -> subprocess.CompletedProcess[str]:
    """`skillrail ARGS` as a user runs it (in this process: harness.agent), in a folder of no
    project; on the team ledger `ledger` (SKILLRAIL_LEDGER) when given, else on this
    machine's. With `process`, in a new interpreter: for an environment that changes what it
    imports (PYTHONPATH). A copy killed midway runs as one too (test_copy's TestAKilledCopy)."""
    base = {k: v for k, v in os.environ.items() if k != "SKILLRAIL_LEDGER"}
    base["PYTHONPATH"] = str(REPO / ".claude")
    if ledger:
        base["SKILLRAIL_LEDGER"] = ledger
    return shell([sys.executable, "-m", "skills.lib.workflow.commands", *args],
                 cwd=os.environ["SKILLRAIL_HOME"], env={**base, **(env or {})}, process=process)


def copy(*args: str, env: dict[str, str] | None = None,
         process: bool = False) -> subprocess.CompletedProcess[str]:
    return skillrail("ledger", "copy", *args, env=env, process=process)


def copied(*args: str) -> dict[str, Any]:
    """The --json report of a copy that succeeded."""
    done = copy(*args, "--json")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def shown(*args: str, ledger: str | None = None) -> Any:
    """What a `skillrail ... --json` command prints, parsed."""
    done = skillrail(*args, "--json", ledger=ledger)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return json.loads(done.stdout)


def traced(run_id: str, ledger: str | None = None) -> Any:
    """`skillrail trace RUN --json`, its events' ids left out: an event's id is its row in the
    ledger that holds it (a copy numbers them anew), where a move's id is the move's number."""
    doc = shown("trace", run_id, ledger=ledger)
    for entry in doc["timeline"]:
        if entry["id"].startswith("e"):
            entry["id"] = "e"
    return doc


def one_error(done: subprocess.CompletedProcess[str], code: int = 1) -> str:
    """The single `error:` line of a refused command: no output, no traceback."""
    assert done.returncode == code, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def rows(where: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every run-owned row of the ledger at `where` (a file or a URL), per table, sorted."""
    with Ledger(where) as ledger:
        return {table: sorted(tuple(r) for r in ledger.query(f"SELECT {cols} FROM {table}"))
                for table, cols in TABLES.items()}


def totals(where: str) -> dict[str, list[tuple[Any, ...]]]:
    with Ledger(where) as ledger:
        return {table: sorted(tuple(r) for r in ledger.query(f"SELECT * FROM {table}"))
                for table in TOTALS}


def run_ids(where: str) -> list[str]:
    with Ledger(where) as ledger:
        return [r[0] for r in ledger.query("SELECT id FROM runs ORDER BY id")]


# -- a history ---------------------------------------------------------------------------------

def history(where: str, seed: int, runs: int, prefix: str = "pl") -> list[str]:
    """`runs` runs of skill-runner's plan shape in the ledger at `where`, walked by random
    outcomes: values (CHANGE_ ones among them) and a value of the move to come recorded twice,
    loops up to their caps, failed checks recovered or not, sub-runs bound to sub-agents,
    pauses, learned cases, each run left active, abandoned, or completed in full or in part.
    Ids: `prefix`-`seed``n`."""
    rng = random.Random(seed)
    made: list[str] = []
    with Ledger(where) as ledger:
        for n in range(runs):
            parent = rng.choice(made) if made and rng.random() < 0.3 else None
            run = _start(ledger, f"{prefix}-{seed:02x}{n:04x}", parent, seed)
            walk(ledger, run, rng, rng.randrange(2, 14))
            _aside(ledger, run.id, parent, seed, n, rng)
            made.append(run.id)
            end(ledger, run.id, rng.choice(["active", "abandoned", "success", "partial"]))
    return made


def _start(ledger: Ledger, run_id: str, parent: str | None, seed: int) -> Run:
    run = Run(id=run_id, skill="runner", workflow=PLAN.name, script="/elsewhere/plan.py",
              fingerprint="f1", workspace="github.com/org/app", session=f"session-{seed}",
              params={"goal": f"goal of {run_id}"}, status="active", parent=parent,
              step=PLAN.entry, decided=None, hops=1, started=0.0, updated=0.0, counts={},
              memory={}, host="box", who="ann")
    with ledger.transaction():
        ledger.create(run)
    created = ledger.run(run_id)
    assert created is not None
    return created


def walk(ledger: Ledger, run: Run, rng: random.Random, moves: int,
         always: str | None = None) -> Run:
    """Up to `moves` moves of `run` by random outcomes (`always` where a step has it), each
    its own transaction as a step makes it; the run as it then stands."""
    for _ in range(moves):
        if run.step == "done":
            break
        step = PLAN.by_id[run.step]
        outcome = always if always in step.next else rng.choice(list(step.next))
        went = leg(step, outcome, run.counts)
        values = {a.key: f"change {rng.randrange(3)}" for a in step.args} | {"NOTE": run.step}
        with ledger.transaction():
            ledger.advance(run, outcome, str(went.target), values, went.counts)
        run = run._replace(step=str(went.target), hops=run.hops + 1, counts=went.counts)
    return run


def _aside(ledger: Ledger, run_id: str, parent: str | None, seed: int, n: int,
           rng: random.Random) -> None:
    """What a run records besides its moves: a value of its pending move recorded twice, a
    pause, a learned case, and a sub-run's sub-agent and the parent's note of it."""
    run = ledger.run(run_id)
    assert run is not None
    with ledger.transaction():
        ledger.remember(run_id, run.hops, run.step, "CHECK", "first try")
        ledger.remember(run_id, run.hops, run.step, "CHECK", "second try")
        ledger.event(run_id, "pause", "lunch")
        record(ledger, "some-skill", run_id, rng.choice(["success", "failure", "feedback"]),
               f"case {n}")
        if parent is not None:
            ledger.db.execute("INSERT OR REPLACE INTO agents VALUES (?,?,?)",
                              (f"session-{seed}", f"agent-{n}", run_id))
            ledger.event(parent, "self-run", f"plan (run {run_id}): done by the orchestrator")


def end(ledger: Ledger, run_id: str, how: str) -> None:
    """End the run: abandoned, or completed with result success or partial ('active': not)."""
    if how != "active":
        with ledger.transaction():
            ledger.set_status(run_id, "abandoned" if how == "abandoned" else "completed",
                              result=None if how == "abandoned" else how)
