"""`skillrail runs`: the runs in the ledger, newest first."""

from __future__ import annotations

import argparse
import json
import time

from ..run.ledger import Ledger
from .common import add_json

HELP = "list the runs in the ledger, newest first"
STATUSES = ("active", "completed", "abandoned")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--skill", help="only this skill's runs")
    parser.add_argument("--status", choices=STATUSES, help="only runs with this status")
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger:
        runs = ledger.runs(skill=ns.skill, status=ns.status)
    rows = [{"run": r.id, "skill": r.skill, "workflow": r.workflow, "status": r.status,
             "step": r.step, "hops": r.hops, "parent": r.parent, "workspace": r.workspace,
             "started": _when(r.started), "updated": _when(r.updated)} for r in runs]
    if ns.json:
        return 0, json.dumps(rows, indent=2) + "\n"
    if not rows:
        return 0, "no runs\n"
    return 0, "\n".join(
        f"{r['run']}  {r['status']:<9}  {r['workflow']:<20}  at {r['step']:<16}  "
        f"{r['hops']:>3} steps  started {r['started']}"
        + (f"  (sub-run of {r['parent']})" if r["parent"] else "") for r in rows) + "\n"


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))
