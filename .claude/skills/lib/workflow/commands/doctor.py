"""`skillrail doctor`: one screen on whether skillrail works in this project: the interpreter,
where the skills and the framework come from (and whether the project's copies are older than
the package), links that lead nowhere, the conventions, the libraries some steps need, the run
ledger, the hooks and what they run, and the sandbox. Each problem comes with its fix; exit 1
when there is any."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ..base.paths import SKILLS_DIR, project_root
from ..base.version import VERSION

HELP = "check that skillrail works here: python, skills, framework, ledger, hooks, sandbox"


class Check(NamedTuple):
    ok: bool
    what: str
    fix: str = ""

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.what}" + ("" if self.ok else
                                                                  f"\n      fix: {self.fix}")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    root = Path(project_root())
    checks = [*_python(), *_skills(root), *_libraries(), *_ledger(), *_hooks(root), *_sandbox()]
    failed = [c for c in checks if not c.ok]
    if ns.json:
        import json

        return (1 if failed else 0), json.dumps(
            {"project": str(root), "version": VERSION, "problems": len(failed),
             "checks": [c._asdict() for c in checks]}, indent=2) + "\n"
    summary = (f"{len(failed)} problem{'s' * (len(failed) != 1)}" if failed else "no problem")
    return (1 if failed else 0), "\n".join(
        [f"skillrail {VERSION}, project {root}"] + [c.line() for c in checks] + [summary]) + "\n"


def _python() -> Iterator[Check]:
    version = ".".join(map(str, sys.version_info[:3]))
    yield Check(sys.version_info >= (3, 11), f"python {version} ({sys.executable})",
                "Use Python 3.11 or newer")


def _skills(root: Path) -> Iterator[Check]:
    """The project's skills folder, its framework and skills, and their links."""
    from ..authoring.conventions import convention_names
    from ..tools.placement import read_mark, stale

    folder = root / ".claude" / "skills"
    if not folder.is_dir():
        yield Check(False, f"no .claude/skills in {root}", "Run `skillrail init` here")
        return
    lib = folder / "lib"
    mark = read_mark(lib)
    if lib.is_symlink() and not lib.exists():
        yield Check(False, f"{lib} links to {os.readlink(lib)}, which is gone",
                    "skillrail init --update (or skillrail install --force)")
    elif not lib.exists():
        yield Check(False, f"{folder} has no framework (lib): its scripts cannot import it",
                    "skillrail init --update")
    else:
        where = (f"linked to {lib.resolve()}" if lib.is_symlink() else
                 f"copied by skillrail {mark.version or '(older)'}" if mark else
                 "a folder skillrail did not mark")
        why = stale(lib)
        yield Check(why is None, f"framework {lib}: {where}" + (f"; {why}" if why else ""),
                    "skillrail init --update (your own skills are left alone)")
        found = convention_names(str(lib.resolve() / "conventions"))
        yield Check(bool(found), f"conventions: {len(found)} in {lib / 'conventions'}",
                    "skillrail init --update")
    yield from _installed(folder)


def _installed(folder: Path) -> Iterator[Check]:
    from ..tools.placement import read_mark as mark_of
    from ..tools.placement import stale as stale_of

    dangling = [p.name for p in sorted(folder.iterdir()) if p.is_symlink() and not p.exists()]
    yield Check(not dangling, "links that lead nowhere: " + (", ".join(dangling) or "none"),
                "skillrail install --force " + " ".join(dangling) + " (or skillrail "
                "uninstall them)")
    skills = [p for p in sorted(folder.iterdir()) if (p / "SKILL.md").is_file()]
    old = [f"{p.name} ({why})" for p in skills if (why := stale_of(p))]
    ours = [p for p in skills if p.is_symlink() or mark_of(p) is not None]
    yield Check(not old, f"skills: {len(skills)} ({len(ours)} installed by skillrail)"
                + ("; older than the package: " + ", ".join(old) if old else ""),
                "skillrail init --update")


def _libraries() -> Iterator[Check]:
    import importlib.util

    missing = [name for name, module in (("pydantic", "pydantic"), ("pyyaml", "yaml"),
                                         ("lxml", "lxml"), ("jinja2", "jinja2"))
               if importlib.util.find_spec(module) is None]
    yield Check(not missing, "libraries some steps need (checking a plan, a report, a "
                "template): " + ("all found" if not missing else "missing " + ", ".join(missing)),
                f"{sys.executable} -m pip install " + " ".join(missing))


def _ledger() -> Iterator[Check]:
    from ..base.errors import LedgerError
    from ..run.ledger import Ledger
    from ..run.ledger_schema import SCHEMA_VERSION

    try:
        with Ledger() as ledger:
            version = ledger.query("PRAGMA user_version")[0][0]
            path = ledger.path
    except LedgerError as exc:
        yield Check(False, f"run ledger: {exc.what}", exc.fix)
        return
    yield Check(version == SCHEMA_VERSION, f"run ledger {path}, schema {version}",
                "Upgrade skillrail")


def _hooks(root: Path) -> Iterator[Check]:
    """Each settings file with skillrail's hooks, and whether what they run exists."""
    import json

    from ..guard.claudesettings import ours

    found = False
    for name in ("settings.json", "settings.local.json"):
        path = root / ".claude" / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            hooks = [h for groups in data.get("hooks", {}).values() for g in groups
                     for h in g.get("hooks", []) if ours(h)]
        except (OSError, ValueError, AttributeError, TypeError):
            continue
        if not hooks:
            continue
        found = True
        broken = [h["command"] for h in hooks if not _runs(h["command"], root)]
        yield Check(not broken, f"hooks in {path}: {len(hooks)}" + (
            f"; these name files that are gone: {broken[0]}" if broken else ""),
            "skillrail hooks install (again)")
    if not found:
        yield Check(True, "hooks: none installed (runs are advisory; `skillrail hooks install` "
                          "makes them binding in Claude Code)")


def _runs(command: str, root: Path) -> bool:
    """Whether every file a hook command names exists (with $CLAUDE_PROJECT_DIR the project)."""
    import shlex

    text = command.replace("$CLAUDE_PROJECT_DIR", str(root))
    words = shlex.split(text)
    files = [w for w in words if os.sep in w]
    return bool(words) and all(os.path.exists(w) for w in files)


def _sandbox() -> Iterator[Check]:
    """Bubblewrap, which skills' commands run in on Linux (elsewhere the policy layer alone
    applies, as the steps say)."""
    from ..guard.sandbox import describe, find

    linux = sys.platform.startswith("linux")
    yield Check(not linux or find() is not None, describe("auto"),
                "apt-get install bubblewrap (Debian and Ubuntu), so skills' commands run in a "
                "sandbox")
    yield Check(os.path.isdir(SKILLS_DIR), f"package skills: {SKILLS_DIR}",
                "Reinstall skillrail (pip install skillrail)")
