"""`skillrail validate`: every skill's graph checks, plus every renderable step shape checked
against the protocol schema. Exit 1 with every finding of every skill, printed as text, as JSON,
or as GitHub annotations on the script line that defines each problem's step."""

from __future__ import annotations

import argparse
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..authoring.references import check_dispatch_targets
from ..base.errors import Finding, SkillrailError
from ..graph.model import Workflow
from ..protocol.schema import schema_errors
from ..step.discovery import Discovery, default_root, discover_workflows, project_root
from ..tools.annotations import annotation, step_line
from ..tools.samples import render_samples
from .common import add_root

HELP = "check every workflow graph and every step's output against the protocol schema"
FORMATS = ("text", "json", "github")


class Problem(NamedTuple):
    """One problem, with where it is: the script and, when known, the step."""

    code: str  # a finding's code, or what failed: load-error, schema, render-error, no-skills
    text: str
    file: str | None = None
    step: str | None = None
    heading: str | None = None  # the text report shows it once above a script's findings


@dataclass
class Report:
    workflows: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    checked: int = 0
    originals: list[str] = field(default_factory=list)  # original-shape scripts, unchecked


def add_parser(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--format", choices=FORMATS, default="text",
                        help="text for people, json for machines, github for annotations in "
                             "GitHub Actions (default: text)")
    output.add_argument("--json", dest="format", action="store_const", const="json",
                        help="same as --format json")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    root = ns.root or default_root()
    report = collect(root)
    status = 1 if report.problems else 0
    if ns.format == "json":
        return status, json.dumps({
            "ok": not report.problems, "workflows": report.workflows,
            "documents_checked": report.checked, "problems": _lines(report.problems),
            "original_shape_scripts": report.originals,
            "findings": [f.as_dict() for f in report.findings]}, indent=2) + "\n"
    if ns.format == "github":
        return status, "\n".join(_github(report.problems, project_root(root))
                                 + [_summary(report)]) + "\n"
    heading = _summary(report) + (":" if report.problems else "")
    return status, "\n".join([heading] + _lines(report.problems)) + "\n"


def collect(root: Path) -> Report:
    """Every problem under `root`: scripts that fail to load (with each graph finding),
    dispatch targets, then each workflow's step documents against the schema."""
    found = discover_workflows(root)
    report = Report([wf.name for wf in found.workflows], _load_problems(found),
                    [f for e in found.errors for f in e.findings], originals=found.originals)
    if not found.workflows and not report.problems and not found.originals:
        report.problems.append(Problem(
            "no-skills", "no skill scripts found: expected <root>/<skill>/scripts/<script>.py "
                         "(pass --root DIR)"))
    sources = {wf.name: wf.source for wf in found.workflows}
    report.problems += [Problem(f.code, str(f), sources.get(f.workflow), f.step)
                        for f in check_dispatch_targets(found.workflows)]
    for wf in found.workflows:
        report.checked += _check_samples(wf, report.problems)
    return report


def _load_problems(found: Discovery) -> list[Problem]:
    problems = []
    for error in found.errors:
        if not error.findings:
            problems.append(Problem("load-error", f"{error.path}: {error.message}", error.path))
        heading = f"{error.path}: {error.message}"
        problems += [Problem(f.code, str(f), error.path, f.step, heading) for f in error.findings]
    return problems


def _check_samples(wf: Workflow, problems: list[Problem]) -> int:
    """Append the schema problems of `wf`'s step documents; return how many were checked."""
    checked = 0
    try:
        for label, document in render_samples(wf):
            checked += 1
            problems += [Problem("schema", f"{label}: schema: {err}", wf.source,
                                 _step_in(wf, label)) for err in schema_errors(document)]
    except SkillrailError as exc:
        problems.append(Problem("render-error", exc.summary(), wf.source,
                                _step_in(wf, exc.where)))
    return checked


def _step_in(wf: Workflow, where: str) -> str | None:
    """The step a location names: a sample's label `workflow:step (outcome)`, or a render
    error's `..., step 'id'`."""
    found = (re.search(r"step '([^']+)'", where)
             or re.match(rf"{re.escape(wf.name)}:([^ ]+)", where))
    return found.group(1) if found and found.group(1) in wf.by_id else None


def _summary(report: Report) -> str:
    count = len(report.originals)
    # An original-shape script prints the format_* documents itself: no graph to check.
    originals = (f"; {count} original-shape script{'s' * (count != 1)} (printing the format_* "
                 "documents itself) not checked" if count else "")
    if not report.problems:
        return (f"{len(report.workflows)} workflows valid, {report.checked} step documents "
                f"match the protocol schema{originals}")
    count = len(report.problems)
    return f"{count} problem{'s' * (count != 1)}{originals}"


def _lines(problems: list[Problem]) -> list[str]:
    """The text report's lines: a script's findings indented under one heading."""
    lines: list[str] = []
    heading = None
    for problem in problems:
        if problem.heading is not None and problem.heading != heading:
            lines.append(problem.heading)
        heading = problem.heading
        lines.append(problem.text if problem.heading is None else f"  {problem.text}")
    return lines


def _github(problems: list[Problem], project: Path) -> list[str]:
    """One annotation per problem, on the line defining its step (else line 1 of its file)."""
    sources: dict[str, str] = {}
    lines = []
    for problem in problems:
        if problem.file is None:
            lines.append(annotation(problem.text, title=problem.code))
            continue
        if problem.file not in sources:
            sources[problem.file] = _read(problem.file)
        line = step_line(sources[problem.file], problem.step) if problem.step else 1
        lines.append(annotation(problem.text, file=_relative(problem.file, project), line=line,
                                title=problem.code))
    return lines


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""  # the annotation still names the file, at line 1


def _relative(path: str, project: Path) -> str:
    """GitHub places annotations by a path relative to the repository root."""
    real = Path(os.path.realpath(path))
    return real.relative_to(project).as_posix() if real.is_relative_to(project) else path
