"""Where things are: the installed `skills` package and the framework inside it, a skill given
by name, and the folder skillrail keeps its state in (the run ledger, and the evidence store
beside it).

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
#: Where a skill named NAME may live (after a folder given as is): the project's skills for
#: Claude Code and for other agents, then the user's own.
SKILL_PLACES = (os.path.join(".claude", "skills"), os.path.join(".agents", "skills"),
                os.path.join("~", ".claude", "skills"))


def find_skill(given: str, workspace: str | None = None) -> str | None:
    """The skill folder `given` names (a folder holding SKILL.md, from the working folder, or a
    skill's name looked up in SKILL_PLACES of `workspace`, by default the project's, found from
    here up), resolved; None when it names none."""
    workspace = workspace or project_root()
    candidates = [given] + [
        os.path.join(workspace, os.path.expanduser(place), given) for place in SKILL_PLACES]
    for candidate in candidates:
        if os.path.isfile(os.path.join(candidate, "SKILL.md")):
            return os.path.realpath(candidate)
    return None


def project_root(start: str | None = None) -> str:
    """The project a command works in, found from `start` (the working folder) up, as git finds
    `.git`: the nearest folder holding `.claude/skills` (or `.claude/skillrail.yaml`), else the
    nearest holding `.git`, else `start` itself. The home folder counts only when it is `start`:
    `~/.claude/skills` holds the user's own skills, not a project's. Resolved; the same answer
    for every step of a run, in whichever subfolder the agent stands."""
    here = os.path.realpath(start or os.getcwd())
    found = _ROOTS.get(here)
    if found is None:
        found = _ROOTS[here] = _search(here)
    return found


_ROOTS: dict[str, str] = {}


def _search(here: str) -> str:
    home = os.path.realpath(os.path.expanduser("~"))
    folders = [here]
    while os.path.dirname(folders[-1]) != folders[-1]:
        folders.append(os.path.dirname(folders[-1]))
    own = (os.path.join(".claude", "skills"), os.path.join(".claude", "skillrail.yaml"))
    for markers in (own, (".git",)):
        for folder in folders:
            if (folder == here or folder != home) and any(
                    os.path.exists(os.path.join(folder, m)) for m in markers):
                return folder
    return here


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


def ledger_url() -> str | None:
    """Where the run ledger is when it is not the SQLite file: `$SKILLRAIL_LEDGER`, else the
    top-level `ledger:` of the project's `.claude/skillrail.yaml` (a team's PostgreSQL URL,
    `postgresql://...`; its password belongs in ~/.pgpass or PGPASSWORD, not in git). Read
    with the standard library: every step of a run asks."""
    given = os.environ.get("SKILLRAIL_LEDGER")
    if given:
        return _known_scheme(given)
    policy = os.path.join(project_root(), ".claude", "skillrail.yaml")
    try:
        with open(policy, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    import re

    found = re.search(r"^ledger:[ \t]*['\"]?([^'\"\s#]+)", text, re.MULTILINE)
    return _known_scheme(found.group(1)) if found else None


def _known_scheme(where: str) -> str:
    """`where` when the ledger can open it: a postgresql:// URL, a sqlite: URL or a file path.
    Any other scheme is refused here, before it would be taken for a file's name."""
    scheme = where.partition("://")[0] if "://" in where else ""
    if scheme in ("", "postgresql", "postgres", "sqlite"):
        return where
    from .errors import LedgerError

    raise LedgerError(f"the run ledger's setting names a '{scheme}' database ({where}), which "
                      "skillrail does not speak", fix="Name a PostgreSQL server "
                      "(postgresql://HOST/DB) in SKILLRAIL_LEDGER or in `ledger:` of "
                      ".claude/skillrail.yaml, or unset it for this machine's SQLite ledger")


def evidence_dir() -> str:
    """The evidence store's folder (evidence.py), beside the ledger."""
    return os.path.join(state_dir(), "evidence")
