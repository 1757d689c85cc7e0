"""Doc-sync's checks of a doc's references against the repository: paths exist, commands name
real scripts, make targets and npm scripts, --flags are flags of their CLI (_cliflags.py reads
them), docstrings document real parameters. Used by _check-docs.py."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import difflib
import json
import re
from collections.abc import Collection
from typing import NamedTuple

from _cliflags import CliFlags, Known
from _docrefs import INTERPRETERS, Ref, cli_of, extract, path_kind
from _docstrings import docstring_refs
from _rstrefs import extract_rst, python_object

#: reStructuredText docs, read with docutils (_rstrefs.py); the rest as markdown.
RST = (".rst", ".rest")

MAX_FILES = 20_000  # files indexed for "did you mean" suggestions
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".doc-sync", "dist", "build"}
_UNCHECKABLE = re.compile(r"[$*?<>{}\[\]]")


def _kind_of(doc: str) -> str:
    return ("reStructuredText" if doc.endswith(RST) else "Python docstrings"
            if doc.endswith(".py") else "markdown")


class Problem(NamedTuple):
    where: str  # doc path, relative to the root
    line: int
    ref: str  # the reference as an ignore entry names it
    what: str
    fix: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: '{self.ref}' {self.what}; {self.fix}"


class Checker:
    """Checks the references of one repository's docs; caches each CLI's flags and the file
    index across docs. `by_hand` are the flags recorded as checked by hand ('CLI --flag'),
    which count only where no method could read the CLI's flags."""

    def __init__(self, root: str, clis: dict[str, str], by_hand: Collection[str] = ()) -> None:
        self.root, self.clis, self.checked = root, clis, 0
        self.flags, self.by_hand = CliFlags(root, clis), by_hand
        self.sources: dict[str, Known] = {}  # CLI -> how its flags were read, or why not
        self.unchecked: dict[str, dict[str, list[str]]] = {}  # CLI -> flag -> places
        self.hand_used: set[str] = set()
        self.index: list[str] | None = None
        self.unread: dict[str, str] = {}  # a doc that could not be read -> why
        self.kinds: dict[str, int] = {}  # docs read, by kind (markdown, reStructuredText, ...)

    def doc(self, doc: str) -> list[Problem]:
        with open(os.path.join(self.root, doc), encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        if doc.endswith(RST):
            read = extract_rst(text, doc, self.root, self.clis)
            if isinstance(read, str):
                self.unread[doc] = read
                return []
            refs = read
        else:
            refs = docstring_refs(text) if doc.endswith(".py") else extract(text, self.clis)
        self.kinds[_kind_of(doc)] = self.kinds.get(_kind_of(doc), 0) + 1
        self.checked += len(refs)
        here = os.path.dirname(os.path.join(self.root, doc))
        found = []
        for ref in refs:
            found += getattr(self, "_" + ref.kind.replace("-", "_"))(ref, doc, here)
        return found

    def _link(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        base = self.root if ref.text.startswith("/") else here
        path = os.path.realpath(os.path.join(base, ref.text.lstrip("/")))
        if not inside(path, self.root) or os.path.exists(path):
            return []  # outside the repository: not this check's to judge
        return [Problem(doc, ref.line, ref.text, "does not exist (link target)",
                        self._suggest(path, here))]

    def _path(self, ref: Ref, doc: str, here: str, maybe: bool = False) -> list[Problem]:
        if _UNCHECKABLE.search(ref.text) or ref.text.startswith(("/", "~")):
            return []
        bases = (here, self.root)
        if maybe and not any(os.path.exists(os.path.join(b, ref.text.split("/")[0]))
                             for b in bases):
            return []  # a/b whose first part is no folder here: a MIME type, a branch, ...
        if any(os.path.exists(os.path.join(b, ref.text)) for b in bases):
            return []
        return [Problem(doc, ref.line, ref.text, "does not exist",
                        self._suggest(os.path.join(self.root, ref.text), self.root))]

    def _pyobject(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        wrong = python_object(self.root, ref.text, ref.words[1])
        if wrong is None:
            return []
        named = (f".. {ref.words[0]}:: {ref.text}" if ref.words[0].startswith("auto") else
                 f":{ref.words[0]}:`{ref.text}`")
        return [Problem(doc, ref.line, named, *wrong)]

    def _maybe_path(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        return self._path(ref, doc, here, maybe=True)

    def _command(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        argv, found = ref.words, []
        script = _script_of(argv)
        kind = path_kind(script) if script else ""
        if kind:  # bin/tool counts only when bin/ exists: inline `a/b c` is seldom a command
            for problem in self._path(ref._replace(text=script), doc, here,
                                      maybe=kind == "maybe-path"):
                found.append(problem._replace(what=f"does not exist (the script of "
                                                   f"'{_short(ref.text)}')"))
        if argv[0] == "make":
            found += self._make(ref, doc, here)
        elif argv[0] in ("npm", "pnpm", "yarn") and argv[1:2] in (("run",), ("run-script",)):
            found += self._npm(ref, doc, here)
        cli = cli_of(argv, self.clis)
        if cli is not None:
            found += self._flags(cli[0], cli[1], cli[2], doc, ref.line)
        return found

    def _flag(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        return self._flags(ref.words[0], ref.words[1], [ref.text], doc, ref.line)

    def _param(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        function, real = ref.words[0], ref.words[1:]
        if "*" in real or ref.text in real:
            return []
        return [Problem(doc, ref.line, f"{function}({ref.text})", f"is documented, but "
                        f"{function} takes no parameter '{ref.text}'",
                        _did_you_mean(ref.text, real, "rename it or delete its entry"))]

    def _make(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        argv = ref.words
        if any(w.startswith(("-C", "-f", "--directory", "--file")) for w in argv[1:]):
            return []
        makefile = _first_file([os.path.join(b, n) for b in (self.root, here)
                                for n in ("GNUmakefile", "makefile", "Makefile")])
        if makefile is None:
            return [Problem(doc, ref.line, _short(ref.text), "needs a Makefile, and there is "
                            "none", "fix or delete the command")]
        with open(makefile, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        if re.search(r"^-?include\s", text, re.MULTILINE):
            return []  # targets may come from included files: not checked
        known = set()
        for names in re.findall(r"^([^\s:=#$][^:=#$]*?)\s*::?(?!=)(.*)$", text, re.MULTILINE):
            known.update(names[0].split())
            known.update(names[1].split() if names[0].strip() == ".PHONY" else [])
        return [Problem(doc, ref.line, f"make {t}", f"names no target of {self._rel(makefile)}",
                        _did_you_mean(t, known, "name an existing target"))
                for t in argv[1:] if not t.startswith("-") and "=" not in t and t not in known]

    def _npm(self, ref: Ref, doc: str, here: str) -> list[Problem]:
        manifest = _first_file([os.path.join(b, "package.json") for b in (self.root, here)])
        script = ref.words[2] if len(ref.words) > 2 else ""
        if manifest is None or not script:
            return [] if script == "" else [Problem(doc, ref.line, _short(ref.text), "needs a "
                                                    "package.json, and there is none",
                                                    "fix the command")]
        try:
            with open(manifest, encoding="utf-8") as handle:
                scripts = json.load(handle).get("scripts", {})
        except (OSError, ValueError, AttributeError):
            return []
        if script in scripts:
            return []
        return [Problem(doc, ref.line, f"{ref.words[0]} run {script}", "names no script of "
                        f"{self._rel(manifest)}", _did_you_mean(script, scripts,
                                                                "name an existing script"))]

    def _flags(self, cli: str, sub: str, flags: list[str], doc: str,
               line: int) -> list[Problem]:
        flags = [f for f in flags if f != "--help"]
        if not flags:
            return []
        known = self.flags.known(cli, sub)
        self.sources.setdefault(cli, known)
        if known.flags is None:
            for flag in flags:
                if f"{cli} {flag}" in self.by_hand:
                    self.hand_used.add(f"{cli} {flag}")
                else:
                    self.unchecked.setdefault(cli, {}).setdefault(flag, []).append(
                        f"{doc}:{line}")
            return []
        return [Problem(doc, line, f"{known.label} {flag}", f"is not in {known.source}",
                        _did_you_mean(flag, known.flags, "drop it or name the option that "
                                                         "replaced it"))
                for flag in dict.fromkeys(flags) if flag not in known.flags]

    def _suggest(self, missing: str, base: str) -> str:
        """A 'did you mean' for a missing path: a file of the same name elsewhere, else the
        closest path; written relative to `base`, as the doc would write it."""
        if self.index is None:
            self.index = _index(self.root)
        name = os.path.basename(missing.rstrip(os.sep))
        same = [p for p in self.index if os.path.basename(p) == name]
        wanted = os.path.relpath(missing, self.root)
        close = same or difflib.get_close_matches(wanted, self.index, n=1, cutoff=0.75)
        if not close:
            return "fix or delete the reference"
        return f"did you mean '{os.path.relpath(os.path.join(self.root, close[0]), base)}'?"

    def _rel(self, path: str) -> str:
        return os.path.relpath(path, self.root)


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _script_of(argv: tuple[str, ...]) -> str:
    """The local script a command runs: its first word when that is a path, or the script an
    interpreter is given ('' for python -m, -c and the like)."""
    if "/" in argv[0]:
        return argv[0]
    if argv[0] not in INTERPRETERS:
        return ""
    for word in argv[1:]:
        if word in ("-m", "-c", "-e"):
            return ""
        if not word.startswith("-"):
            return word
    return ""


def _did_you_mean(name: str, options: object, otherwise: str) -> str:
    close = difflib.get_close_matches(name, sorted(map(str, options)), n=1,  # type: ignore
                                      cutoff=0.75)
    return f"did you mean '{close[0]}'?" if close else otherwise


def _first_file(paths: list[str]) -> str | None:
    return next((p for p in paths if os.path.isfile(p)), None)


def _index(root: str) -> list[str]:
    found: list[str] = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        found += [os.path.relpath(os.path.join(here, n), root) for n in sorted(dirs + files)]
        if len(found) > MAX_FILES:
            break
    return found


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


