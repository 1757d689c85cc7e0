"""Who sees how much of a run's history: the `visibility` section of a project's
`.claude/skillrail.yaml` (validated with the rest of that file, gatemodel.py), read from the
workspace the run started in, whose policy its commands ran under.

    visibility:
      roles: {end_user: summary, developer: full}   # a trace level per role
      sensitive_tools: ["Bash(curl:*)", "WebFetch"]  # Claude Code's tool rules

`skillrail trace RUN --role ROLE` shows the run at the role's level. Without the file, or
without `roles` in it, the roles are DEFAULT_ROLES; a file's `roles` replaces them. At every
level, for every role, an event, a value or an injected command's output that names a sensitive
tool is shown as HIDDEN: a Bash rule's command (`curl` of `Bash(curl:*)`) as words in the text,
or for an injected command (its `exec` and `context` events) any command when the rule is a bare
`Bash`; another tool by its name (`WebFetch`; `Edit` and `Read` by every tool of their family,
`mcp__server` by its tools), with its specifier's text too when the rule has one
(`WebFetch(domain:example.com)`: both 'WebFetch' and 'example.com').
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import NamedTuple

from ..base.errors import UsageError
from .rules import FAMILIES, Rule, bare_bash, parse

DEFAULT_ROLES: Mapping[str, str] = {"end_user": "summary", "developer": "full"}
#: What replaces a text that names a sensitive tool (redaction's masks never match it).
HIDDEN = "[HIDDEN:sensitive-tool]"
#: The events that record an injected command (step/injection.py).
_COMMAND_EVENTS = ("exec", "context")


class Visibility(NamedTuple):
    """The roles with their levels, the sensitive tools, and the file they come from ('' for
    the defaults)."""

    roles: Mapping[str, str]
    sensitive: tuple[Rule, ...]
    source: str = ""

    def level(self, role: str) -> str:
        """The trace level of `role`; a UsageError naming the roles there are."""
        if role not in self.roles:
            where = self.source or "the defaults, as no .claude/skillrail.yaml sets roles"
            raise UsageError(f"unknown role '{role}'", f"roles of {where}",
                             fix="Use one of: " + ", ".join(self.roles))
        return self.roles[role]

    def hides(self) -> Callable[[str, str], bool]:
        """Whether a text (of an event of that kind, or '' for a value) names a sensitive
        tool: the test every shown text passes."""
        patterns = [_pattern(rule) for rule in self.sensitive]
        every_command = bare_bash(self.sensitive)

        def named(kind: str, text: str) -> bool:
            if every_command and kind in _COMMAND_EVENTS:
                return True
            return any(all(p.search(text) for p in group) for group in patterns)
        return named


def load_visibility(folder: str) -> Visibility:
    """The visibility of runs that live in the project `folder` (ledger/workspace.folder_of): its
    project file's, else the defaults."""
    from .gatepolicy import PROJECT_FILE, checked_project, read_policy_file

    project = os.path.join(folder, PROJECT_FILE)
    if not os.path.isfile(project):
        return Visibility(DEFAULT_ROLES, ())
    section = checked_project(read_policy_file(project), project).get("visibility") or {}
    return Visibility(section.get("roles") or DEFAULT_ROLES,
                      parse(section.get("sensitive_tools") or ()),
                      project if section.get("roles") else "")


def _pattern(rule: Rule) -> list[re.Pattern[str]]:
    """What a text must hold, all of it, to name the tool of `rule`."""
    if rule.tool == "Bash":
        command = (rule.spec or "").removesuffix(":*").split("*")[0].split()
        return [_words(command)] if command else [_words(["Bash"])]
    names = sorted(FAMILIES.get(rule.tool, frozenset()) | {rule.tool})
    tail = r"(?:__\w+)?" if rule.tool.startswith("mcp__") else ""
    found = [re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + ")" + tail
                        + r"(?![\w-])")]
    spec = (rule.spec or "").removeprefix("domain:").split("*")[0].strip()
    return found + ([re.compile(re.escape(spec), re.IGNORECASE)] if spec else [])


def _words(words: list[str]) -> re.Pattern[str]:
    """The words in a row, each whole (`curl` in `/usr/bin/curl -s`, not in `libcurl`)."""
    return re.compile(r"(?<![\w-])" + r"\s+".join(map(re.escape, words)) + r"(?![\w-])")
