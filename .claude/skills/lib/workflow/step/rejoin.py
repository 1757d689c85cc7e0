"""The way back after a lost context without the run id: `--resume` alone reprints the active
run of this workflow that was started in this folder (or in a folder around it). With several,
it names them, newest first, each with the command that reprints it (one error line, as
every usage error is); with none, it says how to
start one. The run id stays the exact way back: this is the way for an agent left with only
SKILL.md."""

from __future__ import annotations

import os
import time

from ..base.errors import UsageError
from ..base.paths import project_root
from ..graph.model import Workflow
from ..ledger.listing import Listed, page
from ..ledger.store import Ledger
from ..ledger.workspace import workspace_id
from ..protocol.view import StepView, Viewer
from .invocation import Invocation
from .routing import entry_command, resume_command, skillrail_command
from .runs import continue_run

#: The most runs an error lists (it is one line; `skillrail status` lists them all).
_SHOWN = 5


def rejoin(ledger: Ledger, workflow: Workflow, inv: Invocation, view: Viewer) -> StepView:
    """Reprint the one active run of `workflow` started here; refuse, listing them, when there
    are several or none."""
    folder = project_root()
    found = active_here(ledger, workflow, workspace_id(folder))
    if len(found) == 1:
        return continue_run(ledger, workflow, inv._replace(run=found[0].id), view)
    where = f"workflow '{workflow.name}'"
    if not found:
        # A required param this --resume did not give cannot be guessed: no command then.
        missing = [f"--{p.name}" for p in workflow.params if p.required
                   and not inv.params.get(p.name)]
        start = (f"Start one as the skill's SKILL.md says (its first step needs "
                 f"{', '.join(missing)})" if missing else
                 f"Start one with `{entry_command(workflow, inv.params, inv.format)}`")
        raise UsageError(
            f"no active run of this workflow was started in {folder} or a folder around it",
            where, f"{start}; `{skillrail_command('status')}` lists the active runs of every "
                   "folder")
    shown = "; ".join(f"`{resume_command(workflow, r.id)}` (at '{r.step}', moved "
                      f"{_when(r.updated)})" for r in found[:_SHOWN])
    more = len(found) - _SHOWN
    raise UsageError(
        f"{len(found)} active runs of this workflow were started in {folder} or a folder "
        "around it", where,
        f"Rerun the command of the run you were in, newest first: {shown}"
        + (f"; {more} more: `{skillrail_command('status')}` lists them" if more > 0 else ""))


def active_here(ledger: Ledger, workflow: Workflow, here: str) -> list[Listed]:
    """The active runs of `workflow` whose folder is `here`, inside it, or around it."""
    runs = page(ledger, skill=workflow.skill, status="active").runs
    return [r for r in runs if r.workflow == workflow.name and _related(r.workspace, here)]


def _related(workspace: str, here: str) -> bool:
    return workspace == here or here.startswith(workspace.rstrip(os.sep) + os.sep) or \
        workspace.startswith(here.rstrip(os.sep) + os.sep)


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
