"""A small HTML element tree and the one function that serializes it (`skillrail report`).

Pages are built as `Node`s, never as strings: `serialize` writes every text and attribute value
through `html.escape`, after `clean` has dropped the characters HTML cannot carry (NUL, C0
controls, lone surrogates). Tag and attribute names are checked, since they are written as
they are. The one raw text is a `<style>` sheet from code, which must not hold '<'.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import NamedTuple

from ..protocol.xml import clean

_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")
_VOID = frozenset({"meta", "br", "hr"})


class Node(NamedTuple):
    """One element: its tag, its attributes in order, its children (elements and texts)."""

    tag: str
    attrs: tuple[tuple[str, str], ...] = ()
    children: tuple[Node | str, ...] = ()


#: What `el` accepts as a child: an element, a text, None (left out) or several of these.
Child = Node | str | None | Iterable[Node | str | None]


def el(tag: str, *children: Child, **attrs: str | int | None) -> Node:
    """An element. `class_` sets the class; attributes and children that are None are left
    out; nested iterables of children are flattened one level."""
    kids: list[Node | str] = []
    for child in children:
        if child is None:
            continue
        if isinstance(child, Node | str):
            kids.append(child)
        else:
            kids.extend(c for c in child if c is not None)
    pairs = tuple((name.rstrip("_").replace("_", "-"), str(value))
                  for name, value in attrs.items() if value is not None)
    return Node(tag, pairs, tuple(kids))


def document(title: str, style: str, body: Iterable[Node]) -> str:
    """A whole page: doctype, UTF-8, title, inline style sheet, body."""
    head = el("head", el("meta", charset="utf-8"),
              el("meta", name="viewport", content="width=device-width, initial-scale=1"),
              el("title", title), el("style", style))
    return "<!DOCTYPE html>\n" + serialize(el("html", head, el("body", body), lang="en")) + "\n"


def serialize(node: Node) -> str:
    """The markup of `node` and its subtree."""
    out: list[str] = []
    _write(node, out)
    return "".join(out)


def _write(node: Node, out: list[str]) -> None:
    for name in (node.tag, *(k for k, _ in node.attrs)):
        if not _NAME.match(name):
            raise ValueError(f"not an HTML name: {name!r}")
    out.append("<" + node.tag)
    for key, value in node.attrs:
        out.append(f' {key}="{html.escape(clean(value), quote=True)}"')
    out.append(">")
    if node.tag in _VOID:
        return
    for child in node.children:
        if isinstance(child, Node):
            _write(child, out)
        elif node.tag == "style":
            if "<" in child:  # a raw text element: '<' could end it
                raise ValueError("a style sheet must not contain '<'")
            out.append(child)
        else:
            out.append(html.escape(clean(child), quote=False))
    out.append(f"</{node.tag}>")
