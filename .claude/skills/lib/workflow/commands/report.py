"""`skillrail report [--html FILE]`: one self-contained HTML page for people (`reportpage`): each
skill's diagrams and steps, and the most recent runs, each with its redacted summary trace (what
names a tool its project marks sensitive hidden, as in `trace`). Without --html the page goes to
report.html in skillrail's state folder, beside the run ledger: never into the project, where it
would show as an untracked file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..base.errors import SkillrailError
from ..base.paths import project_root, state_dir
from ..graph.model import Workflow
from ..guard.visibility import load_visibility
from ..ledger.listing import page
from ..ledger.store import Ledger, Run
from ..ledger.workspace import folder_of
from ..step.discovery import discover_workflows
from ..tools.history import run_workflow, trace
from ..tools.reportpage import page as render
from .common import add_json, add_root

HELP = "write one self-contained HTML page: skills with diagrams and steps, recent runs"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", type=Path, default=None, metavar="FILE",
                        help="the page to write (default: report.html in skillrail's state "
                             "folder, beside the run ledger)")
    parser.add_argument("--limit", type=_count, default=20, metavar="N",
                        help="how many of the most recent runs to show (default: 20)")
    add_root(parser)
    add_json(parser)


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"--limit wants a whole number >= 0, not '{text}'")
    return int(text)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    found = discover_workflows(ns.root)
    with Ledger() as ledger:
        listed = page(ledger, limit=ns.limit)
        recent = [r for r in map(ledger.run, (x.id for x in listed.runs)) if r is not None]
        traces = _summaries(ledger, recent)
        where = ledger.path

    text = render(found, recent, traces, listed.matching, where)
    if ns.html is None:
        ns.html = Path(state_dir()) / "report.html"
    try:
        ns.html.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SkillrailError(f"cannot write the report to {ns.html}: {exc.strerror}",
                             fix="Name a file in an existing, writable folder") from None
    facts = {"html": str(ns.html), "workflows": len(found.workflows), "runs": len(recent),
             "bytes": len(text.encode("utf-8"))}
    if ns.json:
        return 0, json.dumps(facts, indent=2) + "\n"
    return 0, (f"wrote {facts['html']}: {facts['workflows']} workflows, {facts['runs']} runs, "
               f"{facts['bytes']} bytes\n")


def _summaries(ledger: Ledger, runs: list[Run]) -> list[dict[str, Any]]:
    """Each run's summary trace; each script is loaded once however many runs it has."""
    loaded: dict[tuple[str, str], Workflow | str] = {}
    places = {r.id: folder_of(r.workspace, r.folder) or project_root() for r in runs}
    hides = {place: load_visibility(place).hides() for place in set(places.values())}
    return [trace(ledger, r, "summary", *run_workflow(r, loaded), hides[places[r.id]])
            for r in runs]
