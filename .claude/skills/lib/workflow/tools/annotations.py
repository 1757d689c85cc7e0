"""GitHub Actions annotations (workflow commands such as `::error file=F,line=N::message`), so a
CI run shows each problem on the line of the script that causes it. Pure text; `skillrail
validate --format github` prints them."""

from __future__ import annotations

import re


def escape_data(text: str) -> str:
    """A message: `%` and line breaks would corrupt or end the command, so they are encoded
    (`%` first, or the other escapes would be encoded again)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: as a message, plus `:` and `,`, which separate the properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(message: str, *, file: str | None = None, line: int | None = None,
               title: str | None = None, level: str = "error") -> str:
    """One workflow command; properties that are None are left out."""
    props = [(key, value) for key, value in
             (("file", file), ("line", None if line is None else str(line)), ("title", title))
             if value is not None]
    head = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    return f"::{level}{' ' + head if head else ''}::{escape_data(message)}"


def step_line(source: str, step_id: str) -> int:
    """The 1-based line of a step's definition in a script's source: its id as a string literal
    right after `StepDef(`, else the id's first literal anywhere (steps built by helpers such as
    `qr_loop`, or legacy scripts), else 1."""
    literal = rf"""(?P<id>"{re.escape(step_id)}"|'{re.escape(step_id)}')"""
    for pattern in (r"StepDef\(\s*(?:id\s*=\s*)?" + literal, literal):
        found = re.search(pattern, source)
        if found:
            return source.count("\n", 0, found.start("id")) + 1
    return 1
