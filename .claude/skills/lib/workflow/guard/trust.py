"""Trust before execution: a skill's `` !`cmd` `` and `verify=` commands run only once the user
trusts the skill (direnv's `allow`, VS Code's workspace trust).

`skillrail trust SKILL` records a digest of every file in the skill's folder (SKILL.md, scripts,
resources) in the evidence store, which the agent cannot write; any change to any file revokes
the trust until the user trusts the skill again. The skills shipped inside this package are
trusted as they are: they are the framework's own code, as trusted as the gateway itself. A copy
of them put elsewhere (`skillrail install --copy`) is trusted when installed.
"""

from __future__ import annotations

import os

from ..base.paths import SKILLS_DIR

#: The skills shipped in this package (beside `lib/`): trusted as framework code. A test keeps
#: the list equal to the package's skill folders.
SHIPPED = ("codebase-analysis", "commit-message", "decision-critic", "deepthink", "doc-sync",
           "incoherence", "planner", "problem-analysis", "prompt-engineer", "refactor",
           "skill-runner", "solution-design", "writing-style")
#: Generated files that do not change what a skill does.
_SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

def shipped(skill_dir: str) -> bool:
    """Whether `skill_dir` is one of this package's own skills (symlinks followed)."""
    real = os.path.realpath(skill_dir)
    return os.path.dirname(real) == SKILLS_DIR and os.path.basename(real) in SHIPPED


def digest(skill_dir: str, skip: frozenset[str] = frozenset()) -> tuple[str, int]:
    """(sha256 over every file's relative path and bytes, the number of files); a symlink
    counts by where it points; files named in `skip` do not count. Read afresh each time: a
    skill edited a moment ago must not pass on an old digest (a third-party skill is a few
    small files)."""
    import hashlib  # only a skill the user trusted is hashed: every gateway call imports this

    root = os.path.realpath(skill_dir)
    hasher, files = hashlib.sha256(), 0
    for here, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        for name in sorted(n for n in names if n not in skip):
            path = os.path.join(here, name)
            rel = os.path.relpath(path, root).encode("utf-8", "surrogateescape")
            hasher.update(len(rel).to_bytes(4, "big") + rel)
            if os.path.islink(path):
                hasher.update(b"link:" + os.readlink(path).encode("utf-8", "surrogateescape"))
            else:
                with open(path, "rb") as handle:
                    hasher.update(hashlib.sha256(handle.read()).digest())
            files += 1
    return hasher.hexdigest(), files


def untrusted(skill_dir: str) -> str | None:
    """Why the skill's commands may not run (not trusted, or changed since it was), with the
    command the user runs to trust it; None when they may."""
    if shipped(skill_dir):
        return None
    from ..base.errors import LedgerError
    from .evidence import read_only

    real = os.path.realpath(skill_dir)
    recorded = None
    try:
        store = read_only()
        if store is not None:
            with store:
                recorded = store.trusted(real)
    except LedgerError:
        pass  # an unreadable store trusts nothing
    if recorded is not None and recorded == digest(real)[0]:
        return None
    state = "has changed since the user trusted it" if recorded else "is not trusted here"
    return (f"the skill at {real} {state}, so its commands do not run. The user reviews it and "
            f"runs `skillrail trust {real}` in their own terminal; an agent never runs that")
