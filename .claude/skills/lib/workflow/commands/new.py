"""`skillrail new NAME`: create a skill that validates and passes its own test as generated,
with TODO placeholders for the author to replace."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from ..base.errors import UsageError
from ..base.paths import project_root
from ..tools.scaffold import create_skill

HELP = "create a new skill (SKILL.md, a two-step script, README.md and a test) to fill in"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the skill's name: lowercase words joined by hyphens, "
                                     "e.g. review-pr")
    parser.add_argument("--root", type=Path, default=None, metavar="DIR",
                        help="the skills folder to create it in (default: the project's "
                             ".claude/skills, found from here up)")
    parser.add_argument("--description", metavar="TEXT",
                        help="SKILL.md's description: what the skill does and when to use it "
                             "(default: a TODO placeholder)")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    files = create_skill(ns.name, ns.root or _local_root(), ns.description)
    here = Path.cwd().resolve()
    shown = [os.path.relpath(p, here) if p.is_relative_to(here) else str(p) for p in files]
    return 0, "\n".join([f"created skill '{ns.name}':"] + [f"  {p}" for p in shown]
                        + ["next:"] + _next_steps(shown, ns.root)) + "\n"


def _next_steps(shown: list[str], root: Path | None) -> list[str]:
    """What the author runs after replacing the placeholders: the checks, and the regeneration
    of the files CI compares with the code (a new skill makes them stale)."""
    option = f" --root {shlex.quote(str(root))}" if root else ""
    where = f" {shlex.quote(str(root))}" if root else ""
    folder = shlex.quote(os.path.dirname(shown[0]))
    return [f"  replace every TODO (grep -rn TODO {folder})",
            f"  skillrail validate{option} && skillrail lint{where} && pytest "
            f"{shlex.quote(shown[-1])}   # pytest: pip install pytest",
            f"  skillrail docs --write{option}   # SKILL.md's and README's generated sections",
            f"  if its steps run commands (!`cmd`, verify=): skillrail trust {folder}, again "
            "after each change"]


def _local_root() -> Path:
    """The project's `.claude/skills` (from here up, as git finds `.git`), never the installed
    package's skills (which `skillrail list` falls back to): a new skill belongs to the project
    the command is run in."""
    local = Path(project_root()) / ".claude" / "skills"
    if not local.is_dir():
        raise UsageError(f"no .claude/skills folder in {project_root()} (the project here)",
                         fix="Run `skillrail init` there first, create the folder "
                             "(mkdir -p .claude/skills), or pass --root DIR")
    return local
