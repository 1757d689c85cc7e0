"""SKILL.md's frontmatter, read: the mapping of its keys, and `allowed-tools` as a list.
yaml loads only here, only when a caller asks (the lint is skilllint.py), and only for
frontmatter that is more than plain `key: value` lines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: The Agent Skills specification's frontmatter keys.
SPEC_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata",
                       "allowed-tools"})
#: Keys Claude Code reads beyond the spec; accepted unless linting for the bare spec.
CLAUDE_CODE_KEYS = frozenset({"disallowed-tools", "model", "context", "agent", "argument-hint",
                              "when_to_use", "hooks", "user-invocable",
                              "disable-model-invocation", "version"})


def split_frontmatter(text: str) -> tuple[str, str, int] | None:
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    if end < 0:
        return None
    front = text[4:end + 1]
    return front, text[end + 5:], front.count("\n") + 3


def read_frontmatter(path: Path) -> dict[str, Any] | None:
    """The frontmatter mapping of a SKILL.md, or None when it is missing or unreadable (lint
    reports those problems; callers that only need a key go on without it)."""
    try:
        parts = split_frontmatter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    if parts is None:
        return None
    data = plain_frontmatter(parts[0])
    if data is not None:
        return data
    import yaml

    try:
        data = yaml.safe_load(parts[0])
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


#: A line of plain frontmatter: a key and a value YAML reads as that very string.
_PLAIN_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*): ([A-Za-z][^\t]*?) *")
#: A line whose value is a setting (execution.py): a whole number, true or false, or a
#: duration such as 30s or 1m30s, which YAML reads as an int, a bool and a string.
_SETTING_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*): (0|[1-9][0-9]{0,8}|true|false"
                           r"|(?:[0-9]{1,6}(?:ms|s|m|h))+) *")
#: Plain words YAML reads as a boolean or null, whatever their case.
_NOT_STRINGS = {"yes", "no", "true", "false", "on", "off", "null"}


def plain_frontmatter(front: str) -> dict[str, str | int | bool] | None:
    """The frontmatter as YAML reads it, when every line is `key: value` with a value that YAML
    reads as that very string (it starts with a letter, so it is no number or date, and holds
    no comment, no nested mapping, no YAML word), or a setting's number, true, false or
    duration; None otherwise, and then yaml decides. The SKILL.md files people write take this
    path, and spare a step yaml's import."""
    lines = front.split("\n")[:-1]
    if not lines:
        return None
    found: dict[str, str | int | bool] = {}
    for line in lines:
        setting = _SETTING_LINE.fullmatch(line)
        match = setting or _PLAIN_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match.groups()
        if key in found or key.lower() in _NOT_STRINGS:
            return None
        if setting is not None:
            found[key] = (value == "true" if value in ("true", "false")
                          else int(value) if value.isdigit() else value)
            continue
        if (not value.isprintable() or " #" in value or ": " in value
                or value.endswith(":") or value.lower() in _NOT_STRINGS):
            return None
        found[key] = value
    return found


def tool_list(value: Any) -> list[str]:
    """`allowed-tools` as a list: YAML list, or one string separated by commas or spaces
    outside parentheses ("Read, Grep, Bash(git diff:*)")."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    tools, depth, current = [], 0, ""
    for char in str(value or ""):
        depth += (char == "(") - (char == ")")
        if depth == 0 and char in ", ":
            tools.append(current)
            current = ""
        else:
            current += char
    return [t.strip() for t in [*tools, current] if t.strip()]
