"""W015 (docs/DESIGN.md section 7): the names a workflow puts on command lines and in tags
(its name and skill, step ids, outcomes, arg keys and params) must survive both unquoted."""

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..base.errors import Finding

if TYPE_CHECKING:
    from .model import Workflow

_KEBAB = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*\Z")
_ARG_KEY = re.compile(r"[A-Z][A-Z0-9_]*\Z")
#: Flags the step runner owns; a workflow param may not take these names.
RESERVED_PARAMS = frozenset({"step", "outcome", "from", "set", "set-file", "format", "loop",
                             "total-steps", "help", "run", "resume", "no-run", "stateless",
                             "parent", "qr-iteration", "qr-fail", "qr-status"})


def _finding(wf: "Workflow", message: str, step: str | None = None, fix: str = "") -> Finding:
    return Finding("W015", wf.name, message, step, None, fix)


def check_names(wf: "Workflow", _: object) -> Iterator[Finding]:
    """W015: a name that would not survive a command line or a tag."""
    for name, what in [(wf.name, "workflow name"), (wf.skill, "skill name")]:
        if not _KEBAB.match(name):
            yield _finding(wf, f"{what} '{name}' is not lowercase-kebab",
                           fix="Use letters, digits and single hyphens, starting with a letter")
    for step in wf.steps:
        for label, what in [(step.id, "step id")] + [(o, "outcome") for o in step.next]:
            if not _KEBAB.match(label):
                yield _finding(wf, f"{what} '{label}' is not lowercase-kebab", step.id,
                               fix="Use letters, digits and single hyphens, starting with a "
                                   "letter")
        for arg in step.args:
            if not _ARG_KEY.match(arg.key):
                yield _finding(wf, f"arg key '{arg.key}' is not UPPER_SNAKE", step.id,
                               fix="Use capitals, digits and underscores, e.g. ROOT_CAUSE")
    for edge in wf.rework_edges:
        counter = edge.rework.counter if edge.rework is not None else ""
        if counter and not _KEBAB.match(counter):
            yield _finding(wf, f"rework counter '{counter}' is not lowercase-kebab",
                           edge.source, fix="Name the shared counter like a step id, e.g. "
                                            "'attempts'")
    for param in wf.params:
        if not _KEBAB.match(param.name) or param.name in RESERVED_PARAMS:
            yield _finding(wf, f"param name '{param.name}' is not lowercase-kebab or is "
                           "a flag the step runner owns", fix="Rename the param")
