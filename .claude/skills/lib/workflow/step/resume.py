"""A run picked up again (after a lost context, by `skillrail resume`, by the hooks): its workflow
loaded from the script it was started from, and its current step reprinted, changing nothing."""

from __future__ import annotations

import os

from ..base.errors import LedgerError, UsageError
from ..graph.model import Workflow
from ..ledger.store import Ledger, Run
from ..ledger.workspace import script_here
from .invocation import Invocation
from .routing import skillrail_command
from .runs import continue_run


def workflow_of(run: Run) -> Workflow:
    """Load the run's script (script_here) and return the run's workflow."""
    from pathlib import Path

    from .discovery import load_script

    script = script_here(run.script, run.workspace)
    if not os.path.isfile(script):
        raise LedgerError(f"the script of run {run.id} is gone: {script}", fix=_end(run))
    for workflow in load_script(Path(script)):
        if workflow.name == run.workflow:
            return workflow
    raise LedgerError(f"{script} no longer defines workflow '{run.workflow}'", fix=_end(run))


def _end(run: Run) -> str:
    """Where the advice about a run that cannot be picked up again ends: abandoning it, or,
    once it has ended, nothing more to do (abandon takes only an active run)."""
    if run.status == "active":
        return f"Abandon the run ({skillrail_command('abandon', run.id)})"
    return (f"The run is {run.status}: nothing is left to do with it "
            f"(`{skillrail_command('trace', run.id)}` shows its history)")


def reprint(ledger: Ledger, run_id: str, fmt: str = "xml") -> str:
    """The run's current step, rendered as its script would print it, changing nothing."""
    from ..protocol import render
    from .render import build_view

    run = ledger.run(run_id)
    if run is None:
        raise UsageError(f"no run '{run_id}' in the ledger {ledger.path}",
                         fix="`skillrail runs` lists the runs")
    inv = Invocation(step=None, run=run_id, resume=True, format=fmt)
    view = continue_run(ledger, workflow_of(run), inv,
                        lambda ctx, decided: build_view(ctx, decided, fmt))
    return render(view, fmt)
