"""The flags a project CLI accepts, for doc-sync's check. First from its --help, run through
skillrail's security gateway; when the gateway refuses it (the default policy runs no project
command) or the help fails, from the Python file that defines the CLI: its argparse, optparse
or click option calls, read with `ast` and never executed. A file whose options the reading
cannot see whole (names computed at run time, parent parsers, typer) yields nothing, so a
guess never passes for a check. Used by _docchecks.py."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import ast
import re
import shlex
from typing import NamedTuple

from _docrefs import INTERPRETERS

SKILL_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
MAX_HELPS = 20  # --help runs per check: keeps the check fast whatever the docs hold
_HELP_FLAG = re.compile(r"--(\[no-\])?([A-Za-z0-9][\w-]*)")
_OPTION_CALLS = {"add_argument", "add_option"}  # argparse, optparse
_CLICK_CALLS = {"option"}  # click.option / @option, when the file imports click


class Known(NamedTuple):
    """What the check knows of one CLI's flags."""

    flags: frozenset[str] | None  # None: no method could read them
    label: str  # what the flags belong to: the CLI, or the CLI and its subcommand
    source: str  # where they were read: "the --help of 'x'", "the option calls of x.py"
    note: str = ""  # why the --help (and, when flags is None, the code) could not be used


class CliFlags:
    """Reads each CLI's flags once per check, by the first method that works."""

    def __init__(self, root: str, clis: dict[str, str]) -> None:
        self.root, self.clis = root, clis
        self.helps: dict[tuple[str, str], tuple[str | None, str]] = {}
        self.static: dict[str, tuple[frozenset[str] | None, str]] = {}
        self.policy: object = None

    def known(self, cli: str, sub: str) -> Known:
        top, why = self._help(cli, "")
        if top is not None:
            flags = help_flags(top)
            if sub and re.search(rf"(?<![\w-]){re.escape(sub)}(?![\w-])", top):
                text, _ = self._help(cli, sub)
                if text is not None:
                    return Known(frozenset(flags | help_flags(text)), f"{cli} {sub}",
                                 f"the --help of '{cli} {sub}'")
            return Known(frozenset(flags), cli, f"the --help of '{cli}'")
        if cli not in self.static:
            self.static[cli] = self._read_code(cli)
        read, where = self.static[cli]
        if read is None:
            return Known(None, cli, "", f"its --help: {why}; its code: {where}")
        return Known(read, cli, f"the option calls of {where}", f"its --help: {why}")

    def _help(self, cli: str, sub: str) -> tuple[str | None, str]:
        if (cli, sub) not in self.helps:
            if len(self.helps) >= MAX_HELPS:
                return None, f"not run, more than {MAX_HELPS} --help runs"
            self.helps[cli, sub] = self._run(" ".join(filter(None, [self.clis[cli], sub,
                                                                    "--help"])))
        return self.helps[cli, sub]

    def _run(self, command: str) -> tuple[str | None, str]:
        """Run a --help command through the gateway: (its output, '') or (None, why not)."""
        try:
            from skills.lib.workflow.base.errors import SkillrailError
            from skills.lib.workflow.guard.gatepolicy import load_policy
            from skills.lib.workflow.guard.gateway import GatewayRefusal, run_command

            if self.policy is None:
                self.policy = load_policy(SKILL_DIR, self.root)
            done = run_command(command, self.policy)  # type: ignore[arg-type]
        except ImportError as exc:
            return None, f"not run, the gateway cannot load ({exc})"
        except GatewayRefusal as exc:
            return None, f"refused by the gateway's rule '{exc.rule}'"
        except SkillrailError as exc:
            return None, exc.what
        if done.status != "ok":
            return None, f"ended with {done.summary()}"
        return done.head, ""

    def _read_code(self, cli: str) -> tuple[frozenset[str] | None, str]:
        """(the flags the CLI's Python file defines, that file) or (None, why not)."""
        path = self._source(cli)
        if path is None:
            return None, f"'{self.clis[cli]}' runs no Python file of the repository"
        rel = os.path.relpath(path, self.root)
        try:
            with open(path, encoding="utf-8") as handle:
                flags, why = option_flags(handle.read())
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
            return None, f"{rel} cannot be read as Python ({type(exc).__name__})"
        return (flags, rel) if flags is not None else (None, f"{rel} {why}")

    def _source(self, cli: str) -> str | None:
        """The Python file the CLI's command runs, when it is in the repository."""
        try:
            argv = shlex.split(self.clis[cli])
        except ValueError:
            return None
        import shutil

        candidates = [argv[0], shutil.which(argv[0]) or ""] if argv else []  # PATH: bin/x
        if argv and argv[0] in INTERPRETERS:
            words = argv[1:]
            module = words[words.index("-m") + 1] if "-m" in words[:-1] else ""
            parts = module.replace(".", os.sep)
            candidates = [os.path.join(base, parts + tail) for base in ("", "src")
                          for tail in (".py", os.sep + "__main__.py")] if module else \
                [next((w for w in words if not w.startswith("-")), "")]
        for candidate in filter(None, candidates):
            path = os.path.realpath(os.path.join(self.root, candidate))
            if path.startswith(self.root + os.sep) and os.path.isfile(path) and _is_python(path):
                return path
        return None


def option_flags(source: str) -> tuple[frozenset[str] | None, str]:
    """(the --flags a Python file's option calls define, '') or (None, why they cannot be
    read whole)."""
    tree = ast.parse(source)
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    if "typer" in imported:
        return None, "uses typer, whose options come from function parameters"
    names = _OPTION_CALLS | (_CLICK_CALLS if "click" in imported else set())
    flags, calls = set(), 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        if name == "ArgumentParser" and any(k.arg == "parents" for k in node.keywords):
            return None, "builds its parser from parent parsers"
        if name not in names:
            continue
        calls += 1
        if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args):
            return None, f"computes option names at run time (line {node.lineno})"
        given = [f for a in node.args if isinstance(a, ast.Constant)
                       for f in str(a.value).split("/") if f.startswith("--")]  # click: --x/--no-x
        flags.update(given)
        if any(k.arg == "action" and "BooleanOptionalAction" in ast.unparse(k.value)
               for k in node.keywords):
            flags.update(f"--no-{f[2:]}" for f in given)
    if not calls:
        return None, "holds no add_argument, add_option or click option call"
    return frozenset(flags | {"--help"}), ""


def help_flags(text: str) -> set[str]:
    found = set()
    for negated, name in _HELP_FLAG.findall(text):
        found |= {f"--{name}", f"--no-{name}"} if negated else {f"--{name}"}
    return found


def _is_python(path: str) -> bool:
    if path.endswith(".py"):
        return True
    try:
        with open(path, "rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first
