"""`skillrail runs`: the runs in the ledger, newest first, a page at a time."""

from __future__ import annotations

import argparse
import json
import shlex
from typing import Any

from ..ledger.listing import Page, page
from ..ledger.sessions import pause_reason
from ..ledger.store import Ledger
from ..ledger.workspace import who
from ..tools.history import stamp, started_by
from .common import add_json, add_limit, counted

HELP = "list the runs in the ledger, newest first, 20 at a time"
STATUSES = ("active", "completed", "partial", "abandoned")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (f"{HELP}. A last line says how many more match and the command "
                          "that lists them; `skillrail trace RUN` shows one run's history.")
    parser.add_argument("--skill", help="only this skill's runs")
    parser.add_argument("--status", choices=STATUSES,
                        help="only runs with this status (completed: in full; partial: "
                             "completed with part of the work done)")
    parser.add_argument("--mine", action="store_true",
                        help="only the runs started on this machine by this user: the host name "
                             "and login a run records when it starts (a ledger shared by a "
                             "team holds everyone's; runs recorded before schema 9 have "
                             "neither and are left out)")
    add_limit(parser, 20, "runs")
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger:
        found = page(ledger, skill=ns.skill, status=ns.status, limit=ns.limit,
                     by=who() if ns.mine else None)
        # A run nobody attends that stopped at a question says so (a CI job looks for it).
        waits = {r.id for r in found.runs if r.status == "active"
                 and (pause_reason(ledger, r) or "").startswith("needs-user")}
    rows = [{"run": r.id, "skill": r.skill, "workflow": r.workflow, "status": r.status,
             "step": r.step, "hops": r.hops, "parent": r.parent, "workspace": r.workspace,
             "started": stamp(r.started), "updated": stamp(r.updated), "host": r.host,
             "who": r.who, "needs_user": r.id in waits} for r in found.runs]
    if ns.json:
        return 0, json.dumps({"runs": rows, "matching": found.matching, "more": found.more},
                             indent=2) + "\n"
    lines = [_line(r) for r in rows]
    return 0, "\n".join(lines + [_footer(found, ns)]) + "\n"


def _line(r: dict[str, Any]) -> str:
    """One run: its id, state, workflow, step, steps, when and by whom it started."""
    by = started_by(r["host"], r["who"])
    return (f"{r['run']}  {r['status']:<9}  {r['workflow']:<20}  at {r['step']:<16}  "
            f"{r['hops']:>3} {'step' if r['hops'] == 1 else 'steps':<5}  started {r['started']}"
            + (f" by {by}" if by else "")
            + (f"  (sub-run of {r['parent']})" if r["parent"] else "")
            + ("  needs the user" if r["needs_user"] else ""))


def _footer(found: Page, ns: argparse.Namespace) -> str:
    """How many runs matched, and the command that lists the rest."""
    noun = " ".join(filter(None, [ns.status, ns.skill and f"'{ns.skill}'", "run"]))
    matching = counted(found.matching, noun) + (" of yours" if ns.mine else "")
    if not found.more:
        return matching + (", newest first" if found.runs else "")
    every = ["skillrail", "runs"] + (["--skill", ns.skill] if ns.skill else []) + (
        ["--status", ns.status] if ns.status else []) + (["--mine"] if ns.mine else []) + [
        "--limit", "all"]
    return (f"the newest {len(found.runs)} of {matching}; {found.more} "
            f"more: `{shlex.join(every)}` lists them all (--limit N: the newest N)")
