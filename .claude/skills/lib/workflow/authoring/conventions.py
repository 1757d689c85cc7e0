"""Shared conventions: markdown documents in the framework's `conventions/` folder (severity,
temporal, structural, ...) that any step can list or inline, so every skill applies the same
rules. They ship inside the package (`skills/lib/conventions`, which the repository's top-level
`conventions` links to), so an installed or copied framework has them. Read from disk only when
a step names one."""

import os
from typing import NamedTuple

from ..base.errors import SkillrailError, did_you_mean
from ..base.paths import CONVENTIONS_DIR as CONVENTIONS_DIR  # named here too, as before


class Convention(NamedTuple):
    name: str
    path: str
    text: str


def convention_names(folder: str = CONVENTIONS_DIR) -> list[str]:
    """The conventions available: each `<name>.md` in the folder."""
    try:
        return sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".md"))
    except OSError:
        return []


def choose_from(name: str, known: list[str]) -> str:
    """The fix for a convention `name` that is not there: the ones to choose from; when there
    are none at all, the installation lacks the folder, and how to get one that has it."""
    if not known:
        return ("That folder is missing or holds no .md file: the framework ships its "
                "conventions in skills/lib/conventions, and this copy lacks them. Install it "
                "again (`skillrail init --update` in a project, or `pip install skillrail`)")
    return f"Use one of: {', '.join(known)}." + did_you_mean(name, known)


def convention_path(name: str, folder: str = CONVENTIONS_DIR) -> str:
    return os.path.join(folder, f"{name}.md")


def get_convention(name: str, folder: str = CONVENTIONS_DIR) -> Convention:
    """The convention `name`, or a SkillrailError listing the ones there are."""
    path = convention_path(name, folder)
    try:
        with open(path, encoding="utf-8") as handle:
            return Convention(name, path, handle.read())
    except (OSError, UnicodeDecodeError):
        known = convention_names(folder)
        raise SkillrailError(f"no convention '{name}' in {folder}",
                             fix=choose_from(name, known)) from None
