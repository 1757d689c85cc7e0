"""Placing skillrail's skills and its framework in a project (`skillrail init`, `install`,
`uninstall`, `doctor`): linked to the installed package or copied, each place marked with a
`.skillrail-install` file naming its source and skillrail's version.

What may be replaced (refusal): a place skillrail marked (with `force` only when changed since),
a link that leads nowhere (a package removed since) or to what is being placed, and, with
`force`, a link that leads elsewhere. A folder without the mark is the user's own and is never
touched. Scripts in `.claude/skills/<skill>/scripts/` import `skills.lib` from
`.claude`, so wherever a skill goes the framework goes beside it: `skills/__init__.py`,
`_bootstrap.py` and `lib/`, linked or copied as the skills are."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import NamedTuple

from ..base.errors import SkillrailError
from ..base.paths import SKILLS_DIR
from ..base.version import VERSION
from ..guard.snapshot import INSTALL_MARK
from ..guard.trust import digest

MARK = INSTALL_MARK  # never counted in a skill's digest (guard/snapshot.py)
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", MARK)
#: The framework's files beside the skills in `.claude/skills`, written as they are; its `lib/`
#: beside them is linked or copied as the skills are.
FRAMEWORK_FILES = ("__init__.py", "_bootstrap.py")


class Mark(NamedTuple):
    """What a marker says: where the place came from, which skillrail put it there, and (for a
    copy) a digest of what it put there, so a copy changed since is told apart."""

    source: str
    version: str  # '' for a marker written before versions were recorded
    digest: str = ""


def read_mark(place: Path) -> Mark | None:
    """The place's marker, or None when skillrail did not put it there."""
    try:
        lines = (place / MARK).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    fields = dict(line.partition("=")[::2] for line in lines if "=" in line)
    if "source" not in fields:  # the first format: the source alone
        return Mark(lines[0] if lines else "", "")
    return Mark(fields["source"], fields.get("version", ""), fields.get("digest", ""))


def _content(place: Path) -> str:
    try:
        return digest(str(place))
    except SkillrailError:  # a link out of it, compiled code: not as skillrail placed it
        return ""


def write_mark(place: Path, source: Path) -> None:
    (place / MARK).write_text(f"source={source}\nversion={VERSION}\ndigest={_content(place)}\n",
                              encoding="utf-8")


def changed(place: Path) -> bool:
    """Whether a copy skillrail made was edited since (a link, or a copy marked before digests
    were kept, never counts as changed)."""
    mark = read_mark(place)
    return (mark is not None and bool(mark.digest) and not place.is_symlink()
            and _content(place) != mark.digest)


def shipped_skills(source: Path | None = None) -> dict[str, Path]:
    """The skills in `source` (default: skillrail's own), by name."""
    folder = (source or Path(SKILLS_DIR)).resolve()
    if not folder.is_dir():
        return {}
    return {p.name: p for p in sorted(folder.iterdir()) if (p / "SKILL.md").is_file()}


#: What to do about a place refused (see refusal).
REFUSED_FIX = ("Move it away, or give another --dest; --force replaces a link to something else "
               "(nothing it leads to is touched) or a copy changed since (the changes are lost), "
               "never a folder of your own")


def refusal(at: Path, source: Path | None, force: bool = False) -> str | None:
    """Why `at` may not be cleared to put `source` there ('<at> ...'), or None when it may: it
    is free, skillrail marked it (and, without `force`, it is unchanged since), or it is a link
    that leads nowhere, to `source` itself (replacing it loses nothing) or, with `force`,
    elsewhere. A folder without the mark is the user's and always refused."""
    if at.is_symlink():
        if not at.exists() or force or (source is not None
                                        and at.resolve() == source.resolve()):
            return None
        return f"{at} already links to {at.resolve()}"
    if not at.exists():
        return None
    if read_mark(at) is None:
        return f"{at} exists and was not installed by skillrail (it may be your own)"
    if not force and changed(at):
        return f"{at} was changed since skillrail installed it (the changes may be yours)"
    return None


def clear(at: Path, source: Path | None, force: bool = False) -> str:
    """Make room at `at` for `source`: '' when it was free, else what was removed. Raises,
    leaving it alone, when refusal says why not."""
    why = refusal(at, source, force)
    if why is not None:
        raise SkillrailError(f"{why}: it is left alone", fix=REFUSED_FIX)
    if at.is_symlink():
        gone = "a link that led nowhere" if not at.exists() else "a link"
        at.unlink()
        return gone
    if not at.exists():
        return ""
    if at.is_dir():
        shutil.rmtree(at)
    else:
        at.unlink()
    return "an earlier install"


def place(source: Path, at: Path, copy: bool, force: bool = False) -> str:
    """Put `source` (a skill, or the framework's lib) at `at`, linked or copied; say what was
    done. Linking, a link already leading to `source` is left as it is (copying, it is
    replaced by the copy)."""
    if not copy and at.is_symlink() and at.exists() and at.resolve() == source.resolve():
        return f"up to date: {at} -> {source}"
    replaced = clear(at, source, force)
    if copy:
        shutil.copytree(source, at, ignore=_IGNORE)
        write_mark(at, source)
        how = f"copied {source} to {at}"
    else:
        at.symlink_to(source.resolve(), target_is_directory=True)
        how = f"linked {at} -> {source.resolve()}"
    return how + (f" (replacing {replaced})" if replaced else "")


def place_framework(dest: Path, copy: bool, force: bool = False) -> list[str]:
    """The framework beside the skills in `dest`: the package marker, the bootstrap notes and
    `lib/`, linked or copied (a copy is marked with skillrail's version, for doctor)."""
    package = Path(SKILLS_DIR).resolve()
    lines = []
    for name in FRAMEWORK_FILES:
        target = dest / name
        if not target.exists() or (copy and not target.is_symlink()):
            if target.is_symlink():
                target.unlink()
            shutil.copy(package / name, target)
            lines.append(f"wrote {target}")
    lib = dest / "lib"
    if _hand_copied(lib):
        write_mark(lib, package / "lib")
    lines.append(place(package / "lib", lib, copy, force))
    return lines


def _hand_copied(lib: Path) -> bool:
    """A framework copied by hand before markers: it is skillrail's all the same."""
    return (lib.exists() and not lib.is_symlink() and read_mark(lib) is None
            and (lib / "workflow").is_dir())


def framework_refusal(dest: Path, force: bool = False) -> str | None:
    """Why place_framework would refuse the framework's `lib` in `dest`, or None."""
    lib = dest / "lib"
    return None if _hand_copied(lib) else refusal(lib, Path(SKILLS_DIR) / "lib", force)


def removable(at: Path) -> None:
    """Raise unless skillrail put something at `at` that it may take away."""
    if not at.exists() and not at.is_symlink():
        raise SkillrailError(f"nothing is installed at {at}", fix="`skillrail list` shows the "
                             "skills there are")
    if not at.is_symlink() and read_mark(at) is None:
        raise SkillrailError(f"{at} was not installed by skillrail (it may be your own): it "
                             "is left alone", fix="Remove it yourself if you mean to")


def remove(at: Path) -> str:
    """Take away what skillrail put at `at` (see removable)."""
    removable(at)
    what = ("a copy" if not at.is_symlink() else "a link" if at.exists() else
            "a link that led nowhere")
    clear(at, None, force=True)
    return f"removed {at} ({what})"


def stale(place: Path) -> str | None:
    """Why the copy at `place` is older than the installed package, or None."""
    mark = read_mark(place)
    if mark is None or place.is_symlink():
        return None
    if mark.version != VERSION:
        return f"skillrail {mark.version or 'before 0.2.0'} put it there; the package is {VERSION}"
    return None
