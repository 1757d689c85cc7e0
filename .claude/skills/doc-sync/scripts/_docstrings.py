"""The parameters that the docstrings of a Python file's public functions and classes document
(reST, Google or NumPy style), each with the parameters the function really takes, for
doc-sync's check. Used by _docchecks.py."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import ast
import re

from _docrefs import Ref

_REST_PARAM = re.compile(r":param\s+(?:[^:]*\s)?\*{0,2}(\w+)\s*:")
_GOOGLE = {"Args:", "Arguments:", "Parameters:", "Keyword Args:", "Keyword Arguments:"}
#: A Google (`name (type): text`) or NumPy (`name : type`, `a, b : int`) entry's names.
_ENTRY = re.compile(r"^(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?:\([^)]*\))?\s*(?::|$)")


def docstring_refs(source: str) -> list[Ref]:
    """The parameters each public function's (or class's) docstring documents, in reST
    (:param x:), Google (Args:) or NumPy (Parameters) style, with the real parameters."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    refs = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
                or node.name.startswith("_"):
            continue
        doc = ast.get_docstring(node, clean=False)
        target = node if not isinstance(node, ast.ClassDef) else next(
            (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
            None)
        if not doc or target is None:
            continue
        args = target.args
        real = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        real += [args.vararg.arg] if args.vararg else []
        real += ["*"] if args.kwarg else []
        start = node.body[0].lineno
        refs += [Ref("param", start + offset, name, (node.name, *real))
                 for offset, name in documented_params(doc)]
    return refs


def documented_params(doc: str) -> list[tuple[int, str]]:
    """(line offset, name) of each parameter a docstring documents."""
    found: list[tuple[int, str]] = []
    lines = doc.splitlines()
    style, header, entry = "", 0, -1  # the open section: its style, header indent, entry indent
    for n, line in enumerate(lines):
        found += [(n, name) for name in _REST_PARAM.findall(line)]
        text, depth = line.strip(), len(line) - len(line.lstrip())
        dashes = n + 1 < len(lines) and set(lines[n + 1].strip()) == {"-"}
        if style and text and (depth < header or (depth == header and (
                style == "google" or dashes))):
            style = ""  # a line back at the header's indent closes the section
        if text in _GOOGLE or (text in ("Parameters", "Other Parameters") and dashes):
            style, header, entry = ("google" if text in _GOOGLE else "numpy"), depth, -1
            continue
        if not style or not text or set(text) == {"-"}:
            continue
        entry = depth if entry < 0 and style == "google" else entry
        at_entry = depth == (entry if style == "google" else header)
        names = _ENTRY.match(text)
        if at_entry and names:
            found += [(n, name) for name in re.findall(r"\w+", names.group(1))]
    return found
