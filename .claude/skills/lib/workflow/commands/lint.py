"""`skillrail lint`: check each skill's SKILL.md (frontmatter against the Agent Skills spec, name,
description, body length, the values of skillrail's profile for skill-runner, and that the
invocation it shows is the real script with flags it accepts), and warn about the placeholders
`skillrail new` left in the skill and a generated section of SKILL.md that is out of date.
Warnings leave the exit status 0; an error makes it 1."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..base.errors import UsageError
from ..step.discovery import default_roots
from ..tools.skilllint import EXTENSION_KEYS, lint_skill

HELP = ("check each skill's SKILL.md against the Agent Skills rules, skillrail's profile for "
        "skill-runner and its real scripts; warn about placeholders left from `skillrail new` "
        "and a stale generated section")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", type=Path,
                        help="a skill folder, or a folder of skills (default: the skills root)")
    parser.add_argument("--allow-field", action="append", default=[], metavar="KEY",
                        help="accept this frontmatter key too (repeatable)")
    parser.add_argument("--spec-only", action="store_true",
                        help="judge the frontmatter by the plain Agent Skills spec: refuse "
                             "Claude Code's keys and skillrail's profile keys (execution_mode, "
                             "max_iterations, ...), allowed and checked by default, and only "
                             "warn where Claude's rules for skills are stricter than the spec "
                             "(a name outside a-z, 0-9 and '-'; '<' or '>' in the description)")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    allowed = (frozenset() if ns.spec_only else EXTENSION_KEYS) | frozenset(ns.allow_field)
    folders = [f for root in ([ns.path] if ns.path else default_roots()) for f in _folders(root)]
    problems = [p for folder in folders
                for p in lint_skill(folder, allowed, spec_only=ns.spec_only)]
    errors = [p for p in problems if p.level == "error"]
    status = 1 if errors else 0
    if ns.json:
        return status, json.dumps([p._asdict() for p in problems], indent=2) + "\n"
    summary = (f"{len(folders)} SKILL.md files: {len(errors)} errors, "
               f"{len(problems) - len(errors)} warnings")
    return status, "\n".join([*(str(p) for p in problems), summary]) + "\n"


def _folders(path: Path) -> list[Path]:
    """The skill folder given, or every folder with a SKILL.md under a skills root; a SKILL.md
    spelt in other capitals (skill.md) counts, for lint to name it."""
    if _skill_md_in(path):
        return [path]
    found = sorted(p for p in path.glob("*/") if _skill_md_in(p))
    if not found:
        raise UsageError(f"no SKILL.md in {path} or its folders",
                         fix="Give a skill folder or a folder of skills")
    return found


def _skill_md_in(folder: Path) -> bool:
    """Whether `folder` holds a SKILL.md in any capitals."""
    try:
        return folder.is_dir() and any(p.name.lower() == "skill.md" for p in folder.iterdir())
    except OSError:
        return False
