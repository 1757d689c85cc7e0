"""`skillrail simulate`: walk skills' real step scripts as an agent would (see simulate.py) and
report edge coverage, the longest run against the static bound, and failures with their
commands. Exit 1 on any failure, or when `all-edges` leaves an edge untaken."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from ..base.errors import UsageError
from ..graph.model import Workflow
from ..tools.simulate import Report, simulate
from .common import add_json, add_root, find_workflow, loaded_workflows

HELP = "walk skills' step scripts as an agent would and report edge coverage and failures"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="workflow names, or skills with one workflow")
    parser.add_argument("--all", action="store_true", help="every discovered workflow")
    parser.add_argument("--paths", choices=("all-edges", "random"), default="all-edges",
                        help="walk until every edge was taken (default), or random walks")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random walks")
    parser.add_argument("--walks", type=int, default=20,
                        help="random walks to make (all-edges: the least it may try)")
    parser.add_argument("--max-hops", type=int, default=200,
                        help="steps one walk may take before it counts as stuck")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="the value of a workflow param (repeatable; default: its sample)")
    add_root(parser)
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    params = _params(ns.param)
    targets = _targets(ns)
    reports = []
    for n, wf in enumerate(targets, 1):
        shown = _progress(wf.name, n, len(targets)) if sys.stderr.isatty() else None
        reports.append(simulate(wf, paths=ns.paths, seed=ns.seed, walks=ns.walks,
                                max_hops=ns.max_hops, params=params, progress=shown))
    if sys.stderr.isatty() and targets:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    bad = [r for r in reports if r.failures or (ns.paths == "all-edges" and r.coverage < 1)]
    status = 1 if bad else 0
    if ns.json:
        return status, json.dumps([_data(r) for r in reports], indent=2) + "\n"
    return status, "\n".join(line for r in reports for line in _lines(r)) + "\n"


def _progress(name: str, n: int, of: int) -> Callable[[int, int, int], None]:
    """One line on a terminal, rewritten after each walk: the workflow, the walks, the edges."""
    def say(walks: int, taken: int, edges: int) -> None:
        print(f"\r\033[K{name} ({n}/{of}): walk {walks}, {taken}/{edges} edges", end="",
              file=sys.stderr, flush=True)
    return say


def _params(given: list[str]) -> dict[str, str]:
    pairs = [item.partition("=") for item in given]
    bad = [item for item, (name, sep, _) in zip(given, pairs, strict=True) if not (name and sep)]
    if bad:
        raise UsageError(f"--param {bad[0]} is not NAME=VALUE", fix="Write --param skill=PATH")
    return {name: value for name, _, value in pairs}


def _targets(ns: argparse.Namespace) -> list[Workflow]:
    if ns.all == bool(ns.names):
        raise UsageError("name skills or workflows, or give --all",
                         fix="Run `skillrail simulate --all` or `skillrail simulate SKILL ...`")
    if ns.names:
        return [find_workflow(name, ns.root) for name in ns.names]
    return sorted(loaded_workflows(ns.root), key=lambda w: w.name)


def _lines(r: Report) -> list[str]:
    taken = len(r.edges & r.seen)
    bound = "unbounded" if r.bound is None else f"at most {r.bound}"
    lines = [f"{r.workflow}: {taken}/{len(r.edges)} edges ({r.coverage:.0%}), longest run "
             f"{r.longest} steps ({bound}), {r.walks} walks"]
    lines += [f"  untaken: {s} --{o}--> {t}" + (f": {why}" if why else "")
              for (s, o, t), why in r.untaken()]
    lines += [f"  FAILED: {f.message}\n    command: {f.command}" for f in r.failures]
    return lines


def _data(r: Report) -> dict[str, object]:
    return {"workflow": r.workflow, "edges": len(r.edges), "taken": len(r.edges & r.seen),
            "coverage": r.coverage, "longest": r.longest, "bound": r.bound,
            "largest_step_chars": r.largest, "walks": r.walks,
            "untaken": [list(e) for e in sorted(r.edges - r.seen)],
            "why_untaken": [why for _, why in r.untaken()],
            "failures": [f._asdict() for f in r.failures]}
