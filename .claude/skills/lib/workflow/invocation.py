"""Parse a step script's argv into an Invocation. Bad input becomes a UsageError (exit 2) with a
one-line message, never argparse's usage dump or a SystemExit."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import NoReturn

from .core import Workflow
from .errors import UsageError

FORMATS = ("xml", "text", "json")
#: Largest value --set or --set-file accepts; a step's output must stay far below what an agent
#: is shown of a command's result (~30,000 characters).
MAX_VALUE_CHARS = 20_000


@dataclass(frozen=True)
class Invocation:
    """One call of a step script, as the agent made it."""

    step: str
    outcome: str | None = None
    source: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    format: str = "xml"
    total_steps: int | None = None


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"bad arguments: {message}", fix="Run with --help to see the flags")


def build_parser(workflow: Workflow, prog: str) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog, allow_abbrev=False, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=workflow.description or f"The '{workflow.name}' workflow.",
        epilog=_steps_epilog(workflow))
    add = parser.add_argument
    add("--step", required=True, metavar="ID|N", help="the step to print, by id or number")
    add("--outcome", metavar="LABEL", help="the outcome of the previous step that led here")
    add("--from", dest="source", metavar="ID", help="the previous step (printed commands carry it)")
    add("--set", action="append", default=[], metavar="KEY=VALUE",
        help="report a value the previous step's <arg> asked for")
    add("--set-file", action="append", default=[], metavar="KEY=PATH",
        help="the same, reading VALUE from a UTF-8 file (for long or multi-line values)")
    add("--loop", action="append", default=[], metavar="STEP:OUTCOME=N",
        help="how often a rework edge was taken (printed commands carry it)")
    add("--total-steps", type=int, metavar="T", help="accepted for compatibility; must match")
    add("--format", choices=FORMATS, default="xml", help="output rendering (default: xml)")
    for param in workflow.params:
        add(f"--{param.name}", dest=f"param:{param.name}", metavar="TEXT", help=param.help)
    return parser


def _steps_epilog(workflow: Workflow) -> str:
    width = max(len(s.id) for s in workflow.steps) if workflow.steps else 0
    lines = [f"steps (start with --step {workflow.entry}):"]
    for n, step in enumerate(workflow.steps, 1):
        lines.append(f"  {n:>2}. {step.id:<{width}}  {step.title}")
    return "\n".join(lines)


def parse_invocation(workflow: Workflow, argv: list[str], prog: str) -> Invocation:
    ns = build_parser(workflow, prog).parse_args(argv)
    values = dict(_pairs(ns.set, "--set"))
    for key, path in _pairs(ns.set_file, "--set-file"):
        if key in values:
            raise UsageError(f"{key} is given twice", fix="Give each KEY once")
        values[key] = _read_value_file(key, path)
    for key, value in values.items():
        if len(value) > MAX_VALUE_CHARS:
            raise UsageError(f"the value of {key} has {len(value)} characters, more than "
                             f"{MAX_VALUE_CHARS}", fix="Report a summary, or a file path")
    params: dict[str, str] = {}
    for param in workflow.params:
        given: str | None = getattr(ns, f"param:{param.name}")
        chosen = param.default if given is None else given
        if chosen is not None:
            params[param.name] = chosen
    return Invocation(step=ns.step, outcome=ns.outcome, source=ns.source, values=values,
                      counts=_counts(ns.loop), params=params, format=ns.format,
                      total_steps=ns.total_steps)


def _pairs(items: list[str], flag: str) -> list[tuple[str, str]]:
    pairs = []
    seen: set[str] = set()
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} '{item[:40]}' is not KEY=VALUE",
                             fix=f"Write it as {flag} KEY='VALUE'")
        if key in seen:
            raise UsageError(f"{key} is given twice", fix="Give each KEY once")
        seen.add(key)
        pairs.append((key, value))
    return pairs


def _read_value_file(key: str, path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(MAX_VALUE_CHARS + 1)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise UsageError(f"cannot read --set-file {key}={path}: {reason}",
                         fix="Write the value to a readable UTF-8 file first") from None


def _counts(items: list[str]) -> dict[str, int]:
    counts = {}
    for key, value in _pairs(items, "--loop"):
        if not (value.isascii() and value.isdigit()):
            raise UsageError(f"--loop {key}={value} is not a whole number",
                             fix="Run the printed command unchanged")
        counts[key] = int(value)
    return counts
