"""`skillrail install --target claude|agents`: place skills where an agent reads them, linked (the
default) or copied: `.claude/skills` for Claude Code, `.agents/skills` for Codex, Gemini CLI,
OpenCode, Copilot, Cursor and Goose. Those agents do not substitute `${CLAUDE_SKILL_DIR}`, so
for them the installed SKILL.md names the skill's folder itself (a real folder whose other
entries link to, or copy, the skill's): in a project's `.agents/skills`, from the repository
root, so a committed copy works on every machine; elsewhere, absolutely. The framework goes
beside the skills (tools/placement.py), so a project's own skills there import it too. Without
hooks, skills work unenforced.

A place skillrail installed carries a marker naming its source and version: installing again
replaces it, and so does `--update` (every skill already installed, none added); a link that
leads nowhere, or to the skill itself, is replaced too, and `--force` replaces a link that leads
elsewhere. A place that would be refused is found before anything is placed. A folder
without the marker is the user's and is left alone. A copy of one of skillrail's own skills is
trusted as installed (trust.py), so its commands run; skills installed `--from` another folder
must be trusted by the user.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..base.errors import SkillrailError, UsageError, did_you_mean
from ..base.paths import AGENTS_FORMED, SKILLS_DIR, agents_form, project_root
from ..guard.evidence import Evidence
from ..guard.snapshot import read
from ..guard.trust import record, shipped
from ..tools.placement import (
    MARK,
    REFUSED_FIX,
    changed,
    clear,
    framework_refusal,
    place,
    place_framework,
    read_mark,
    refusal,
    shipped_skills,
    write_mark,
)
from ..tools.usage import SKILL_DIR, skill_md_prefix

HELP = "link or copy the skills into .claude/skills or .agents/skills"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skills", nargs="*", metavar="SKILL",
                        help="the skills (default: all; with --update, those installed)")
    parser.add_argument("--target", choices=("claude", "agents"), default="claude",
                        help="claude: .claude/skills (the default); agents: .agents/skills, "
                             "with resolved paths in SKILL.md")
    parser.add_argument("--copy", action="store_true", help="copy instead of linking")
    parser.add_argument("--dest", type=Path, default=None, metavar="DIR",
                        help="where to put them (default: the project's .claude/skills or "
                             ".agents/skills)")
    parser.add_argument("--from", dest="source", type=Path, default=None, metavar="DIR",
                        help="the skills folder to install from (default: skillrail's own)")
    parser.add_argument("--force", action="store_true",
                        help="also replace a link that leads to something else (never a folder "
                             "of your own)")
    parser.add_argument("--update", action="store_true",
                        help="replace what skillrail installed with this version, add nothing, "
                             "leave your own skills alone")


def destination(ns: argparse.Namespace) -> Path:
    return (ns.dest or Path(project_root()) / f".{ns.target}" / "skills").absolute()


def run(ns: argparse.Namespace) -> tuple[int, str]:
    source = (ns.source or Path(SKILLS_DIR)).resolve()
    found = shipped_skills(source)
    if not found:
        raise UsageError(f"no skills (folders with a SKILL.md) in {source}",
                         fix="Point --from at a skills folder")
    for name in ns.skills:
        if name not in found:
            raise UsageError(f"no skill '{name}' in {source}", fix=f"Use one of: "
                             f"{', '.join(found)}." + did_you_mean(name, found))
    dest = destination(ns)
    if dest.resolve() == source:
        raise UsageError(f"the skills already live in {dest}", fix="Give another --dest")
    names = ns.skills or list(found)
    lines: list[str] = []
    if ns.update:
        names, lines = _installed(dest, names)
    _check_room(dest, names, found, ns.force)
    dest.mkdir(parents=True, exist_ok=True)
    # A project set up with copies (skillrail init) keeps them: a link would replace its
    # committed framework with this machine's package.
    copy = ns.copy or (not (dest / "lib").is_symlink() and read_mark(dest / "lib") is not None)
    if copy and not ns.copy:
        lines.append(f"the framework in {dest} is a copy (skillrail init): copying, not linking")
    lines += place_framework(dest, copy, ns.force)
    placed = []
    for name in names:
        lines.append(_place(found[name], dest / name, ns.target == "agents", copy, ns.force))
        placed.append((found[name], dest / name))
    lines += _trust_shipped(placed) if copy else []
    return 0, "\n".join(lines) + "\n"


def _check_room(dest: Path, names: list[str], found: dict[str, Path], force: bool) -> None:
    """Refuse before anything is placed when any place install would fill (the framework's
    `lib`, each skill's) would be refused as it is placed (placement.refusal): every such place
    is named."""
    busy = [why for why in (framework_refusal(dest, force),
                            *(refusal(dest / n, found[n], force) for n in names)) if why]
    if busy:
        raise SkillrailError(f"nothing was placed: {'; '.join(busy)}", fix=REFUSED_FIX)


def _installed(dest: Path, names: list[str]) -> tuple[list[str], list[str]]:
    """Of `names`, those skillrail installed at `dest` (marked, or links), and a line for each
    of the others: the user's own, left alone, or not installed, not added."""
    keep, said = [], []
    for name in names:
        at = dest / name
        if changed(at):
            said.append(f"left alone: {at} (changed since skillrail installed it; `skillrail "
                        f"install --force {name}` replaces it)")
        elif at.is_symlink() or read_mark(at) is not None:
            keep.append(name)
        elif at.exists():
            said.append(f"left alone: {at} (not installed by skillrail: your own)")
    return keep, said


def _trust_shipped(placed: list[tuple[Path, Path]]) -> list[str]:
    """Trust the installed copies of skillrail's own skills, each sealed (trust.py); a copy the
    agent edits later runs nothing until the user trusts it again. (A link needs nothing: its
    step scripts resolve to the shipped folder.)"""
    copies = [at for skill, at in placed if shipped(str(skill))]
    if not copies:
        return []
    with Evidence() as store:
        for at in copies:
            record(store, read(str(at)))
    return [f"trusted {len(copies)} installed skill(s) of skillrail's own (a change to one "
            "revokes its trust: `skillrail trust` it again)"]


def _place(skill: Path, at: Path, resolve: bool, copy: bool, force: bool) -> str:
    """Put one skill at `at`; say what was done. For agents that do not substitute
    ${CLAUDE_SKILL_DIR}, a folder whose SKILL.md names the skill's place (its other entries
    linked, or copied): from the repository root in a project's `.agents/skills`, which then
    works on every machine, else its absolute folder."""
    if not resolve or copy:
        done = place(skill, at, copy, force)
    else:
        replaced = clear(at, skill, force)
        at.mkdir()
        for entry in skill.iterdir():
            if entry.name not in (*AGENTS_FORMED, MARK, "__pycache__"):
                (at / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        done = f"linked {skill} to {at}" + (f" (replacing {replaced})" if replaced else "")
    if resolve:
        portable = skill_md_prefix(at) != SKILL_DIR
        for rel in AGENTS_FORMED:
            if (skill / rel).is_file():
                if (at / rel).is_symlink():
                    (at / rel).unlink()
                text = (skill / rel).read_text(encoding="utf-8")
                (at / rel).write_text(agents_form(rel, text, at.name,
                                                  None if portable else str(at)),
                                      encoding="utf-8")
        write_mark(at, skill)  # as placed, documents rewritten: no change of the user's
        done += (" (its commands named from the repository root)" if portable else
                 " (its commands with absolute paths)")
    return done
