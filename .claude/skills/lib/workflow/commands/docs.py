"""`skillrail docs`: keep the generated sections of each skill's SKILL.md (how to run it, the
steps, the way back) and README.md (the same, plus a diagram per workflow) in step with its
workflows, and, in skillrail's own checkout, docs/api.md in step with the framework's
docstrings. `--write` regenerates them; `--check` fails (CI) when one is stale or missing."""

from __future__ import annotations

import argparse
import os
import shlex
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from ..base.errors import SkillrailError, UsageError, did_you_mean
from ..base.paths import SKILLS_DIR
from ..graph.diagram import to_mermaid
from ..graph.model import Workflow, skill_folder
from ..guard.trust import MANIFEST_FILE, manifest_text
from ..step.discovery import default_roots, discover_workflows, project_root
from ..tools.apiref import reference, reference_path
from ..tools.generated import has_section, renamed_section, with_section
from ..tools.usage import (
    SECTION,
    entry_workflows,
    how_to_start,
    script,
    step_lines,
    with_skill_md_section,
)
from .common import add_root, counted, loaded_workflows

HELP = ("regenerate (--write) or check (--check) the generated sections of SKILL.md and "
        "README.md, and skillrail's API reference (docs/api.md) in its own checkout")
#: The README section's name while it held only the diagrams; renamed in place on --write.
OLD_SECTION = "diagram"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skills", nargs="*", metavar="SKILL",
                        help="only these skills (default: every skill)")
    add_root(parser)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated sections")
    mode.add_argument("--check", action="store_true", help="exit 1 when any is stale")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    roots = [r.resolve() for r in ([ns.root] if ns.root else default_roots())]
    by_skill: dict[Path, list[Workflow]] = {}
    linked: list[Path] = []
    for root in roots:
        own, elsewhere = _own(root, _by_skill(_loaded(root, ns.skills), ns.skills,
                                              len(roots) > 1))
        by_skill.update(own)
        linked += elsewhere
    _named(ns.skills, by_skill.keys() | linked)
    api = [u for root in roots for u in _reference(root, ns.skills)]
    updates = [u for folder, workflows in by_skill.items()
               for u in _updates(folder, workflows)] + api
    stale = _apply(updates, ns.write)
    # Second: the manifest hashes the skills as just rewritten.
    stale += _apply([u for root in roots for u in _manifest(root, ns.skills)], ns.write)
    if ns.check and stale:
        raise SkillrailError(f"{len(stale)} file(s) out of date with the code: "
                             + ", ".join(stale),
                             fix=f"Run `{_write_command(ns)}` and commit the result")
    note = _linked_note(linked)
    if ns.write:
        return 0, f"rewrote {len(stale)} of {len(updates)} file(s)\n{note}"
    also = " and the API reference" if api else ""
    return 0, f"checked {len(updates)} file(s) of {len(by_skill)} skill(s){also}\n{note}"


def _apply(updates: list[tuple[Path, str, str, str]], write: bool) -> list[str]:
    """Each update's file, named with its note, where it is stale; rewritten when `write`."""
    stale = []
    for path, current, wanted, note in updates:
        if wanted == current:
            continue
        stale.append(_shown(path) + note)
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(wanted, encoding="utf-8")
    return stale


def _reference(root: Path, only: list[str]) -> list[tuple[Path, str, str, str]]:
    """docs/api.md, when `root` is the skills folder of the checkout the framework runs from
    (the reference documents that framework) and no skill is named."""
    path = reference_path()
    if only or path is None or root != Path(SKILLS_DIR).resolve():
        return []
    now = path.read_text(encoding="utf-8") if path.is_file() else ""
    return [(path, now, reference(), " (the API reference, from the framework's docstrings)"
             if now else " (missing: --write creates it)")]


def _manifest(root: Path, only: list[str]) -> list[tuple[Path, str, str, str]]:
    """guard/shipped.json, the digests of skillrail's own skills that trust them (trust.py), in
    its own checkout, as _reference gives docs/api.md."""
    if only or root != Path(SKILLS_DIR).resolve():
        return []
    path = Path(MANIFEST_FILE)
    now = path.read_text(encoding="utf-8") if path.is_file() else ""
    return [(path, now, manifest_text(), " (the shipped skills' digests, which trust them)")]


def _own(root: Path, by_skill: dict[Path, list[Workflow]]
         ) -> tuple[dict[Path, list[Workflow]], list[Path]]:
    """The skills whose folders are in the project, and those linked in from elsewhere
    (`skillrail install` links the shipped skills): their documents belong to the folder they
    live in, which this project's paths do not describe, so docs neither checks nor writes
    them."""
    project = project_root(root)
    own = {f: wfs for f, wfs in by_skill.items() if f.resolve().is_relative_to(project)}
    return own, [f for f in by_skill if f not in own]


def _linked_note(linked: list[Path]) -> str:
    if not linked:
        return ""
    names = ", ".join(folder.name for folder in linked)
    return (f"left {counted(len(linked), 'linked skill')} alone: {names} (their folders are "
            f"outside this project, under {os.path.commonpath(linked)}; their documents are kept "
            "there)\n")


def _loaded(root: Path, only: list[str]) -> list[Workflow]:
    """Every workflow under `root`. With skills named, a script of another skill that fails to
    load (say, one half-written) does not stop the named ones from being checked."""
    if not only:
        return loaded_workflows(root)
    found = discover_workflows(root)
    broken = [e for e in found.errors if Path(skill_folder(e.path)).name in only]
    if broken:
        raise SkillrailError(f"{len(broken)} skill script(s) failed to load: {broken[0].path}",
                             fix="`skillrail validate` lists them; fix them first")
    return found.workflows


def _by_skill(workflows: list[Workflow], only: list[str], some: bool = False
              ) -> dict[Path, list[Workflow]]:
    """The workflows by skill folder, in name order; only the skills named, when any are (all
    of them in this root, unless `some`: one of several roots)."""
    by_skill: dict[Path, list[Workflow]] = defaultdict(list)
    for wf in workflows:
        by_skill[Path(skill_folder(wf.source))].append(wf)
    if not some:
        _named(only, by_skill)
    return {folder: by_skill[folder] for folder in sorted(by_skill)
            if not only or folder.name in only}


def _named(only: list[str], folders: Iterable[Path]) -> None:
    """Refuse a skill named that no folder is."""
    names = {folder.name for folder in folders}
    for name in only:
        if name not in names:
            raise UsageError(f"no skill named '{name}'", fix="`skillrail list` shows them."
                             + did_you_mean(name, names))


def _updates(folder: Path, workflows: list[Workflow]) -> list[tuple[Path, str, str, str]]:
    """(file, its text now, its text with a fresh section, what to add to its name when it is
    stale) for the skill's README.md, and for its SKILL.md when it has one (lint reports a
    missing SKILL.md; docs does not invent one)."""
    readme, skill_md = folder / "README.md", folder / "SKILL.md"
    now = readme.read_text(encoding="utf-8") if readme.is_file() else f"# {folder.name}\n"
    prefix = folder.resolve().relative_to(project_root(folder.parent)).as_posix()
    body = readme_section(folder, workflows, prefix)
    found = [(readme, now, _in(readme, lambda: with_section(
        renamed_section(now, OLD_SECTION, SECTION), SECTION, body, "## Workflow")),
        _no_section(readme, now))]
    if skill_md.is_file():
        text = skill_md.read_text(encoding="utf-8")
        found.append((skill_md, text, _in(skill_md, lambda: with_skill_md_section(
            text, folder, workflows)), _no_section(skill_md, text)))
    return found


def _no_section(path: Path, text: str) -> str:
    missing = not has_section(renamed_section(text, OLD_SECTION, SECTION), SECTION)
    return " (no generated section: --write adds one)" if missing and path.is_file() else ""


def _in(path: Path, make: Callable[[], str]) -> str:
    """`make()`, a document with a fresh section; an error about its markers names `path`."""
    try:
        return make()
    except SkillrailError as exc:  # say which file: the markers are the author's to mend
        raise SkillrailError(exc.what, _shown(path), exc.fix) from None


def readme_section(folder: Path, workflows: list[Workflow], prefix: str) -> str:
    """README's generated text: how to run the skill and its steps (the same text as SKILL.md
    gives the agent), then one Mermaid diagram per workflow, the entry workflows first."""
    entries = entry_workflows(folder, workflows)
    parts = ["Generated by `skillrail docs --write` from the workflows; do not edit by hand.",
             "### Run it", *how_to_start(folder, entries, prefix)]
    for wf in entries:
        heading = "### Steps" if len(entries) == 1 else f"### Steps of {wf.name}"
        parts += [heading, "\n".join(step_lines(wf))]
    others = sorted((wf for wf in workflows if wf not in entries), key=lambda w: w.name)
    parts.append("### Diagram" if len(workflows) == 1 else "### Diagrams")
    for wf in entries + others:
        if len(workflows) > 1:
            role = "" if wf in entries else "sub-agent, "
            parts.append(f"#### {wf.name} ({role}`{script(folder, wf)}`)")
        parts.append(f"```mermaid\n{to_mermaid(wf).rstrip()}\n```")
    return "\n\n".join(parts)


def _shown(path: Path) -> str:
    """`path` relative to the working directory when it is under it: shorter to read."""
    here = Path.cwd().resolve()
    return os.path.relpath(path, here) if path.resolve().is_relative_to(here) else str(path)


def _write_command(ns: argparse.Namespace) -> str:
    words = ["skillrail", "docs", "--write", *ns.skills]
    if ns.root is not None:
        words += ["--root", str(ns.root)]
    return shlex.join(words)
