"""`skillrail validate`: every skill's graph checks, plus every renderable step shape checked
against the protocol schema. Exit 1 with every finding of every skill."""

from __future__ import annotations

import argparse
import json

from ..discovery import discover_workflows
from ..errors import SkillrailError
from ..references import check_dispatch_targets
from ..samples import render_samples
from ..schema import schema_errors
from .common import add_json, add_root

HELP = "check every workflow graph and every step's output against the protocol schema"


def add_parser(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    found = discover_workflows(ns.root)
    problems = [line for e in found.errors for line in e.lines()]
    count = sum(len(e.findings) or 1 for e in found.errors)
    if not found.workflows and not problems:
        problems.append("no skill scripts found: expected <root>/<skill>/scripts/<script>.py "
                        "(pass --root DIR)")
        count = 1
    targets = [str(f) for f in check_dispatch_targets(found.workflows)]
    problems += targets
    count += len(targets)
    checked = 0
    for wf in found.workflows:
        try:
            for label, document in render_samples(wf):
                checked += 1
                errors = schema_errors(document)
                problems += [f"{label}: schema: {err}" for err in errors]
                count += len(errors)
        except SkillrailError as exc:
            problems.append(exc.summary())
            count += 1
    status = 1 if problems else 0
    if ns.json:
        report = {"ok": not problems, "workflows": [wf.name for wf in found.workflows],
                  "documents_checked": checked, "problems": problems,
                  "findings": [f.as_dict() for e in found.errors for f in e.findings]}
        return status, json.dumps(report, indent=2) + "\n"
    summary = (f"{len(found.workflows)} workflows valid, {checked} step documents match the "
               "protocol schema" if not problems else f"{count} problem{'s' * (count != 1)}:")
    return status, "\n".join([summary] + problems) + "\n"
