"""Substitutions in author texts: `${SKILL_DIR}`, `$ARGUMENTS` and their kin, an escaped
`$${NAME}`, and the `` !`cmd` `` pattern of context injection (docs/gateway.md). Pure text work:
what a value holds never becomes a variable or a command."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Mapping

from ..base.paths import project_root

#: `$${NAME}` (an escaped, literal `${NAME}`), `${NAME}`, `$ARGUMENTS` or `$ARGUMENTS[N]`.
VARIABLE = r"\$(\$\{[A-Za-z_]\w*\})|\$\{([A-Za-z_]\w*)\}|\$ARGUMENTS(?:\[(\d+)\])?"
#: `` !`cmd` ``: a command whose output the step shows.
INJECTION = r"!`([^`\n]+)`"
# Both are compiled (by `re`'s cache) only when a text holds a `$` or a `` !` ``: most steps
# hold neither, and every step invocation would pay for compiling them at import.
#: Names Claude Code gives the same values, accepted so a SKILL.md reads the same in both.
ALIASES = {"CLAUDE_SKILL_DIR": "SKILL_DIR", "CLAUDE_SESSION_ID": "SESSION_ID"}
NAMES = ("ARGUMENTS", "SKILL_DIR", "SESSION_ID", "WORKSPACE", "DATE", "USER")


def variables(skill_dir: str, run: str | None, arguments: str = "",
              workspace: str | None = None) -> dict[str, str]:
    """The values of the substitution variables."""
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
    if not user:
        import getpass

        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "unknown"
    return {"ARGUMENTS": arguments, "SKILL_DIR": skill_dir, "SESSION_ID": run or "",
            "WORKSPACE": workspace or project_root(),
            "DATE": time.strftime("%Y-%m-%d"), "USER": user}


class Substituter:
    """Puts variable values into texts; an unknown `${NAME}` stays as written, with one warning
    per name on stderr (a typo should be visible, never fatal)."""

    def __init__(self, values: Mapping[str, str], where: str) -> None:
        self.values, self.where, self.warned = dict(values), where, set[str]()

    def __call__(self, text: str) -> str:
        if "$" not in text:
            return text
        return re.sub(VARIABLE, self._one, text)

    def _one(self, match: re.Match[str]) -> str:
        escaped, name, index = match.groups()
        if escaped:
            return escaped
        if name is None:  # $ARGUMENTS or $ARGUMENTS[N]
            whole = self.values.get("ARGUMENTS", "")
            return whole if index is None else _word(whole, int(index))
        name = ALIASES.get(name, name)
        if name in self.values:
            return self.values[name]
        if name not in self.warned:
            self.warned.add(name)
            sys.stderr.write(f"warning: unknown variable ${{{name}}} ({self.where}); it is "
                             f"shown as written. Known: {', '.join(NAMES)}\n")
        return match.group()


def _word(arguments: str, index: int) -> str:
    import shlex

    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    return words[index] if index < len(words) else ""


def expand_document(text: str, substitute: Substituter) -> str:
    """A SKILL.md body or resource: substituted, with the arguments appended under an
    'ARGUMENTS:' line when the text never uses $ARGUMENTS (as Claude Code does)."""
    arguments = substitute.values.get("ARGUMENTS", "")
    out = substitute(text)
    if arguments and "$ARGUMENTS" not in text:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {arguments}\n"
    return out
