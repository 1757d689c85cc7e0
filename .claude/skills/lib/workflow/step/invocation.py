"""Parse a step script's argv into an Invocation. Bad input becomes a UsageError (exit 2) with a
one-line message.

A small parser of our own rather than argparse: every option takes exactly one value or none, so
the grammar is trivial, and argparse's heuristics misread agents' values (a value '--' becomes an
empty list, a value starting with '-' is taken for an option, prefixes match other options).
"""


from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ..base.errors import UsageError, did_you_mean
from ..graph.model import Workflow
from .values import MAX_VALUE_CHARS, check_param, check_value, read_value_file

__all__ = ["FORMATS", "MAX_VALUE_CHARS", "OPTIONS", "Invocation", "help_text",
           "parse_invocation", "split_argv"]

FORMATS = ("xml", "text", "json")

#: option -> (what its value looks like, help). Options without a value are flags.
OPTIONS: dict[str, tuple[str | None, str]] = {
    "--step": ("ID|N", "the step to print, by id or 1-based number"),
    "--run": ("ID", "the run this step belongs to (printed commands carry it)"),
    "--outcome": ("LABEL", "the outcome of the previous step that led here"),
    "--at": ("N", "where in the run the command was printed (printed commands carry it)"),
    "--resume": (None, "reprint the run's current step after a lost context: with --run, that "
                       "run's; alone, this folder's active run of this workflow"),
    "--parent": ("RUN", "when starting: the orchestrator's run this sub-run belongs to"),
    "--self": (None, "with --parent: you do this sub-agent's work yourself, having no tool to "
                     "start a sub-agent (the run records it as your own work)"),
    "--fix": (None, "with --parent: this sub-run is a fix pass; it holds the findings to fix "
                    "(FIX_FINDINGS) from the orchestrator's run"),
    "--stateless": (None, "when starting: keep no run; state travels in the commands"),
    "--from": ("ID", "the step that printed this command (stateless only)"),
    "--set": ("KEY=VALUE", "report a value the previous step's arg asked for (repeatable)"),
    "--set-file": ("KEY=PATH", "the same, reading VALUE from a UTF-8 file (CRLF line ends "
                   "read as LF), or - for stdin"),
    "--loop": ("STEP:OUTCOME=N", "how often a rework edge was taken (stateless only)"),
    "--total-steps": ("T", "accepted for compatibility; must match the workflow"),
    # The original script protocol's review-loop flags (PROTOCOL.md section 7).
    "--qr-status": ("pass|fail", "a review's verdict: the same as --set QR_VERDICT=pass|fail"),
    "--qr-iteration": ("N", "the pass of the review loop a step is in (stateless only)"),
    "--qr-fail": (None, "marks the fix pass of a review loop's work step (stateless only)"),
    "--format": ("xml|text|json", "output rendering (default: xml)"),
    "--help": (None, "show this help and exit"),
}
_REPEATABLE = {"--set", "--set-file", "--loop"}


_EMPTY: Mapping[str, Any] = MappingProxyType({})


class Invocation(NamedTuple):
    """One call of a step script, as the agent made it."""

    step: str | None
    outcome: str | None = None
    source: str | None = None
    values: Mapping[str, str] = _EMPTY
    counts: Mapping[str, int] = _EMPTY
    params: Mapping[str, str] = _EMPTY
    format: str = "xml"
    total_steps: int | None = None
    help: bool = False
    run: str | None = None
    at: int | None = None
    resume: bool = False
    parent: str | None = None
    by_self: bool = False
    fix: bool = False
    stateless: bool = False
    qr_iteration: int | None = None
    qr_fail: bool = False
    given_params: frozenset[str] = frozenset()  # the params on the command line, not defaults


def help_text(workflow: Workflow, prog: str) -> str:
    """Usage, the options, the workflow's params and its steps."""
    rows = [(f"{name} {meta}" if meta else name, text) for name, (meta, text) in OPTIONS.items()]
    rows += [(f"--{p.name} {'|'.join(p.choices) or 'TEXT'}",
              p.help + (" (required)" if p.required else "")) for p in workflow.params]
    width = max(len(r[0]) for r in rows)
    lines = [f"usage: {prog} --step ID|N [options]", "",
             workflow.description or f"The '{workflow.name}' workflow.", "", "options:"]
    lines += [f"  {left:<{width}}  {text}" for left, text in rows]
    lines += ["", f"steps (start with --step {workflow.entry}):"]
    ids = max(len(s.id) for s in workflow.steps)
    lines += [f"  {n:>2}. {s.id:<{ids}}  {s.title}" for n, s in enumerate(workflow.steps, 1)]
    return "\n".join(lines) + "\n"


def split_argv(workflow: Workflow, argv: list[str]) -> dict[str, list[str]]:
    """Option -> the values given for it (flags get ['']). Raises UsageError on anything else."""
    known = dict(OPTIONS) | {f"--{p.name}": ("TEXT", p.help) for p in workflow.params}
    given: dict[str, list[str]] = {}
    for n, item in enumerate(argv, 1):
        if any("\ud800" <= c <= "\udfff" for c in item):
            # Python's stand-in for bytes that are not UTF-8: nothing could store or show them.
            raise UsageError(f"argument {n} holds bytes that are not UTF-8 text",
                             fix="Pass every flag and value as UTF-8")
    items = iter(argv)
    for item in items:
        name, sep, value = item.partition("=") if item.startswith("--") else (item, "", "")
        if name == "-h":
            name = "--help"
        if name not in known:
            what = "option" if item.startswith("-") else "argument"
            raise UsageError(f"unknown {what} '{item[:60]}'", fix="Run with --help to see the "
                             "options." + did_you_mean(name, known))
        takes_value = known[name][0] is not None
        if takes_value and not sep:
            following = next(items, None)
            if following is None:
                raise UsageError(f"{name} needs a value", fix=f"Write {name} {known[name][0]}")
            value = following
        elif sep and not takes_value:
            raise UsageError(f"{name} takes no value", fix=f"Write {name} alone")
        if name in given and name not in _REPEATABLE:
            raise UsageError(f"{name} is given twice", fix="Give it once")
        given.setdefault(name, []).append(value)
    return given


def parse_invocation(workflow: Workflow, argv: list[str]) -> Invocation:
    given = split_argv(workflow, argv)
    if "--help" in given:
        return Invocation(step=None, help=True)
    one = {name: values[0] for name, values in given.items()}
    # A run id alone is the natural way back after a lost context: treat it as --resume.
    resume = "--resume" in given or ("--run" in one and "--step" not in one)
    if "--step" not in one and not resume:
        raise UsageError("--step is missing", fix=f"Start with --step {workflow.entry}; "
                         "--help lists the steps")
    fmt = one.get("--format", "xml")
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt[:20]} is not one of {', '.join(FORMATS)}",
                         fix="Use --format xml, text or json")
    values = dict(_pairs(given.get("--set", []), "--set"))
    for key, value in values.items():
        if len(value) > MAX_VALUE_CHARS:
            raise UsageError(f"the value of {key} has {len(value)} characters, more than "
                             f"{MAX_VALUE_CHARS}", fix="Report a summary, or a file path")
        check_value(key, value)
    for key, path in _pairs(given.get("--set-file", []), "--set-file"):
        if key in values:
            raise UsageError(f"{key} is given twice", fix="Give each KEY once")
        values[key] = read_value_file(key, path)  # checked as it is read
    _qr_status(one, values)
    _refuse_mixed_modes(one, given)
    return Invocation(step=one.get("--step"), outcome=one.get("--outcome"),
                      source=one.get("--from"), values=values,
                      counts=_counts(given.get("--loop", [])), params=_params(workflow, one),
                      format=fmt, total_steps=_number("--total-steps", one.get("--total-steps")),
                      run=one.get("--run"), at=_number("--at", one.get("--at")),
                      resume=resume, parent=one.get("--parent"), by_self="--self" in given,
                      fix="--fix" in given,
                      stateless="--stateless" in given,
                      qr_iteration=_number("--qr-iteration", one.get("--qr-iteration")),
                      qr_fail="--qr-fail" in given,
                      given_params=frozenset(p.name for p in workflow.params
                                             if f"--{p.name}" in given))


def _qr_status(one: dict[str, str], values: dict[str, str]) -> None:
    """--qr-status is the original protocol's way to report a review's verdict."""
    from ..authoring.qr import VERDICT

    if "--qr-status" not in one:
        return
    if VERDICT in values:
        raise UsageError(f"--qr-status and --set {VERDICT} both give the verdict",
                         fix="Give one of them")
    values[VERDICT] = one["--qr-status"]


def _refuse_mixed_modes(one: dict[str, str], given: dict[str, list[str]]) -> None:
    """--run belongs to runs in the ledger; --from, --loop and --stateless to stateless ones."""
    stateless = [f for f in ("--from", "--loop", "--stateless", "--qr-iteration", "--qr-fail")
                 if f in given]
    if "--at" in one and "--run" not in one:
        raise UsageError("--at goes with --run", fix="Run the printed command unchanged")
    if "--run" in one and stateless:
        raise UsageError(f"--run cannot go with {stateless[0]}",
                         fix="Run the printed command unchanged")
    if "--parent" in one and ("--run" in one or stateless):
        raise UsageError("--parent is only for starting a run",
                         fix="Give --parent on the first step only")
    for alone in ("--self", "--fix"):
        if alone in given and "--parent" not in one:
            raise UsageError(f"{alone} goes with --parent",
                             fix=f"Add {alone} only to a sub-agent's command, which carries "
                                 "--parent")


def _params(workflow: Workflow, one: dict[str, str]) -> dict[str, str]:
    """The workflow's params: given or default, each one line of printable text."""
    params: dict[str, str] = {}
    for param in workflow.params:
        value = one.get(f"--{param.name}", param.default)
        if value is None:
            continue
        check_param(param.name, value)
        if param.choices and value not in param.choices:
            raise UsageError(f"--{param.name} {value[:40]} is not one of the choices",
                             fix=f"Use one of: {', '.join(param.choices)}"
                             + did_you_mean(value, param.choices))
        problem = param.check(value) if param.check and f"--{param.name}" in one else None
        if problem:
            raise UsageError(f"--{param.name} is refused: {problem}",
                             fix="Fix the value and run the command again")
        params[param.name] = value
    return params


def _number(flag: str, value: str | None) -> int | None:
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()):
        raise UsageError(f"{flag} {value[:20]} is not a whole number",
                         fix="Run the printed command unchanged")
    return int(value)


def _pairs(items: list[str], flag: str) -> list[tuple[str, str]]:
    pairs = []
    seen: set[str] = set()
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} '{item[:40]}' is not KEY=VALUE",
                             fix=f"Write it as {flag} KEY='VALUE'")
        if key in seen:
            if (key, value) in pairs:  # a value the command already carries, added again
                continue
            raise UsageError(f"{key} is given twice, with different values",
                             fix="Give each KEY once")
        seen.add(key)
        pairs.append((key, value))
    return pairs


def _counts(items: list[str]) -> dict[str, int]:
    counts = {}
    for key, value in _pairs(items, "--loop"):
        if not (value.isascii() and value.isdigit()):
            raise UsageError(f"--loop {key}={value} is not a whole number",
                             fix="Run the printed command unchanged")
        counts[key] = int(value)
    return counts
