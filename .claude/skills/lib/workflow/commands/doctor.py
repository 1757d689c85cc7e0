"""`skillrail doctor`: one screen on whether skillrail works in this project: the interpreters
(this one, and the `python3` on PATH that SKILL.md and the hooks run), where the skills and the
framework come from (copies older than the package, links that lead nowhere), whether every
skill loads and may run its commands, the conventions, the command policy and the project's
test command (`tests:`, whether it starts), the run ledger, the hooks and what they run, and the
sandbox. Each problem comes with its fix; exit 1 when there
is any."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ..authoring.conventions import convention_names
from ..authoring.substitution import INJECTION
from ..base.errors import READ_ONLY, LedgerError, SkillrailError, install_hint
from ..base.paths import SKILLS_DIR, project_root
from ..base.version import VERSION
from ..guard.askgate import verdict
from ..guard.claudesettings import HOOK_PROGRAM, ours
from ..guard.cleanenv import command_path
from ..guard.confine import inside
from ..guard.gatepolicy import PROJECT_FILE, load_config, load_policy, project_tests, sandbox_mode
from ..guard.sandbox import describe, find
from ..guard.trust import SHIPPED, untrusted
from ..hooks import codex, gemini
from ..hooks.settings import read
from ..ledger.schema import SCHEMA_VERSION
from ..ledger.store import Ledger
from ..step.discovery import discover_workflows
from ..tools.placement import changed, read_mark, stale
from ..tools.projecttests import NOTHING, Found, detect, policy_lines, problem
from .hooks import sandbox_missing

HELP = "check that skillrail works here: python, skills, framework, policy, ledger, hooks, sandbox"
#: The libraries some steps load (checking a plan or a report, rendering a template, a YAML
#: frontmatter), by distribution and module.
LIBRARIES = (("pydantic", "pydantic"), ("pyyaml", "yaml"), ("jinja2", "jinja2"))


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
    checks = [*_python(), *_skills(root), *_policy(root), *_ledger(), *_hooks(root),
              _gate(root), *_sandbox(root), *_claude_sandbox(root)]
    failed = [c for c in checks if not c.ok]
    if ns.json:
        return (1 if failed else 0), json.dumps(
            {"project": str(root), "version": VERSION, "problems": len(failed),
             "checks": [c._asdict() for c in checks]}, indent=2) + "\n"
    summary = (f"{len(failed)} problem{'s' * (len(failed) != 1)}" if failed else "no problem")
    return (1 if failed else 0), "\n".join(
        [f"skillrail {VERSION}, project {root}"] + [c.line() for c in checks] + [summary]) + "\n"


def _python() -> Iterator[Check]:
    """This interpreter, and the python3 on PATH, which SKILL.md's commands and the hooks run:
    each 3.11 or newer, with the libraries some steps load."""
    missing = [dist for dist, module in LIBRARIES if importlib.util.find_spec(module) is None]
    yield _interpreter(sys.executable, sys.version_info[:3], missing)
    found = shutil.which("python3")
    if found is None:
        yield Check(False, "no python3 on PATH: SKILL.md's commands and the hooks run it",
                    "Install Python 3.11 or newer as python3")
    elif os.path.realpath(found) != os.path.realpath(sys.executable):
        probe = ("import os, sys, sysconfig, importlib.util as u; print(*sys.version_info[:3]); "
                 f"print(*[d for d, m in {LIBRARIES!r} if u.find_spec(m) is None]); "
                 "print(sys.prefix == sys.base_prefix and os.path.isfile(os.path.join("
                 "sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))")
        out = subprocess.run([found, "-c", probe], capture_output=True, text=True, timeout=30)
        lines = ((out.stdout.splitlines() + ["", "", ""])[:3] if out.returncode == 0
                 else ["0 0 0", "", ""])
        version = tuple(int(n) for n in lines[0].split())
        yield _interpreter(found, version, lines[1].split(), lines[2] == "True")


def _interpreter(path: str, version: tuple[int, ...], missing: list[str],
                 managed: bool = False) -> Check:
    said = f"python {'.'.join(map(str, version))} ({path})"
    if version < (3, 11):
        return Check(False, said, "Use Python 3.11 or newer")
    return Check(not missing, said + (f": lacks {', '.join(missing)}, which some steps load "
                                      "(checking a plan or a report)" if missing else ""),
                 install_hint(path, missing, managed))


def _skills(root: Path) -> Iterator[Check]:
    """The project's skills folders (Claude Code's .claude/skills, the other clients'
    .agents/skills), each with its framework and its skills."""
    folders = [root / place / "skills" for place in (".claude", ".agents")]
    if not any(folder.is_dir() for folder in folders):
        yield Check(False, f"no .claude/skills or .agents/skills in {root}",
                    "Run `skillrail init` here (`--agents` for Codex and the other clients)")
        return
    for folder in folders:
        if folder.is_dir():
            yield from _skills_in(folder)


def _skills_in(folder: Path) -> Iterator[Check]:
    """One skills folder: its framework, and its skills."""
    update = ("skillrail init --agents --update" if folder.parent.name == ".agents" else
              "skillrail init --update")
    lib = folder / "lib"
    mark = read_mark(lib)
    if not lib.exists():
        yield Check(False, f"no framework at {lib}" + (f" (a link to {os.readlink(lib)}, which "
                                                        "is gone)" if lib.is_symlink() else ""),
                    update)
    else:
        where = (f"linked to {lib.resolve()}" if lib.is_symlink() else
                 f"copied by skillrail {mark.version or '(older)'}" if mark else
                 "a folder skillrail did not mark")
        why = stale(lib)
        yield Check(why is None, f"framework {lib}: {where}" + (f"; {why}" if why else ""),
                    f"{update} (your own skills are left alone)")
        found = convention_names(str(lib.resolve() / "conventions"))
        yield Check(bool(found), f"conventions: {len(found)} in {lib / 'conventions'}",
                    update)
    yield from _installed(folder, update)


def _installed(folder: Path, update: str) -> Iterator[Check]:
    dangling = [p.name for p in sorted(folder.iterdir())
                if p.is_symlink() and not p.exists() and p.name != "lib"]
    yield Check(not dangling, "links that lead nowhere: " + (", ".join(dangling) or "none"),
                "; ".join(f"skillrail install --force {n}" if n in SHIPPED else
                          f"skillrail uninstall {n}" for n in dangling))
    skills = [p for p in sorted(folder.iterdir()) if (p / "SKILL.md").is_file()]
    old = [f"{p.name} ({why})" for p in skills if (why := stale(p))]
    ours = [p for p in skills if p.is_symlink() or read_mark(p) is not None]
    edited = [p.name for p in ours if changed(p)]
    yield Check(not old, f"skills: {len(skills)} ({len(ours)} installed by skillrail"
                + (f"; changed here since: {', '.join(edited)}" if edited else "") + ")"
                + ("; older than the package: " + ", ".join(old) if old else ""),
                f"{update} (copies changed here are left alone)")
    yield from _loading(folder, skills)


def _loading(folder: Path, skills: list[Path]) -> Iterator[Check]:
    """Every skill's scripts load and validate; every skill may run its commands here."""
    found = discover_workflows(folder)
    broken = sorted({Path(e.path).parent.parent.name if Path(e.path).parent.name == "scripts"
                     else Path(e.path).name for e in found.errors})
    yield Check(not broken, f"workflows: {len(found.workflows)} load and validate"
                + (f"; these do not: {', '.join(broken)}" if broken else ""),
                "`skillrail validate` names each problem; a copy of skillrail's own skill: "
                "`skillrail install --force SKILL` restores it")

    def runs_commands(text: str) -> bool:
        return "verify=" in text or re.search(INJECTION, text) is not None

    needing = [p for p in skills if any(runs_commands(f.read_text(errors="replace"))
                                        for f in p.rglob("*.py")) or
               re.search(INJECTION, (p / "SKILL.md").read_text(errors="replace"))]
    blocked = [p.name for p in needing if untrusted(str(p)) is not None]
    yield Check(not blocked, "skills whose commands may run here: " + (
        "all" if not blocked else f"all but {', '.join(blocked)} (not trusted on this machine, "
                                  "or changed since)"),
        "Read them, then `skillrail trust " + " ".join(blocked) + "` yourself")


def _policy(root: Path) -> Iterator[Check]:
    path = root / ".claude" / "skillrail.yaml"
    try:
        load_policy(os.path.join(SKILLS_DIR, "problem-analysis"), str(root))
    except SkillrailError as exc:
        yield Check(False, f"command policy {path}: {exc.what}", exc.fix)
        return
    yield Check(True, f"command policy: {path if path.exists() else 'the shipped defaults'}")
    yield _tests(root, path)


def _tests(root: Path, path: Path) -> Check:
    """The project's test command (`tests:`): named, and able to start (its program there, the
    module it runs importable); when the policy names none, the command this project's files
    suggest, as the lines to add."""
    tests = project_tests(str(root))
    if tests is None:
        found = detect(root)
        if isinstance(found, Found):
            lines = policy_lines(found).rstrip().replace("\n", "\n        ")
            return Check(False, f"the project's tests: {path.name} names none; found "
                         f"`{found.command}` ({found.why})",
                         f"add to {path}:\n        {lines}")
        return Check(found.why.startswith(NOTHING), f"the project's tests: {path.name} names "
                     f"none, and {found.why}", found.fix)
    command = shlex.join(tests.argv)
    trouble = problem(command, root)
    return Check(trouble is None, f"the project's tests (${{PROJECT_TESTS}}): `{command}`"
                 + ("" if trouble is None else f": {trouble.why}"),
                 "" if trouble is None else trouble.fix)


def _ledger() -> Iterator[Check]:
    """Which ledger the runs go to (this machine's SQLite file, or the team's PostgreSQL server
    and which setting named it), whether it opens, and its schema."""
    try:
        with Ledger(migrate=False) as ledger:  # a check writes nothing: the next step migrates
            version = ledger.query("PRAGMA user_version")[0][0]
            where = (f"PostgreSQL {ledger.path} (from {_ledger_setting()}), shared by the team"
                     if ledger.shared else f"SQLite {ledger.path}, this machine's")
            writable = _writable(ledger)
    except LedgerError as exc:
        yield Check(False, f"run ledger: {exc.what}", exc.fix)
        return
    if not writable:
        yield Check(False, f"run ledger: {where}, read-only here: a new run goes stateless (no "
                    "history, status or resume) and a run started before cannot move",
                    f"Make {os.path.dirname(str(ledger.path))} writable (a client's sandbox may "
                    "allow it), or set SKILLRAIL_HOME to a writable folder")
        return
    schema = (f"schema {version}" if version == SCHEMA_VERSION else "empty: the first run makes "
              "its tables" if not version else f"schema {version}: the next step brings it to "
              f"{SCHEMA_VERSION}")
    yield Check(version <= SCHEMA_VERSION, f"run ledger: {where}; {schema}", "Upgrade skillrail")


class _Undo(Exception):
    """Rolls the probe's write back."""


def _writable(ledger: Ledger) -> bool:
    """Whether this machine's SQLite ledger takes a write: one is made, then rolled back."""
    if ledger.shared:
        return True  # the team's server: its own permissions, reported when a step writes
    try:
        with ledger.transaction():
            version = ledger.query("PRAGMA user_version")[0][0]
            ledger.query(f"PRAGMA user_version = {int(version)}")
            raise _Undo
    except _Undo:
        return True
    except LedgerError as exc:
        if READ_ONLY in str(exc):
            return False
        raise


def _ledger_setting() -> str:
    return "SKILLRAIL_LEDGER" if os.environ.get("SKILLRAIL_LEDGER") else \
        "`ledger:` in .claude/skillrail.yaml"


def _hooks(root: Path) -> Iterator[Check]:
    """Each settings file: readable, with skillrail's hooks at most once, running files that
    exist."""
    holding = []
    for name in ("settings.json", "settings.local.json"):
        path = root / ".claude" / name
        if not path.exists():
            continue
        try:
            data = read(str(path))[1]
        except SkillrailError as exc:
            yield Check(False, f"{path} cannot be read: {exc.what.replace(str(path), 'it')}",
                        "Fix it by hand (Claude Code ignores a broken settings file)")
            continue
        hooks = [h for groups in data.get("hooks", {}).values() for g in groups
                 for h in _listed(g.get("hooks")) if isinstance(h, dict) and ours(h)]
        if not hooks:
            continue
        holding.append(name)
        yield _ran(path, [str(h["command"]) for h in hooks], root, name == "settings.local.json")
    if len(holding) > 1:
        yield Check(False, "hooks installed in both settings.json and settings.local.json: "
                    "each runs twice", "skillrail hooks uninstall --local")
    others = [c for c in (_codex_hooks(root), _gemini_hooks(root)) if c is not None]
    yield from others
    if not holding and not others:
        yield Check(True, "hooks: none installed (runs are advisory; `skillrail hooks install` "
                          "makes them binding in Claude Code)")


def _hook_file(path: Path, client: str) -> dict[str, Any] | Check | None:
    """Another client's hook file read (its data), or what doctor says when it cannot be read;
    None when there is none."""
    if not path.exists():
        return None
    try:
        return read(str(path))[1]
    except SkillrailError as exc:
        return Check(False, f"{path} cannot be read: {exc.what.replace(str(path), 'it')}",
                     f"Fix it by hand ({client} ignores a broken hook file)")


def _codex_hooks(root: Path) -> Check | None:
    """Codex's hooks in `.codex/hooks.json`, when skillrail's are there: whether this user's
    Codex trusts them as they are (it skips an untrusted hook without a word)."""
    path = root / codex.HOOKS_FILE
    data = _hook_file(path, "Codex")
    if not isinstance(data, dict):
        return data
    keys = codex.trust_keys(str(path), data)
    if not keys:
        return None
    untrusted = codex.untrusted(keys)
    if untrusted:
        return Check(False, f"Codex's hooks in {path}: {len(untrusted)} of {len(keys)} not "
                     f"trusted in {codex.config_file()} (new here, or changed since), and Codex "
                     "skips an untrusted hook without a word", "skillrail hooks install "
                     "--client codex (after reviewing .codex/hooks.json)")
    return Check(True, f"Codex's hooks in {path}: {len(keys)}, trusted in "
                       f"{codex.config_file()} (Codex runs them once the project is trusted)")


def _gemini_hooks(root: Path) -> Check | None:
    """Gemini CLI's hooks in `.gemini/settings.json`, when skillrail's are there."""
    path = root / gemini.SETTINGS_FILE
    data = _hook_file(path, "Gemini CLI")
    if not isinstance(data, dict):
        return data
    found = [h for groups in data.get("hooks", {}).values() for g in groups
             for h in _listed(g.get("hooks")) if isinstance(h, dict) and ours(h)]
    if not found:
        return None
    events = {event for event, _ in gemini.EVENTS}
    missing = sorted(events - {e for e, groups in data.get("hooks", {}).items()
                               if any(ours(h) for g in groups for h in _listed(g.get("hooks")))})
    return Check(not missing, f"Gemini CLI's hooks in {path}: {len(found)}"
                 + (f"; missing: {', '.join(missing)}" if missing else
                    " (Gemini runs them in a folder you trust)"),
                 "skillrail hooks install --client gemini")


def _listed(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _ran(path: Path, commands: list[str], root: Path, local: bool) -> Check:
    """What the hooks of one settings file run: skillrail's own installation, found where the
    commands say; never the project's copy of the framework, which the agent can edit."""
    again = f"skillrail hooks install{' --local' * local}"
    gone = sorted({w for c in commands for w in _paths(c, root) if not os.path.exists(w)})
    if gone:
        return Check(False, f"hooks in {path}: {len(commands)}; they run a file that is gone: "
                     f"{', '.join(gone)}", f"{again} (again: they name files of this machine "
                     "that are gone)")
    copied = [c for c in commands if "$CLAUDE_PROJECT_DIR" in c
              or any(_inside(w, root) for w in _paths(c, root))]
    if copied:
        return Check(False, f"hooks in {path}: {len(commands)}; they run the project's copy of "
                     "skillrail, which the agent can edit like any file in it", f"{again} "
                     "(again: they then run your own installation)")
    if any(c.split()[0] == HOOK_PROGRAM for c in commands) and shutil.which(HOOK_PROGRAM) is None:
        return Check(False, f"hooks in {path}: {len(commands)}; they run {HOOK_PROGRAM}, which "
                     "is not on PATH here: they do not run for you", "pip install skillrail "
                     "where Claude Code's PATH finds its programs, or skillrail hooks install "
                     "--local")
    return Check(True, f"hooks in {path}: {len(commands)}")


def _inside(path: str, root: Path) -> bool:
    return inside(os.path.realpath(path), os.path.realpath(root))


def _gate(root: Path) -> Check:
    """What the ask_user gate does for a run an agent starts here, and why."""
    found = verdict(str(root), agent=True)
    return Check(True, f"ask_user gate: {'binding' if found.binding else 'advisory'} for runs "
                       f"an agent starts here: {found.why}")


def _paths(command: str, root: Path) -> list[str]:
    """The files a hook command names (with $CLAUDE_PROJECT_DIR the project)."""
    try:
        words = shlex.split(command.replace("$CLAUDE_PROJECT_DIR", str(root)))
    except ValueError:
        return []
    return [w for w in words if os.sep in w]


def _sandbox(root: Path) -> Iterator[Check]:
    """Bubblewrap, which skills' commands run in on Linux (elsewhere the policy layer alone
    applies, as the steps say), found as the gateway finds it (PATH without the project's
    folders) and in the mode the gateway takes (a project's `sandbox: off` is ignored)."""
    project = root / PROJECT_FILE
    try:
        asked = load_config(str(project) if project.is_file() else None).sandbox
        mode, notice = sandbox_mode(asked)
    except SkillrailError as exc:  # the policy's own check says what is wrong with it
        mode, notice = "auto", exc.summary()
    path = command_path(str(root))
    linux = sys.platform.startswith("linux")
    yield Check(not linux or mode == "off" or find(path) is not None, describe(mode, path),
                "apt-get install bubblewrap (Debian and Ubuntu), so skills' commands run in a "
                "sandbox")
    if notice:
        yield Check(False, notice, f"Take `sandbox: off` out of {project}")


def _claude_sandbox(root: Path) -> Iterator[Check]:
    """Where a settings file turns on Claude Code's Bash sandbox: whether it can run here
    (without it, Claude Code runs Bash unsandboxed, or refuses to start with
    failIfUnavailable)."""
    for name in ("settings.json", "settings.local.json"):
        try:
            box = read(str(root / ".claude" / name))[1].get("sandbox")
        except SkillrailError:
            continue  # _hooks said so
        if isinstance(box, dict) and box.get("enabled") is True:
            missing = sandbox_missing()
            yield Check(missing is None, f"Claude Code's Bash sandbox (on in .claude/{name})"
                        + (f": cannot run here, {missing}" if missing else ": can run here"),
                        "apt-get install bubblewrap socat (Debian and Ubuntu); until then "
                        "Claude Code runs Bash unsandboxed, or refuses to start "
                        "(failIfUnavailable)")
            return
