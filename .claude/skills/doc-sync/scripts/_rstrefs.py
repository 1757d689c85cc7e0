"""What a reStructuredText doc (a Sphinx project's, say) claims about its repository, read with
docutils, the reference parser: the files its `literalinclude`, `include`, `image` and `figure`
directives and its relative links name, the Python objects its Sphinx roles (`:func:`,
`:class:`, `:meth:`, ...) and `auto*` directives name, the pages its `:doc:` roles name, and the
commands of its shell code blocks and inline literals (as _docrefs.py reads them in markdown).
Text in, references out; the checker (_docchecks.py) decides what holds, and resolves a Python
object against the code (read, never imported: `python_object`).

docutils is a dependency of skillrail; an interpreter without it cannot read reST, and
`extract_rst` says so instead of guessing (the check then counts the doc as not checked)."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import ast
import functools
import re
from collections.abc import Callable, Collection
from typing import Any

from _docrefs import SHELL_LANGS, Ref, extract

#: Sphinx's roles that name a Python object, with and without the `py:` domain.
PY_ROLES = ("func", "class", "meth", "mod", "attr", "exc", "data", "obj", "const")
#: Directives that name a file: relative to the doc, or with a leading / to the source folder.
FILE_DIRECTIVES = ("literalinclude", "include", "image", "figure")
#: autodoc's directives, each naming a Python object.
AUTO_DIRECTIVES = ("automodule", "autoclass", "autofunction", "automethod", "autoattribute",
                   "autoexception", "autodata")
#: Directives that set the module later roles are relative to.
MODULE_DIRECTIVES = ("module", "currentmodule", "py:module", "py:currentmodule")
_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)  # `title <target>`


def extract_rst(text: str, doc: str, root: str, clis: Collection[str]) -> list[Ref] | str:
    """Every reference of the reST doc at `doc` (relative to `root`), in line order; or, when
    this interpreter has no docutils, why the doc cannot be read."""
    try:
        import docutils.core  # noqa: F401 - only whether it imports
    except ImportError:
        return ("docutils is not installed for this interpreter "
                f"({sys.executable}; pip install docutils)")
    found: list[Ref] = []
    with _reading(found, os.path.dirname(os.path.join(root, doc)), _source_dir(doc, root),
                  clis, text.splitlines()):
        from docutils import nodes
        from docutils.core import publish_doctree

        tree = publish_doctree(text, source_path=doc, settings_overrides={
            "report_level": 5, "halt_level": 5, "file_insertion_enabled": False,
            "raw_enabled": False, "warning_stream": False, "input_encoding": "unicode"})
        for node in tree.findall(nodes.literal_block):
            language = next((c for c in node.get("classes", []) if c != "code"), "")
            if language in SHELL_LANGS and node.line:
                found += _shifted(extract(f"```{language}\n{node.astext()}\n```", clis),
                                  node.line - len(node.astext().splitlines()) - 1)
        for node in tree.findall(nodes.literal):  # ``inline literal``: a path or a command
            if node.line is None and node.parent is not None:
                line = _line_of(node.parent)
            else:
                line = node.line or 0
            if line and "\n" not in node.astext():
                found += _shifted(extract(f"`{node.astext()}`", clis), line - 1)
        for node in tree.findall(nodes.reference):
            uri = node.get("refuri", "")
            if uri and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:|^#", uri):
                found.append(Ref("link", _line_of(node), uri.split("#")[0]))
    return sorted(found, key=lambda r: r.line)


def _shifted(refs: list[Ref], by: int) -> list[Ref]:
    return [r._replace(line=r.line + by) for r in refs]


def _line_of(node: Any) -> int:
    while node is not None and not getattr(node, "line", None):
        node = node.parent
    return getattr(node, "line", None) or 0


def _source_dir(doc: str, root: str) -> str:
    """Sphinx's source folder for `doc`: the nearest folder up from it holding conf.py, else
    the repository root (what a leading / in a directive's path is relative to)."""
    here = os.path.dirname(os.path.join(root, doc))
    while True:
        if os.path.isfile(os.path.join(here, "conf.py")):
            return here
        if os.path.realpath(here) == os.path.realpath(root) or os.path.dirname(here) == here:
            return root
        here = os.path.dirname(here)


class _reading:
    """Sphinx's roles and directives registered with docutils for one doc, each recording
    what it names into `found`; docutils' own include, image and figure replaced likewise
    (they would read the file, or say nothing of it)."""

    def __init__(self, found: list[Ref], here: str, source: str, clis: Collection[str],
                 lines: list[str]) -> None:
        self.found, self.here, self.source, self.clis = found, here, source, clis
        self.lines = lines
        self.module = ""  # the current module, as `.. currentmodule::` set it

    def line(self, rawtext: str, lineno: int) -> int:
        """The line a role's text is on: docutils gives its paragraph's first line."""
        first = rawtext.splitlines()[0] if rawtext else ""
        for number in range(max(lineno, 1), min(lineno + 200, len(self.lines)) + 1):
            if first and first in self.lines[number - 1]:
                return number
        return lineno

    def __enter__(self) -> "_reading":
        from docutils.parsers.rst import directives, roles

        self.saved = (dict(roles._roles), dict(directives._directives))
        for name in PY_ROLES:
            for spelled in (name, f"py:{name}"):
                roles.register_local_role(spelled, self._python_role(name))
        roles.register_local_role("doc", self._doc_role())
        for name in FILE_DIRECTIVES:
            directives.register_directive(name, self._directive(self._file))
        for name in AUTO_DIRECTIVES:
            directives.register_directive(name, self._directive(self._auto(name)))
        for name in MODULE_DIRECTIVES:
            directives.register_directive(name, self._directive(self._module, False))
        return self

    def __exit__(self, *exc: object) -> None:
        from docutils.parsers.rst import directives, roles

        roles._roles.clear()
        roles._roles.update(self.saved[0])
        directives._directives.clear()
        directives._directives.update(self.saved[1])

    def _python_role(self, kind: str) -> Any:
        def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                 options: Any = None, content: Any = None) -> tuple[list[Any], list[Any]]:
            from docutils import nodes

            target = _target(text)
            if not target.startswith("!"):  # `!name`: Sphinx's "no link", not a claim
                self.found.append(Ref("pyobject", self.line(rawtext, lineno),
                                      target.lstrip("~"), (kind, self.module)))
            return [nodes.literal(rawtext, text)], []
        return role

    def _doc_role(self) -> Any:
        def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                 options: Any = None, content: Any = None) -> tuple[list[Any], list[Any]]:
            from docutils import nodes

            self.found.append(Ref("link", self.line(rawtext, lineno),
                                  self._relative(_target(text)) + ".rst"))
            return [nodes.literal(rawtext, text)], []
        return role

    def _relative(self, path: str) -> str:
        """A directive's path as the checker reads a link: relative to the doc's folder (a
        leading / is Sphinx's source folder)."""
        if path.startswith("/"):
            return os.path.relpath(os.path.join(self.source, path.lstrip("/")), self.here)
        return path

    def _directive(self, record: Callable[[Any], None], whitespace: bool = True) -> Any:
        """A directive taking one argument and any options and content, which `record`s what
        it names and leaves nothing in the tree."""
        from docutils.parsers.rst import Directive

        class Recorded(Directive):
            required_arguments, optional_arguments = 1, 0
            final_argument_whitespace = whitespace
            option_spec = _AnyOptions()
            has_content = True

            def run(self) -> list[Any]:
                record(self)
                return []

        return Recorded

    def _file(self, directive: Any) -> None:
        path = directive.arguments[0].strip()
        if "://" not in path:
            self.found.append(Ref("link", directive.lineno, self._relative(path)))

    def _auto(self, kind: str) -> Callable[[Any], None]:
        def record(directive: Any) -> None:
            target = directive.arguments[0].split("(")[0].strip()
            self.found.append(Ref("pyobject", directive.lineno, target, (kind, self.module)))
        return record

    def _module(self, directive: Any) -> None:
        name = directive.arguments[0].strip()
        self.module = "" if name == "None" else name
        if directive.name in ("module", "py:module"):
            self.found.append(Ref("pyobject", directive.lineno, name, ("mod", "")))


class _AnyOptions(dict[str, Any]):
    """A directive's option spec that takes every option as text (Sphinx's have many). Not
    empty: docutils reads a directive's options only when its spec is true."""

    def __init__(self) -> None:
        super().__init__(any=None)

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return lambda value: value


def _target(text: str) -> str:
    titled = _TITLED.match(text)
    return (titled.group(2) if titled else text).strip()


# -- resolving a Python object against the code, read with ast, never imported ----------------

#: Where a project keeps its packages, beside the repository root.
SOURCE_FOLDERS = ("", "src", "lib", "python")


def python_object(root: str, target: str, module: str) -> tuple[str, str] | None:
    """Whether the dotted `target` (relative to `module` when it does not resolve alone) names
    an object the project's code defines: None when it does, or when it is not the project's
    (a standard-library or third-party name: not this check's to judge); else (what is wrong,
    the fix)."""
    target = target.lstrip(".")
    candidates = [(target, 0)] + ([(f"{module}.{target}", len(module.split(".")))]
                                  if module else [])
    judged = None
    for name, prefix in candidates:
        found = _resolve(root, name, prefix)
        if found is None:
            return None
        if found == "":
            continue  # not the project's
        judged = judged or found
    return None if judged is None else (judged, "fix or delete the reference")


def _resolve(root: str, dotted: str, prefix: int = 0) -> str | None:
    """None: `dotted` is defined; "": its first name is not the project's (nor, for a name
    relative to a module of `prefix` parts, the first name after them: a builtin, say); else
    what is wrong."""
    parts = [p for p in dotted.split(".") if p]
    if not parts or not _is_project(root, parts[0]):
        return ""
    for cut in range(len(parts), 0, -1):
        path = _module_file(root, parts[:cut])
        if path is None:
            continue
        rest = parts[cut:]
        if not rest:
            return None
        scope = _tree(path)
        if scope is None:
            return None  # unreadable source: not judged
        for depth, name in enumerate(rest):
            names = _names(scope)
            if name not in names and ("*" in names or (
                    isinstance(scope, ast.ClassDef) and scope.bases)):
                return None  # a star import or a base class may define it: not judged
            if name not in names and cut + depth <= prefix:
                return ""  # `int` under `.. currentmodule:: calc`: not the project's
            if name not in names:
                where = ".".join(parts[:cut + depth])
                return (f"names nothing the code defines: {where} has no '{name}'"
                        + _close(name, names))
            scope = names[name]
            if scope is None:  # an assignment or an import: what it holds is not read
                return None
        return None
    return f"names no module of the project ({'.'.join(parts)})"


def _is_project(root: str, first: str) -> bool:
    return _module_file(root, [first]) is not None


def _module_file(root: str, parts: list[str]) -> str | None:
    for folder in SOURCE_FOLDERS:
        base = os.path.join(root, folder, *parts)
        for path in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(path):
                return path
        if len(parts) == 1 and os.path.isdir(base) and any(
                f.endswith(".py") for f in os.listdir(base)):
            return os.path.join(base, "__init__.py") if os.path.isfile(
                os.path.join(base, "__init__.py")) else None
    return None


@functools.lru_cache(maxsize=512)
def _tree(path: str) -> ast.Module | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return ast.parse(handle.read(), filename=path)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


def _names(scope: Any) -> dict[str, Any]:
    """What a module or class body defines: classes and functions (their own bodies, for the
    next name), and names assigned or imported (None: not looked into)."""
    names: dict[str, Any] = {}
    for node in getattr(scope, "body", []):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = node if isinstance(node, ast.ClassDef) else None
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names.setdefault(name.id, None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:  # `from x import *` is kept as "*"
                names.setdefault((alias.asname or alias.name).split(".")[0], None)
        elif isinstance(node, (ast.If, ast.Try)):  # names defined under a condition count
            for part in (node.body, getattr(node, "orelse", []),
                         *[h.body for h in getattr(node, "handlers", [])]):
                names.update({k: v for k, v in _names(ast.Module(part, [])).items()
                              if k not in names})
    if "__getattr__" in names:
        names.setdefault("*", None)  # a module-level __getattr__ answers any name
    if isinstance(scope, ast.ClassDef):  # instance attributes set in its methods
        for node in ast.walk(scope):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self" and isinstance(node.ctx, ast.Store):
                names.setdefault(node.attr, None)
    return names


def _close(name: str, names: dict[str, Any]) -> str:
    import difflib

    near = difflib.get_close_matches(name, list(names), n=1)
    return f" (did you mean '{near[0]}'?)" if near else ""
