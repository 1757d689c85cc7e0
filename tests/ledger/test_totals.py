"""The running totals `skillrail stats` reads are what grouping every recorded move, loop count,
run end and recorded value would give, however the runs went."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from skills.lib.workflow import Arg, Rework, StepDef, Workflow
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.analysis import fingerprint
from skills.lib.workflow.ledger.listing import totals
from skills.lib.workflow.ledger.store import Ledger, Run
from skills.lib.workflow.step.discovery import load_script
from skills.lib.workflow.step.routing import leg, script_path

from .test_migration import as_old_ledger

#: The totals, recomputed the slow way: grouping the rows the ledger recorded.
GROUPED = {
    "moves": "SELECT r.skill, r.workflow, t.source, t.outcome, t.target, COUNT(*) FROM "
             "transitions t JOIN runs r ON r.id = t.run GROUP BY 1, 2, 3, 4, 5",
    "departures": "SELECT r.skill, r.workflow, t.source, COUNT(DISTINCT t.run) FROM "
                  "transitions t JOIN runs r ON r.id = t.run GROUP BY 1, 2, 3",
    "loops": "SELECT r.skill, r.workflow, l.edge, COUNT(*), SUM(l.count), MAX(l.count) FROM "
             "loops l JOIN runs r ON r.id = l.run GROUP BY 1, 2, 3",
}


def test_the_totals_match_the_moves_and_loop_counts_of_random_runs(script: Path) -> None:
    """120 runs of the chain skill walked by random outcomes (loops up to their caps, runs
    left anywhere), each move its own transaction as a step makes it: every total equals
    the grouped rows."""
    (workflow,) = load_script(script)
    unregister(workflow.name)  # the registry is the process's: the next test's script is another
    rng = random.Random(6)
    with Ledger() as ledger:
        for n in range(120):
            run = Run(id=f"ch-{n:06x}", skill=workflow.skill, workflow=workflow.name,
                      script=script_path(workflow), fingerprint=fingerprint(workflow),
                      workspace="/tmp", session=None, params={}, status="active", parent=None,
                      step=workflow.entry, decided=None, hops=1, started=0.0, updated=0.0,
                      counts={}, memory={})
            with ledger.transaction():
                ledger.create(run)
            while rng.random() < 0.9:
                step = workflow.by_id[run.step]
                outcome = rng.choice(list(step.next))
                went = leg(step, outcome, run.counts)
                if went.target is None:
                    break
                with ledger.transaction():
                    ledger.advance(run, outcome, went.target, {}, went.counts)
                run = run._replace(step=went.target, hops=run.hops + 1, counts=went.counts)
        kept = totals(ledger)
        for name, sql in GROUPED.items():
            assert sorted(getattr(kept, name)) == sorted(ledger.query(sql)), name
        assert sum(n for *_, n in kept.moves) == len(ledger.query("SELECT 1 FROM transitions"))


#: skill-runner's shape of a plan step: do, a check the script decides, the evaluation, and a
#: retry that says what changes, under one shared counter of attempts.
PLAN = Workflow(name="plan", steps=[
    StepDef("build", "Build", actions=["Build."], next={"ok": "build-verify"}),
    StepDef("build-verify", "Check", actions=["Check."],
            next={"ok": "build-eval", "fail": "build-eval"}),
    StepDef("build-eval", "Judge", actions=["Judge."],
            next={"pass": "done", "fail": Rework("build-retry", 4, "done", counter="attempts")}),
    StepDef("build-retry", "Retry", actions=["Say what changes."],
            args=[Arg("CHANGE_BUILD", "what the next attempt does differently")],
            next={"ok": "build"}),
    StepDef("done", "Done", actions=["Report."], next={"ok": None}),
])

#: The V8 totals, recomputed the slow way from the rows.
_FAILED = ("SELECT t.run, t.source, t.seq, (SELECT MIN(p.seq) FROM transitions p WHERE p.run = "
           "t.run AND p.source = t.source AND p.outcome = 'ok' AND p.seq > t.seq) AS passed "
           "FROM transitions t WHERE t.outcome = 'fail'")
V8_GROUPED = {
    "end_totals": "SELECT skill, workflow, CASE WHEN status = 'abandoned' THEN status WHEN "
                  "result = 'partial' THEN result ELSE 'success' END, COUNT(*), SUM(1 + "
                  "COALESCE((SELECT SUM(count) FROM loops WHERE run = runs.id), 0)) FROM runs "
                  "WHERE status != 'active' GROUP BY 1, 2, 3",
    "check_totals": f"SELECT r.skill, r.workflow, f.source, COUNT(*), COUNT(f.passed) FROM "
                    f"({_FAILED}) f JOIN runs r ON r.id = f.run GROUP BY 1, 2, 3",
    "change_totals": f"SELECT r.skill, r.workflow, f.source, m.key, m.value, COUNT(*) FROM "
                     f"({_FAILED}) f JOIN runs r ON r.id = f.run JOIN memory m ON m.rowid = "
                     f"(SELECT rowid FROM memory WHERE run = f.run AND key LIKE 'CHANGE^_%' "
                     f"ESCAPE '^' AND seq > f.seq AND seq < f.passed ORDER BY seq, rowid "
                     f"LIMIT 1) GROUP BY 1, 2, 3, 4, 5",
    "open_failures": f"SELECT f.run, f.source, f.seq FROM ({_FAILED}) f JOIN runs r ON "
                     f"r.id = f.run WHERE f.passed IS NULL AND r.status = 'active'",
}


def walk_plan_runs() -> dict[str, list[tuple[object, ...]]]:
    """150 plan runs walked by random outcomes, each retry saying a change (one of seven), each run
    left active, abandoned, or completed in full or in part; the V8 totals' rows, checked equal to
    the grouped rows, and none of the tables empty."""
    rng = random.Random(20)
    with Ledger() as ledger:
        for n in range(150):
            run = Run(id=f"pl-{n:06x}", skill="runner", workflow=PLAN.name, script="/p.py",
                      fingerprint="f", workspace="/tmp", session=None, params={},
                      status="active", parent=None, step=PLAN.entry, decided=None, hops=1,
                      started=0.0, updated=0.0, counts={}, memory={})
            with ledger.transaction():
                ledger.create(run)
            while run.step != "done" and rng.random() < 0.95:
                step = PLAN.by_id[run.step]
                outcome = rng.choice(list(step.next))
                went = leg(step, outcome, run.counts)
                values = {a.key: f"change {run.hops % 7}" for a in step.args}
                with ledger.transaction():
                    ledger.advance(run, outcome, str(went.target), values, went.counts)
                run = run._replace(step=went.target, hops=run.hops + 1, counts=went.counts)
            end = rng.choice(["active", "abandoned", "success", "partial"])
            if end != "active":
                with ledger.transaction():
                    ledger.set_status(run.id, "abandoned" if end == "abandoned" else
                                      "completed", result=None if end == "abandoned" else end)
        live = {table: sorted(ledger.query(f"SELECT * FROM {table}")) for table in V8_GROUPED}
        for table, sql in V8_GROUPED.items():
            assert live[table] == sorted(ledger.query(sql)), table
    assert all(live.values()), "the walk left some table empty: it tests nothing there"
    return live


def test_outcome_and_recovery_totals_match_the_rows() -> None:
    """150 plan runs walked at random: the totals the triggers keep (SQLite's, or PostgreSQL's
    PL/pgSQL twins) equal the grouped rows."""
    assert walk_plan_runs()


@pytest.mark.sqlite_only("migrates a schema-7 SQLite file; PostgreSQL ledgers begin at schema 8")
def test_outcome_and_recovery_totals_match_the_rows_after_migrating(ledger_file: Path) -> None:
    """The same walk, then the ledger rewritten at schema 7: the totals schema 8 fills in when
    it migrates the same rows are those the triggers kept."""
    live = walk_plan_runs()
    as_old_ledger(ledger_file, 7)
    with Ledger() as ledger:
        for table in V8_GROUPED:
            assert sorted(ledger.query(f"SELECT * FROM {table}")) == live[table], table
