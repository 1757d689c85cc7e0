"""`skillrail uninstall SKILL...`: take away skills skillrail installed in the project (a link, or
a copy carrying its marker), dangling links included; a folder of the user's own is refused.
The framework beside them stays: the project's own skills import it.

`skillrail uninstall --all` takes away everything `init` and `hooks install` put in the project:
the skills skillrail installed in `.claude/skills` and `.agents/skills`, the framework (unless
the project's own skills import it, which it then says), each folder's `.gitignore`,
skillrail's hooks and sandbox settings (Claude Code's, Codex's `.codex/hooks.json` with the
user's trust of it, and Gemini CLI's), and the command policy `.claude/skillrail.yaml`;
folders left empty go too. The run ledger, in the user's state folder, stays: it says where it
is."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from ..base.errors import UsageError
from ..base.paths import SKILLS_DIR, project_root, state_dir
from ..hooks import codex, gemini, settings
from ..tools.placement import FRAMEWORK_FILES, read_mark, removable, remove
from .hooks import run as hooks_command
from .init import IGNORE
from .install import destination

HELP = "remove skills that skillrail installed (links or marked copies), never your own"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skills", nargs="*", metavar="SKILL", help="the skills to remove")
    parser.add_argument("--all", action="store_true",
                        help="everything init and hooks install put in the project: the "
                             "skills, the framework, the hooks, the command policy (the run "
                             "ledger stays)")
    parser.add_argument("--target", choices=("claude", "agents"), default="claude",
                        help="claude: .claude/skills (the default); agents: .agents/skills")
    parser.add_argument("--dest", type=Path, default=None, metavar="DIR",
                        help="the folder they are in (default: the project's)")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    """Every skill named is checked before any is removed: a refusal removes nothing."""
    if ns.all == bool(ns.skills):
        raise UsageError("name the skills to remove, or give --all",
                         fix="`skillrail uninstall SKILL...`, or `skillrail uninstall --all`")
    dest = destination(ns)
    if ns.all:
        root = Path(project_root())
        dests = [dest] if ns.dest else [root / f".{t}" / "skills" for t in ("claude", "agents")]
        done = [line for d in dests for line in _skills_out(d)] + _settings_out(root)
        done.append(f"the run ledger stays in {state_dir()} (this machine's runs of every "
                    "project)")
        return 0, "\n".join(done) + "\n"
    for name in ns.skills:
        removable(dest / name)
    return 0, "\n".join(remove(dest / name) for name in ns.skills) + "\n"


def _skills_out(dest: Path) -> list[str]:
    """What init put in one skills folder: the skills skillrail installed, the framework
    (unless skills of the user's own import it), the .gitignore; the folder when left empty."""
    done: list[str] = []
    places = sorted(dest.iterdir()) if dest.is_dir() else []
    ours = [p for p in places if p.name != "lib" and (p.is_symlink() or read_mark(p))]
    done += [remove(p) for p in ours]
    own = sorted(p.name for p in places if p not in ours and p.is_dir()
                 and (p / "SKILL.md").is_file())
    lib = dest / "lib"
    if own:
        done.append(f"kept {lib} and the files beside it: your own skills import it "
                    f"({', '.join(own)}); remove it yourself once none does")
    else:
        if lib.is_symlink() or read_mark(lib) is not None:
            done.append(remove(lib))
        package = Path(SKILLS_DIR)
        for name in FRAMEWORK_FILES:
            mine = dest / name
            if mine.is_symlink() or (mine.is_file() and (package / name).is_file() and
                                     mine.read_bytes() == (package / name).read_bytes()):
                mine.unlink()
                done.append(f"removed {mine}")
        _drop_caches(dest)
    ignore = dest / ".gitignore"
    if ignore.is_file() and ignore.read_text(encoding="utf-8") == IGNORE:
        ignore.unlink()
        done.append(f"removed {ignore}")
    return done + _empty(dest, dest.parent)


def _settings_out(root: Path) -> list[str]:
    """skillrail's hooks and sandbox settings (Claude Code's, Codex's, Gemini CLI's), and the
    command policy."""
    done = []
    for client, hook_file in (("codex", codex.HOOKS_FILE), ("gemini", gemini.SETTINGS_FILE)):
        if (root / hook_file).is_file():
            done.append(hooks_command(argparse.Namespace(
                action="uninstall", client=client, settings=None, local=False,
                dry_run=False))[1].rstrip("\n"))
            done += _empty((root / hook_file).parent)
    for name in ("settings.json", "settings.local.json"):
        path = root / ".claude" / name
        if path.is_file():
            done.append(_unhook(path))
    policy = root / ".claude" / "skillrail.yaml"
    if policy.is_file():
        policy.unlink()
        done.append(f"removed {policy} (the command policy)")
    return done + _empty(root / ".claude")


def _empty(*folders: Path) -> list[str]:
    """Remove each folder left empty, in order; say which."""
    done = []
    for folder in folders:
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            done.append(f"removed {folder} (empty)")
    return done


def _drop_caches(dest: Path) -> None:
    """Python's caches beside the framework files, which a step wrote there."""
    cache = dest / "__pycache__"
    if cache.is_dir() and not cache.is_symlink():
        shutil.rmtree(cache)


def _unhook(path: Path) -> str:
    """skillrail's hooks and sandbox settings out of one settings file; the file goes when
    nothing else was in it."""
    old_text, data = settings.read(str(path))
    new = settings.with_sandbox(settings.merged(data, False, True), False, str(path.parents[1]))
    if new == data:
        return f"{path}: no skillrail hooks in it"
    if not _meaningful(new):
        path.unlink()
        return f"removed {path} (it held only skillrail's hooks)"
    settings.write(str(path), settings.render(new, old_text))
    return f"removed skillrail's hooks from {path}"


def _meaningful(data: object) -> bool:
    """Whether settings hold anything once skillrail's are gone (empty containers do not)."""
    if isinstance(data, dict):
        return any(_meaningful(v) for v in data.values())
    if isinstance(data, list):
        return any(_meaningful(v) for v in data)
    return data is not None
