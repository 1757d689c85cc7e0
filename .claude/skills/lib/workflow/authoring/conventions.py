"""Shared conventions: markdown documents in the repository's top-level `conventions/` folder
(severity, temporal, structural, ...) that any step can list or inline, so every skill applies
the same rules. Read from disk only when a step names one."""

import os
from typing import NamedTuple

from ..base.errors import SkillrailError, did_you_mean
from ..base.paths import PACKAGE_PARENT

#: `<repo>/conventions`, beside the `.claude` folder that holds the `skills` package (of the
#: framework's real location: a skills folder that links the framework in shares its conventions).
CONVENTIONS_DIR = os.path.join(os.path.dirname(PACKAGE_PARENT), "conventions")


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
        return ("That folder is missing or holds no .md file: skillrail's conventions live in "
                "conventions/ beside .claude/ in its repository, and this installed package "
                "lacks them. Install skillrail from a checkout of the repository with "
                "`pip install -e .`")
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
