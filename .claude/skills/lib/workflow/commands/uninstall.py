"""`skillrail uninstall SKILL...`: take away skills skillrail installed in the project (a link, or
a copy carrying its marker), dangling links included; a folder of the user's own is refused.
The framework beside them stays: the project's own skills import it."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..tools.placement import removable, remove
from .install import destination

HELP = "remove skills that skillrail installed (links or marked copies), never your own"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skills", nargs="+", metavar="SKILL", help="the skills to remove")
    parser.add_argument("--target", choices=("claude", "agents"), default="claude",
                        help="claude: .claude/skills (the default); agents: .agents/skills")
    parser.add_argument("--dest", type=Path, default=None, metavar="DIR",
                        help="the folder they are in (default: the project's)")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    """Every skill named is checked before any is removed: a refusal removes nothing."""
    dest = destination(ns)
    for name in ns.skills:
        removable(dest / name)
    return 0, "\n".join(remove(dest / name) for name in ns.skills) + "\n"
