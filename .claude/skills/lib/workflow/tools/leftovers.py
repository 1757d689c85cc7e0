"""What a skill still owes its author, which `skillrail lint` warns about: the TODO placeholders
`skillrail new` wrote and nobody replaced yet (in SKILL.md, README.md and the scripts), and a
generated SKILL.md section that no longer matches the scripts. Neither stops the skill from
running, so both are warnings; a finished skill has neither."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ..base.errors import SkillrailError
from ..graph.model import Workflow
from ..step.discovery import default_root, load_script, original_shape, skill_scripts
from .generated import has_section, markers
from .scaffold import placeholders
from .usage import SECTION, with_skill_md_section


class Leftover(NamedTuple):
    path: Path
    line: int
    what: str
    fix: str


def leftovers(folder: Path) -> list[Leftover]:
    """Every placeholder left in the skill at `folder`, file by file and line by line, then
    its SKILL.md section when it is stale."""
    return [*_placeholders(folder), *_stale_section(folder)]


def _files(folder: Path) -> Iterator[Path]:
    """The files `skillrail new` writes placeholders into, of those the skill has."""
    for name in ("SKILL.md", "README.md"):
        if (folder / name).is_file():
            yield folder / name
    yield from sorted((folder / "scripts").rglob("*.py"))


def _placeholders(folder: Path) -> Iterator[Leftover]:
    openings = sorted(placeholders())
    for path in _files(folder):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue  # not text to read: nothing an author left in it
        for number, line in enumerate(lines, 1):
            found = next((o for o in openings if o in line), None)
            if found is not None:
                yield Leftover(path, number, f"a placeholder from `skillrail new` is still here "
                               f"('{found} ...')", "Replace it with the skill's own text")


def _stale_section(folder: Path) -> Iterator[Leftover]:
    """SKILL.md's generated section, when it differs from what `skillrail docs --write` would
    write there now. Nothing when it has no section (docs --check reports that) or when a
    script does not load (validate and the invocation check report that)."""
    path = folder / "SKILL.md"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    workflows = _workflows(folder) if has_section(text, SECTION) else None
    if not workflows:
        return
    line = text[:text.index(markers(SECTION)[0])].count("\n") + 1
    try:
        fresh = with_skill_md_section(text, folder, workflows)
    except SkillrailError as exc:
        yield Leftover(path, line, exc.what, exc.fix)
        return
    if fresh != text:
        yield Leftover(path, line, "the generated section is out of date with the skill's "
                       "scripts", f"Run `{_write_command(folder)}`; never edit it by hand")


def _workflows(folder: Path) -> list[Workflow] | None:
    """The skill's workflows, from the scripts `skillrail docs` reads; None when one does not
    load."""
    real = folder.resolve()
    found: list[Workflow] = []
    for script in skill_scripts(real.parent):
        if script.is_relative_to(real) and not original_shape(script):
            try:
                found += load_script(script)
            except (Exception, SystemExit):  # noqa: BLE001 - reported by the other checks
                return None
    return found


def _write_command(folder: Path) -> str:
    """`skillrail docs --write NAME`, with `--root` when the skill is not in the skills
    folder the command finds from here by itself."""
    words = ["skillrail", "docs", "--write", folder.resolve().name]
    if folder.resolve().parent != default_root().resolve():
        words += ["--root", str(folder.resolve().parent)]
    return shlex.join(words)
