"""`skillrail trace RUN`: one run's history from the ledger, at a chosen level of detail or at the
level of a role (`--role`, guard/visibility.py), with secrets redacted and what names a tool the
project marks sensitive hidden at every level (see `history`, `redact` and `visibility`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..run.ledger import Ledger
from ..tools.history import LEVELS, run_workflow, trace
from .common import add_json, existing_run

HELP = "show one run's history: every step, value and event (full), milestones, or the outcome"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="the run id, e.g. pa-7f3a2c")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--level", choices=LEVELS, default="full",
                       help="full: everything; summary: milestones; hidden: the outcome only "
                            "(default: full)")
    shown.add_argument("--role", help="the level of this role, from the visibility.roles of "
                                      ".claude/skillrail.yaml where the run started (default "
                                      "roles: end_user: summary, developer: full)")
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    from ..guard.visibility import load_visibility

    with Ledger() as ledger:
        found = existing_run(ledger, ns.run)
        seen = load_visibility(found.workspace)
        level = ns.level if ns.role is None else seen.level(ns.role)
        workflow, note = (None, "") if level == "hidden" else run_workflow(found)
        doc = trace(ledger, found, level, workflow, note, seen.hides())
    if ns.json:
        return 0, json.dumps(doc, indent=2) + "\n"
    return 0, "\n".join(text_lines(doc)) + "\n"


def text_lines(doc: dict[str, Any]) -> list[str]:
    """A trace document as lines for a terminal."""
    lines = [f"run {doc['run']}  {doc['workflow']}  {doc['status']} at '{doc['step']}', "
             f"{doc['steps']} steps"]
    if doc["level"] == "hidden":
        return lines
    lines.append(f"skill {doc['skill']}, started {doc['started']}, last change {doc['updated']}"
                 + (f", sub-run of {doc['parent']}" if doc["parent"] else ""))
    if doc.get("params"):
        lines.append("params: " + ", ".join(f"--{k}={v}" for k, v in doc["params"].items()))
    if doc.get("note"):
        lines.append(f"note: {doc['note']}")
    lines += [_entry(entry) for entry in doc["timeline"]]
    if doc.get("sub_runs"):
        lines.append("sub-runs:")
        lines += [f"  {s['run']}  {s['workflow']}  {s['status']} at '{s['step']}', "
                  f"{s['steps']} steps" for s in doc["sub_runs"]]
    return lines


def _entry(entry: dict[str, Any]) -> str:
    if entry["kind"] == "event":
        return f"  {entry['at']}  {entry['event']}: {entry['detail']}"
    if entry["kind"] == "transition":
        why = f"  [{entry['milestone']}]" if entry["milestone"] else ""
        return (f"  {entry['at']}  #{entry['seq']} {entry['source']} --{entry['outcome']}--> "
                f"{entry['target']}{why}")
    head = f"  {'':19}    {entry['step']} set {entry['key']} = "
    # A value may span lines; its continuation lines are indented under its first.
    return head + str(entry["value"]).replace("\n", "\n" + " " * len(head))
