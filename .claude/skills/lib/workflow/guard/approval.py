"""Commands the user may approve for one run beyond the policy (a plan's test runner): which
refusals an approval can lift, and the verdict on a command a plan proposes. An approved command
is then run word for word through the gateway all the same (gateway.py, Policy.approved)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..authoring.commandtext import words
from ..base.errors import GatewayRefusal
from .gateway import check

if TYPE_CHECKING:
    from .gatepolicy import Policy

#: Refusals of the policy's allow-list, which the user may lift for one exact command; every
#: other refusal (syntax, paths, variables, a program not installed) stays a problem.
APPROVABLE = frozenset({"not-in-policy", "subcommand", "interpreter-option", "option",
                        "option-value", "operand", "not-in-allowed-tools", "not-a-script",
                        "script-outside-skill"})
#: The only variables an approved command may hold: known before the run, so the command the
#: user approves is the command that runs.
LITERAL = frozenset({"WORKSPACE", "SKILL_DIR"})


def filler(known: Mapping[str, str]) -> Callable[[str], str]:
    """Puts the `known` variables into a word as a run would; an unknown `${NAME}` stays as
    written (the gateway refuses it), with no warning: a plan check reports it once."""
    from ..authoring.substitution import ALIASES, VARIABLE

    def fill(word: str) -> str:
        def one(m: re.Match[str]) -> str:
            name = ALIASES.get(m.group(2) or "ARGUMENTS", m.group(2) or "ARGUMENTS")
            return known.get(name, m.group()) if not m.group(1) else m.group(1)
        return re.sub(VARIABLE, one, word)

    return fill


def verdict(command: str, policy: Policy, fill: Callable[[str], str] = str
            ) -> tuple[GatewayRefusal | None, bool]:
    """(why the command can never run, whether it runs only once the user approves it)."""
    try:
        check(command, policy, fill)
        return None, False
    except GatewayRefusal as exc:
        if exc.rule not in APPROVABLE:
            return exc, False
        if set(re.findall(r"\$\{(\w+)\}", command)) - LITERAL:
            return GatewayRefusal("approval-not-literal", f"{exc.what}; a command the user "
                                  "approves is approved word for word, so it may use no run "
                                  "values", "Use only ${WORKSPACE} and ${SKILL_DIR}"), False
    try:  # as the approved command would run: installed, its words inside the project
        approved = frozenset({tuple(fill(w) for w in words(command))})
        check(command, policy._replace(approved=approved), fill)
    except GatewayRefusal as again:
        return again, False
    return None, True
