"""`skillrail install --target claude|agents`: place skills where an agent reads them, linked (the
default) or copied: `.claude/skills` for Claude Code, `.agents/skills` for Codex, Gemini CLI,
OpenCode, Copilot, Cursor and Goose. Those agents do not substitute `${CLAUDE_SKILL_DIR}`, so
for them the installed SKILL.md gets the skill's absolute folder written in (a real folder
whose other entries link to, or copy, the skill's). Copies link the framework (`lib`) in, so
the copied scripts import it and its conventions. Without hooks, skills work unenforced.

A folder it installed carries a `.skillrail-install` file naming its source; installing again
replaces it. Anything else already at a skill's place is left alone, with an error. A copy (or
a resolved folder) of one of skillrail's own skills is trusted as installed (trust.py), so its
commands run; skills installed `--from` another folder must be trusted by the user.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from ..base.errors import SkillrailError, UsageError, did_you_mean

HELP = "link or copy the skills into .claude/skills or .agents/skills"
MARK = ".skillrail-install"
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", MARK)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skills", nargs="*", metavar="SKILL", help="the skills (default: all)")
    parser.add_argument("--target", choices=("claude", "agents"), required=True,
                        help="claude: .claude/skills; agents: .agents/skills, with resolved "
                             "paths in SKILL.md")
    parser.add_argument("--copy", action="store_true", help="copy instead of linking")
    parser.add_argument("--dest", type=Path, default=None, metavar="DIR",
                        help="where to put them (default: ./.claude/skills or ./.agents/skills)")
    parser.add_argument("--from", dest="source", type=Path, default=None, metavar="DIR",
                        help="the skills folder to install from (default: skillrail's own)")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    source = (ns.source or Path(__file__).resolve().parents[3]).resolve()
    dest = (ns.dest or Path("." + ns.target) / "skills").absolute()
    found = {p.name: p for p in sorted(source.iterdir()) if (p / "SKILL.md").is_file()} \
        if source.is_dir() else {}
    if not found:
        raise UsageError(f"no skills (folders with a SKILL.md) in {source}",
                         fix="Point --from at a skills folder")
    for name in ns.skills:
        if name not in found:
            raise UsageError(f"no skill '{name}' in {source}", fix=f"Use one of: "
                             f"{', '.join(found)}." + did_you_mean(name, found))
    if dest.resolve() == source:
        raise UsageError(f"the skills already live in {dest}", fix="Give another --dest")
    dest.mkdir(parents=True, exist_ok=True)
    lines = _framework(source, dest) if ns.copy else []
    placed = []
    for name in ns.skills or list(found):
        lines.append(_place(found[name], dest / name, ns.target == "agents", ns.copy))
        placed.append((found[name], dest / name))
    lines += _trust_shipped(placed)
    return 0, "\n".join(lines) + "\n"


def _trust_shipped(placed: list[tuple[Path, Path]]) -> list[str]:
    """Trust the installed copies of skillrail's own skills (a link needs nothing: it resolves
    to the shipped folder)."""
    from ..guard.evidence import Evidence
    from ..guard.trust import digest, shipped

    copies = [place for skill, place in placed if shipped(str(skill)) and not place.is_symlink()]
    if not copies:
        return []
    with Evidence() as store:
        for place in copies:
            store.trust(str(place.resolve()), *digest(str(place)))
    return [f"trusted {len(copies)} installed skill(s) of skillrail's own (a change to one "
            "revokes its trust: `skillrail trust` it again)"]


def _framework(source: Path, dest: Path) -> list[str]:
    """Copied scripts import `skills.lib` from beside them: the package marker and a link to
    the framework (a link: its conventions are found from its real place)."""
    lines = []
    marker = dest / "__init__.py"
    if not marker.exists():
        marker.write_text("")
        lines.append(f"created {marker}")
    lib = dest / "lib"
    if lib.is_symlink() and lib.resolve() == (source / "lib").resolve():
        return lines
    if lib.exists() or lib.is_symlink():
        raise SkillrailError(f"{lib} exists and is not a link to skillrail's framework",
                             fix="Move it away, or install with links (without --copy)")
    lib.symlink_to((source / "lib").resolve(), target_is_directory=True)
    return lines + [f"linked {lib} -> {(source / 'lib').resolve()}"]


def _place(skill: Path, place: Path, resolve: bool, copy: bool) -> str:
    """Put one skill at `place`; say what was done."""
    again = _clear(skill, place, plain_link=not (resolve or copy))
    if again == "same":
        return f"up to date: {place} -> {skill}"
    if copy:
        shutil.copytree(skill, place, ignore=_IGNORE)
    elif resolve:
        place.mkdir()
        for entry in skill.iterdir():
            if entry.name not in ("SKILL.md", MARK, "__pycache__"):
                (place / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    else:
        place.symlink_to(skill, target_is_directory=True)
        return f"linked {place} -> {skill}"
    if resolve:
        text = (skill / "SKILL.md").read_text(encoding="utf-8")
        (place / "SKILL.md").write_text(text.replace("${CLAUDE_SKILL_DIR}", str(place)),
                                        encoding="utf-8")
    (place / MARK).write_text(f"{skill}\n", encoding="utf-8")
    how = "copied" if copy else "linked"
    return (f"{how} {skill} to {place}" + (" (SKILL.md with absolute paths)" if resolve else "")
            + (f" (replacing the earlier install, {again})" if again else ""))


def _clear(skill: Path, place: Path, plain_link: bool) -> str:
    """Make room at `place`: '' when it was free, 'same' when a plain link to `skill` is
    already there and wanted, else what was removed. Never removes what we did not install."""
    if place.is_symlink():
        if place.resolve() != skill.resolve():
            raise SkillrailError(f"{place} already links to {place.resolve()}",
                                 fix="Remove it first if it should be replaced")
        if plain_link:
            return "same"
        place.unlink()
        return "a link"
    if not place.exists():
        return ""
    if not (place / MARK).is_file():
        raise SkillrailError(f"{place} exists and was not installed by skillrail",
                             fix="Move it away, or give another --dest")
    shutil.rmtree(place)
    return "a folder"
