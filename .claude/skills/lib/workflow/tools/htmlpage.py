"""A small HTML element tree and the one function that serializes it (`skillrail report`).

Pages are built as `Node`s, never as strings: `serialize` writes every text and attribute value
through `html.escape`, after `clean` has dropped the characters HTML cannot carry (NUL, C0
controls, lone surrogates). Tag and attribute names are checked, since they are written as
they are. The one raw text is a `<style>` sheet from code, which must not hold '<'. An SVG
picture comes in as markup and is read into elements (`svg`), so it is written the same way.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import NamedTuple

from ..protocol.xml import clean

_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9-]*\Z")  # SVG's names have capitals (viewBox)
_VOID = frozenset({"meta", "br", "hr"})
_SVG = "{http://www.w3.org/2000/svg}"
#: The SVG elements a drawn diagram is made of: nothing that runs, links or loads.
_DRAWING = frozenset({"svg", "g", "title", "desc", "text", "tspan", "rect", "polygon",
                      "polyline", "path", "ellipse", "circle", "line"})


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


def svg(markup: str) -> Node:
    """An SVG picture as elements, for inline use: names without their namespace, namespaced
    attributes (xlink) and event handlers dropped, whitespace between elements dropped. Raises
    ValueError on markup that is not well-formed or holds an element a drawing does not need
    (script, a, image, foreignObject, ...)."""
    try:
        root = ET.fromstring(markup)
    except ET.ParseError as exc:
        raise ValueError(f"not well-formed SVG: {exc}") from None
    if root.tag != _SVG + "svg":
        raise ValueError(f"not an SVG picture: <{root.tag}>")
    return _drawing(root)


def _drawing(node: ET.Element) -> Node:
    tag = node.tag.removeprefix(_SVG)
    if tag not in _DRAWING:
        raise ValueError(f"an SVG picture may not hold <{tag}>")
    attrs = tuple((k, v) for k, v in node.attrib.items()
                  if not k.startswith("{") and not k.lower().startswith("on"))
    keep_space = tag in ("text", "tspan", "title", "desc")

    def kept(text: str | None) -> str | None:
        return text if text and (keep_space or text.strip()) else None

    kids: list[Node | str | None] = [kept(node.text)]
    for child in node:
        kids += [_drawing(child), kept(child.tail)]
    return Node(tag, attrs, tuple(k for k in kids if k is not None))


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
