"""Where things are: the installed `skills` package and the framework inside it, and the
folder skillrail keeps its state in (the run ledger, and the evidence store beside it).

Everything that needs a path outside its own folder asks here, so no module counts parent
folders from its own location (and moving a module moves no path).
"""

from __future__ import annotations

import os

#: The folder holding the `skills` package: `.claude` in a checkout, `site-packages` when
#: installed. Resolved, so a skills folder that links the framework in shares its place.
PACKAGE_PARENT = os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0]
#: The `skills` package: skillrail's own skills beside `lib/`.
SKILLS_DIR = os.path.join(PACKAGE_PARENT, "skills")


def state_dir() -> str:
    """`$SKILLRAIL_HOME`, else `$XDG_STATE_HOME/skillrail`, else `~/.local/state/skillrail`."""
    home = os.environ.get("SKILLRAIL_HOME")
    if home:
        return home
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                             "state")
    return os.path.join(state, "skillrail")


def ledger_path() -> str:
    """The run ledger's file."""
    return os.path.join(state_dir(), "runs.sqlite3")


def evidence_dir() -> str:
    """The evidence store's folder (evidence.py), beside the ledger."""
    return os.path.join(state_dir(), "evidence")
