"""What the text of a command must be before anything else is asked of it: one line, not too
long, words that `shlex` can split, and no shell syntax in any word (commands run without a
shell, so a `;` or `$(...)` is never what an author meant, and it is how injections look).

Registration checks a `verify=` command with `static_problem` (W018, whatever the policy and
the variables' values); the gateway splits and checks every command with the same functions.
"""

from __future__ import annotations

import re
import shlex

from ..base.errors import GatewayRefusal, shortened
from .substitution import VARIABLE

#: Characters with a meaning to a shell.
SHELL_SYNTAX = re.compile(r"[;&|<>`$(){}\\]")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
MAX_COMMAND_CHARS = 2_000


def static_problem(template: str) -> str | None:
    """What the gateway would refuse in `template` whatever the policy and the variables'
    values (for validation at registration), or None."""
    try:
        for word in words(template):
            check_syntax(re.sub(VARIABLE, "x", word))
    except GatewayRefusal as exc:
        return exc.what
    return None


def words(template: str) -> list[str]:
    if _CONTROL.search(template):
        raise GatewayRefusal("control-character", "the command holds a line break, NUL or other "
                             "control character", "Write one command on one line")
    if len(template) > MAX_COMMAND_CHARS:
        raise GatewayRefusal("too-long", f"the command has {len(template)} characters, more "
                             f"than {MAX_COMMAND_CHARS}", "Shorten it")
    try:
        words = shlex.split(template, comments=False, posix=True)
    except ValueError as exc:
        raise GatewayRefusal("unparsable", f"the command cannot be split into words ({exc})",
                             "Balance its quotes") from None
    if not words:
        raise GatewayRefusal("empty", "the command is empty", "Name a command to run")
    return words


def check_syntax(word: str) -> None:
    unknown = re.search(r"\$\{(\w+)\}", word)
    if unknown:  # left as written by the substitution: no value exists for it here
        raise GatewayRefusal("unknown-variable", f"${{{unknown.group(1)}}} has no value here",
                             "Use a variable that is known when the command runs: SKILL_DIR, "
                             "WORKSPACE, SESSION_ID, DATE, USER, ARGUMENTS, a param, or a "
                             "memory value an earlier step recorded")
    if _CONTROL.search(word):
        raise GatewayRefusal("control-character", "an argument holds a line break, NUL or "
                             "other control character", "Pass one-line values")
    found = SHELL_SYNTAX.search(word)
    if found:
        raise GatewayRefusal("shell-syntax", f"'{found.group()}' in '{shortened(word)}': commands "
                             "run without a shell, so pipes, redirections, substitutions and "
                             "command lists are refused", "Run one plain command; move any "
                             "logic into a script inside the skill folder")


