"""Where things are: the installed `skills` package and the framework inside it, a skill given
by name or by one of its step scripts, and the folder skillrail keeps its state in (the run
ledger, and the evidence store beside it).

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
#: `skills/lib/conventions`, in the framework's real location (a skills folder that links the
#: framework in shares its conventions).
CONVENTIONS_DIR = os.path.join(PACKAGE_PARENT, "skills", "lib", "conventions")
#: Where a skill named NAME may live (after a folder given as is): the project's skills for
#: Claude Code and for other agents, then the user's own.
SKILL_PLACES = (os.path.join(".claude", "skills"), os.path.join(".agents", "skills"),
                os.path.join("~", ".claude", "skills"))
#: What Claude Code replaces with a skill's folder in its SKILL.md. Other Agent Skills clients
#: (Codex, Gemini CLI, ...) replace nothing: for them SKILL.md names the folder itself.
CLAUDE_SKILL_DIR = "${CLAUDE_SKILL_DIR}"
#: Where a project's skills are for the clients other than Claude Code, from its root.
AGENTS_SKILLS = ".agents/skills"


def agents_skill_dir(name: str) -> str:
    """A skill's folder as a SKILL.md in a project's `.agents/skills` names it: from the
    repository root, the folder those clients run commands from, so the same committed file
    works on every machine."""
    return f"{AGENTS_SKILLS}/{name}"


def agents_form(rel: str, text: str, name: str, folder: str | None = None) -> str:
    """A skill's file `rel` as its copy for the clients that substitute nothing has it: in
    SKILL.md each `${CLAUDE_SKILL_DIR}` is the skill's folder, `folder` (absolute, for a place
    outside any project), by default the portable agents_skill_dir; in README.md the commands
    name that folder in place of `.claude/skills/<name>`. Other files are as they are."""
    if rel == "SKILL.md":
        return text.replace(CLAUDE_SKILL_DIR, folder or agents_skill_dir(name))
    if rel == "README.md":
        return text.replace(f".claude/skills/{name}/", f"{folder or agents_skill_dir(name)}/")
    return text


#: The files agents_form changes.
AGENTS_FORMED = ("SKILL.md", "README.md")


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


def skill_folder(script: str) -> str:
    """The skill folder of a step script: the parent of the scripts/ folder holding it, however
    deep (sub-agent scripts live in scripts/qr/ and the like)."""
    here = os.path.dirname(os.path.abspath(script))
    probe = here
    while os.path.basename(probe) != "scripts":
        parent = os.path.dirname(probe)
        if parent == probe:  # not under a scripts/ folder: its parent, as before
            return os.path.dirname(here)
        probe = parent
    return os.path.dirname(probe)


def project_root(start: str | None = None) -> str:
    """The project a command works in, found from `start` (the working folder) up, as git finds
    `.git`: the nearest folder holding `.claude/skills`, `.agents/skills` (or
    `.claude/skillrail.yaml`), else the
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
    own = (os.path.join(".claude", "skills"), os.path.join(".claude", "skillrail.yaml"),
           os.path.join(".agents", "skills"))
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


def is_postgres_url(where: str) -> bool:
    """Whether the ledger setting `where` names a PostgreSQL server (a team's ledger)."""
    return where.startswith(("postgresql://", "postgres://"))


def ledger_url() -> str | None:
    """Where the run ledger is when it is not this machine's SQLite file (ledger_path): a
    team's PostgreSQL URL, or another SQLite file. `$SKILLRAIL_LEDGER` names it: a
    `postgresql://` URL, an absolute path to a SQLite file, or `local` (this machine's file,
    whatever the project says); else the top-level `ledger:` of the project's
    `.claude/skillrail.yaml`, a PostgreSQL URL without its password (the file is in git; the
    password is in ~/.pgpass or PGPASSWORD). Anything else is a LedgerError saying what to
    write, before it could be taken for a file's name. Read with the standard library: every
    step of a run asks."""
    given = os.environ.get("SKILLRAIL_LEDGER", "").strip()
    if given == "local":
        return None
    if given:
        return _checked(given, "SKILLRAIL_LEDGER", files=True)
    policy = os.path.join(project_root(), ".claude", "skillrail.yaml")
    try:
        with open(policy, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    import re

    found = re.search(r"^ledger:[ \t]*['\"]?([^'\"\s#]+)", text, re.MULTILINE)
    return _checked(found.group(1), f"`ledger:` in {policy}", files=False) if found else None


#: The values SKILLRAIL_LEDGER and `ledger:` may take, for the errors that say what to write.
_FORMS = ("a PostgreSQL URL (postgresql://USER@HOST/DB, its password in ~/.pgpass or "
          "PGPASSWORD)")


def _checked(where: str, named_in: str, files: bool) -> str:
    """`where`, when it names a ledger skillrail can open; else the LedgerError saying why."""
    import re

    from .errors import LedgerError

    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", where)
    forms = _FORMS + (", an absolute path to a SQLite file, or 'local' for this machine's "
                      "SQLite ledger" if files else "")
    if is_postgres_url(where):
        if not files and re.match(r"postgres(ql)?://[^/@]*:[^/@]*@", where):
            raise LedgerError(f"{named_in} holds a password, and that file is shared through "
                              "git", fix="Remove it from the URL (postgresql://USER@HOST/DB) "
                              "and keep it in ~/.pgpass or PGPASSWORD")
        return where
    if scheme and scheme.group(1).lower() in ("postgresql", "postgres"):
        raise LedgerError(f"{named_in} is not a PostgreSQL URL: '{where}'",
                          fix="Write postgresql://USER@HOST/DB (two slashes after the colon)")
    if scheme and len(scheme.group(1)) > 1:  # not a Windows drive letter
        raise LedgerError(f"{named_in} names a '{scheme.group(1)}' database ({where}), which "
                          "skillrail does not speak", fix=f"Give {forms}")
    if files and os.path.isabs(os.path.expanduser(where)):
        return os.path.expanduser(where)
    raise LedgerError(f"{named_in} is '{where}', which names no ledger", fix=f"Give {forms}")


def foreign_writer(path: str) -> str | None:
    """Why someone other than this user could write `path` (another owner, or a group or
    everyone given write access), or None (also when it does not exist). A group's write counts
    only for a group other than this user's own: Debian's umask 002 gives every file its
    owner's private group."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    uid = os.getuid()
    if info.st_uid != uid:
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o002:
        return "is writable by every user"
    if info.st_mode & 0o020 and info.st_gid != os.getgid():
        return f"is writable by the group {info.st_gid}"
    return None


def codex_home() -> str:
    """The user's Codex folder: `$CODEX_HOME`, else `~/.codex` (its config.toml records the
    hooks the user trusts; hooks/codex.py)."""
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def evidence_dir() -> str:
    """The evidence store's folder (evidence.py), beside the ledger."""
    return os.path.join(state_dir(), "evidence")
