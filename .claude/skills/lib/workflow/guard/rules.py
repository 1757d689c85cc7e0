"""Claude Code permission rules ("Read", "Edit", "Bash(git log:*)", "WebFetch(domain:x.org)",
"Read(./src/**)", "mcp__github"), matched against one tool call the way Claude Code reads them:

- a bare tool name allows every call of the tool; "Edit" covers every file-editing tool and
  "Read" every file-reading one (Claude Code applies them so), "Agent" and "Task" are one tool
  under its old and new name, "mcp__server" covers the server's tools;
- Bash: `prefix:*` matches the command and anything after it, a `*` elsewhere is a wildcard,
  otherwise the command must be exactly the text; every simple command of a line must match;
- file tools: a gitignore-like path pattern (`//abs`, `~/home`, `/` or `./` from the project);
- WebFetch: `domain:host` matches the host and its subdomains;
- Skill and Agent: the skill or sub-agent type, wildcards allowed.
A specifier on any other tool is not interpreted: the rule then allows the tool by name
(the hooks fail open rather than refuse what they cannot read).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase

from .shell import Simple

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from ..base.records import NamedTuple

FAMILIES = {
    "Edit": frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"}),
    "Read": frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead"}),
    "Agent": frozenset({"Agent", "Task"}),
    "Task": frozenset({"Agent", "Task"}),
}
_PATH_KEYS = ("file_path", "notebook_path", "path")


class Rule(NamedTuple):
    tool: str
    spec: str | None = None

    def __str__(self) -> str:
        return self.tool if self.spec is None else f"{self.tool}({self.spec})"


def parse(texts: Iterable[str]) -> tuple[Rule, ...]:
    """Rules from their texts; "Tool(spec)" or "Tool"."""
    rules = []
    for text in texts:
        text = text.strip()
        head, paren, rest = text.partition("(")
        if paren and rest.endswith(")"):
            rules.append(Rule(head.strip(), rest[:-1].strip() or None))
        elif text:
            rules.append(Rule(text))
    return tuple(rules)


def names_tool(rule: Rule, tool: str) -> bool:
    """Whether `rule` is about `tool` (before its specifier is looked at)."""
    if tool == rule.tool or tool in FAMILIES.get(rule.tool, ()):
        return True
    if rule.tool.startswith("mcp__"):
        return tool.startswith(rule.tool + "__") or fnmatchcase(tool, rule.tool)
    return False


def allows_call(rules: Iterable[Rule], tool: str, tool_input: Mapping[str, Any],
                cwd: str) -> bool:
    """Whether some rule allows a call of `tool` (anything but Bash) with `tool_input`."""
    return any(names_tool(r, tool) and (r.spec is None or _spec_allows(r, tool, tool_input, cwd))
               for r in rules)


def allows_bash(rules: Iterable[Rule], simple: Simple) -> bool:
    """Whether a Bash rule allows the simple command `simple`."""
    text = " ".join(simple.words)
    return any(r.tool == "Bash" and (r.spec is None or bash_matches(r.spec, text))
               for r in rules)


def bare_bash(rules: Iterable[Rule]) -> bool:
    """A plain `Bash` rule: every command, even one the hooks cannot read."""
    return any(r == Rule("Bash") for r in rules)


def bash_matches(spec: str, command: str) -> bool:
    if spec.endswith(":*"):
        prefix = spec[:-2]
        return command == prefix or command.startswith(prefix + " ")
    if "*" in spec:
        return fnmatchcase(command, spec)
    return command == spec


def _spec_allows(rule: Rule, tool: str, tool_input: Mapping[str, Any], cwd: str) -> bool:
    assert rule.spec is not None
    if tool in FAMILIES["Edit"] | FAMILIES["Read"]:
        path = next((tool_input[k] for k in _PATH_KEYS if isinstance(tool_input.get(k), str)),
                    cwd)
        return path_matches(rule.spec, str(path), cwd)
    if tool == "WebFetch" and rule.spec.startswith("domain:"):
        from urllib.parse import urlsplit

        host = urlsplit(str(tool_input.get("url", ""))).hostname or ""
        domain = rule.spec[len("domain:"):].lower()
        return host == domain or host.endswith("." + domain)
    subject = {"Skill": "skill", "Agent": "subagent_type", "Task": "subagent_type"}.get(tool)
    if subject is not None:
        return fnmatchcase(str(tool_input.get(subject, "")), rule.spec)
    return True  # a specifier this module does not read: allowed by the tool's name


def path_matches(spec: str, path: str, cwd: str) -> bool:
    """`path` against a gitignore-like pattern: `//abs`, `~/in-home`, `/` or `./` or a bare
    pattern from the project (the working directory). A pattern without wildcards also
    matches everything below it."""
    if spec.startswith("//"):
        pattern = spec[1:]
    elif spec.startswith("~/"):
        pattern = os.path.expanduser(spec)
    else:
        pattern = os.path.join(cwd, spec.lstrip("/").removeprefix("./"))
    pattern = os.path.normpath(pattern) + ("/" if spec.endswith("/") else "")
    target = os.path.normpath(os.path.join(cwd, path))
    if fnmatchcase(target, pattern) or fnmatchcase(target, pattern.rstrip("/") + "/*"):
        return True
    return not any(c in pattern for c in "*?[") and target.startswith(pattern.rstrip("/") + "/")
