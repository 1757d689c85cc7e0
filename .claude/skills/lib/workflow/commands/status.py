"""`skillrail status`: the active runs of this workspace, where each stands and what comes next."""

from __future__ import annotations

import argparse
import json
import os
import xml.etree.ElementTree as ET
from typing import Any

from ..base.errors import SkillrailError
from ..run.ledger import Ledger
from ..run.resume import reprint, workflow_of
from ..run.routing import resume_command
from .common import add_json

HELP = "show the active runs started in this directory and their next commands"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true", help="every workspace, not just this one")
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger:
        workspace = None if ns.all else os.path.realpath(os.getcwd())
        rows = [_row(ledger, r.id) for r in ledger.runs(workspace=workspace, status="active")]
    if ns.json:
        return 0, json.dumps(rows, indent=2) + "\n"
    if not rows:
        return 0, "no active runs" + ("" if ns.all else " in this directory (try --all)") + "\n"
    lines = []
    for row in rows:
        lines.append(f"{row['run']}  {row['workflow']}  at '{row['step']}' ({row['title']}), "
                     f"{row['hops']} steps so far")
        lines += [f"    next: {cmd}" for cmd in row["next"]]
        lines.append(f"    resume: {row['resume']}")
    return 0, "\n".join(lines) + "\n"


def _row(ledger: Ledger, run_id: str) -> dict[str, Any]:
    run = ledger.run(run_id)
    assert run is not None
    row: dict[str, Any] = {"run": run.id, "skill": run.skill, "workflow": run.workflow,
                           "step": run.step, "hops": run.hops, "workspace": run.workspace,
                           "session": run.session, "parent": run.parent}
    try:
        workflow = workflow_of(run)
        doc = ET.fromstring(reprint(ledger, run.id))
        row["title"] = doc.findtext("title", "")
        row["next"] = [c.text or "" for c in doc.iterfind("NEXT/invoke/cmd")]
        row["resume"] = resume_command(workflow, run.id)
    except SkillrailError as exc:
        row.update(title="?", next=[], resume=f"unavailable: {exc.summary()}")
    return row
