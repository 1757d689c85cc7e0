"""`skillrail status`: the active runs of this project, where each stands and what comes next,
each command with the interpreter the run was started with (not this command's).

A run belongs to the project it was started in (base/paths.project_root: the nearest folder
holding .claude/skills, else the git root, from its entry step's working directory up); status
lists the runs of the project it is run in, from any of its folders. The newest few are shown,
with how many more there are here and in other projects. Nothing is run or changed: a step a
script decides shows the resume command, which decides it.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..base.errors import SkillrailError
from ..base.paths import project_root
from ..graph.analysis import fingerprint
from ..graph.model import Workflow
from ..ledger.listing import Page, page
from ..ledger.store import Ledger, Run
from ..ledger.workspace import workspace_id
from ..step.resume import workflow_of
from ..step.routing import resume_command, skillrail_command, speaking_for
from ..step.runs import next_commands, run_python
from ..tools.history import stamp
from .common import add_json, add_limit, counted

HELP = "show the active runs of this project (from any of its folders) and their next commands"

#: Each script's workflow, or why it cannot be had, loaded once per command.
Loaded = dict[tuple[str, str], Workflow | SkillrailError]


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (f"{HELP}. A run belongs to the directory its first step ran in. "
                          "Shows the newest runs, how many more there are here and elsewhere, "
                          "and the commands that show them; runs no step and moves no run.")
    parser.add_argument("--all", action="store_true",
                        help="the active runs of every project, not just this one")
    add_limit(parser, 5, "active runs")
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    here = None if ns.all else workspace_id(project_root())
    with Ledger() as ledger:
        found = page(ledger, status="active", under=here, limit=ns.limit)
        loaded: Loaded = {}
        rows = []
        for full in map(ledger.run, (r.id for r in found.runs)):
            if full is not None:
                with speaking_for(run_python(ledger, full.id)):  # the run's own python3
                    rows.append(_row(full, loaded))
    if ns.json:
        return 0, json.dumps({"workspace": here, "runs": rows, "more": found.more,
                              "elsewhere": found.elsewhere}, indent=2) + "\n"
    lines = []
    for row in rows:
        lines.append(f"{row['run']}  {row['workflow']}  at '{row['step']}' ({row['title']}), "
                     f"{row['hops']} step{'s' * (row['hops'] != 1)} so far, "
                     f"started {row['started']}")
        lines += [f"    next: {cmd}" for cmd in row["next"]]
        lines.append(f"    resume: {row['resume']}")
    return 0, "\n".join(lines + _footer(found, here)) + "\n"


def _row(run: Run, loaded: Loaded) -> dict[str, Any]:
    row: dict[str, Any] = {"run": run.id, "skill": run.skill, "workflow": run.workflow,
                           "step": run.step, "hops": run.hops, "workspace": run.workspace,
                           "session": run.session, "parent": run.parent,
                           "started": stamp(run.started), "updated": stamp(run.updated)}
    key = (run.script, run.workflow)
    if key not in loaded:
        try:
            loaded[key] = workflow_of(run)
        except SkillrailError as exc:
            loaded[key] = exc
    workflow = loaded[key]
    if isinstance(workflow, SkillrailError):
        return {**row, "title": "?", "next": [], "resume": f"unavailable: {workflow.summary()}"}
    if fingerprint(workflow) != run.fingerprint:
        return {**row, "title": "?", "next": [], "resume": (
            f"unavailable: workflow '{run.workflow}' changed since the run began; "
            f"`{skillrail_command('abandon', run.id)}` ends it")}
    return {**row, "title": workflow.by_id[run.step].title, "next": next_commands(workflow, run),
            "resume": resume_command(workflow, run.id)}


def _footer(found: Page, here: str | None) -> list[str]:
    """How many active runs are not shown, here and elsewhere, and the commands that show
    them."""
    lines = [] if found.matching else [f"no active runs started in {here} or below it" if here
                                       else "no active runs"]
    if found.more:
        lines.append(f"{found.more} {'more ' if found.runs else ''}"
                     f"{counted(found.more, 'active run').partition(' ')[2]}"
                     f"{' here' if here else ''}{', older' if found.runs else ''}: "
                     f"`skillrail status{'' if here else ' --all'} --limit all` shows them")
    if found.elsewhere:
        lines.append(f"{counted(found.elsewhere, 'active run')} started elsewhere: "
                     "`skillrail status --all` shows them")
    return lines
