"""The running totals `skillrail stats` reads are what grouping every recorded move and loop
count would give, however the runs went."""

from __future__ import annotations

import random
from pathlib import Path

from skills.lib.workflow.graph.analysis import fingerprint
from skills.lib.workflow.run.discovery import load_script
from skills.lib.workflow.run.ledger import Ledger, Run
from skills.lib.workflow.run.listing import totals
from skills.lib.workflow.run.routing import leg, script_path

#: The totals, recomputed the slow way: grouping the rows the ledger recorded.
GROUPED = {
    "moves": "SELECT r.skill, r.workflow, t.source, t.outcome, t.target, COUNT(*) FROM "
             "transitions t JOIN runs r ON r.id = t.run GROUP BY 1, 2, 3, 4, 5",
    "departures": "SELECT r.skill, r.workflow, t.source, COUNT(DISTINCT t.run) FROM "
                  "transitions t JOIN runs r ON r.id = t.run GROUP BY 1, 2, 3",
    "loops": "SELECT r.skill, r.workflow, l.edge, COUNT(*), SUM(l.count), MAX(l.count) FROM "
             "loops l JOIN runs r ON r.id = l.run GROUP BY 1, 2, 3",
}


def test_the_totals_match_the_moves_and_loop_counts_of_random_runs(
        script: Path, ledger_file: Path) -> None:
    """120 runs of the chain skill walked by random outcomes (loops up to their caps, runs
    left anywhere), each move its own transaction as a step makes it: every total equals
    the grouped rows."""
    (workflow,) = load_script(script)
    rng = random.Random(6)
    with Ledger(str(ledger_file)) as ledger:
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
