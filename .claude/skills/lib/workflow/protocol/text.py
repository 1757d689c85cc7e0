"""The alternate renderings (PROTOCOL.md section 8), derived from the same element tree so they
cannot carry different information: `--format json` is the tree as nested objects, `--format
text` is the tree as indented plain text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any


def to_data(node: ET.Element) -> dict[str, Any]:
    """An element as {"tag", "attrs", "text", "children", "tail"}; empty parts are left out.
    `tail` is the text after an element inside its parent (a `<DO>`'s lines between its
    elements)."""
    data: dict[str, Any] = {"tag": node.tag}
    if node.attrib:
        data["attrs"] = dict(node.attrib)
    text = (node.text or "").strip() if len(node) else (node.text or "")
    if text:
        data["text"] = text
    if len(node):
        data["children"] = [to_data(child) for child in node]
    if node.tail and node.tail.strip():
        data["tail"] = node.tail.strip()
    return data


def to_json(root: ET.Element) -> str:
    return json.dumps(to_data(root), ensure_ascii=False, indent=2) + "\n"


def to_text(root: ET.Element) -> str:
    """Plain text: one heading line per element (its tag and attributes), its text indented."""
    lines: list[str] = []
    _text_lines(root, 0, lines)
    return "\n".join(lines) + "\n"


def _text_lines(node: ET.Element, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    attrs = " ".join(f"{k}={_quote(v)}" for k, v in node.attrib.items())
    lines.append(f"{pad}{node.tag.upper()}" + (f" [{attrs}]" if attrs else ""))
    text = (node.text or "").strip() if len(node) else (node.text or "")
    if text:  # not re-wrapped: a command must stay on one line, exactly as printed
        lines.extend(f"{pad}  {line}" for line in text.splitlines())
    for child in node:
        _text_lines(child, depth + 1, lines)
        tail = (child.tail or "").strip()
        if tail:  # a <DO>'s lines after one of its elements
            lines.extend(f"{pad}  {line}" for line in tail.splitlines())


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False) if (" " in value or not value) else value
