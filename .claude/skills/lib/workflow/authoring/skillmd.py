"""SKILL.md's frontmatter, read: the mapping of its keys, and `allowed-tools` as a list.
yaml loads only here, and only when a caller asks (the lint is skilllint.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
    import yaml

    try:
        parts = split_frontmatter(path.read_text(encoding="utf-8"))
        data = yaml.safe_load(parts[0]) if parts is not None else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return data if isinstance(data, dict) else None


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
