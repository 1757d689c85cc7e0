"""Which workspace a run belongs to, said the same on every machine (issue 22): the repository,
by its origin's URL made plain (`github.com/org/app`, whatever the scheme, user or `.git`), else
by its root's path, plus the project's path inside it (`github.com/org/app/services/api`). Two
clones of one repository on two machines share their runs, so `status` on one sees the team's
runs of that project, and a team ledger's listings can be scoped to it. Where a run started on
this machine and by whom (`host`, `who`) are kept beside it, for `runs --mine`.

Read from `.git/config` with the standard library (every run's first step asks): no git
process is started."""

from __future__ import annotations

import os
import re

_IDS: dict[str, str] = {}


def workspace_id(project: str) -> str:
    """The workspace of the project at `project` (a resolved folder): see the module docstring."""
    found = _IDS.get(project)
    if found is None:
        found = _IDS[project] = _identify(project)
    return found


def folder_of(workspace: str, folder: str | None) -> str | None:
    """Where a run of `workspace` lives on this machine, for its settings, policy and files:
    the folder it started in (`folder`, recorded since ledger schema 10) while that is still a
    project of the same workspace; else this project when it is one (a teammate's run on a
    team ledger); else the workspace itself when it is a folder (a run of a repository without
    a remote from before schema 10); else None (another project's run)."""
    from ..base.paths import project_root

    for candidate in (folder, project_root(), workspace):
        if candidate and os.path.isdir(candidate) and workspace_id(candidate) == workspace:
            return candidate
    return None


def script_here(script: str, workspace: str) -> str:
    """A run's script as this project has it. On a team ledger a run of this workspace may have
    started in a teammate's clone, its script at a path of their machine: the same file inside
    this clone's skills folder is the one to load, and the one commands printed here name (a
    changed copy is caught by the run's fingerprint). Otherwise, `script` as recorded."""
    from ..base.paths import project_root

    for folder in (os.path.join(".claude", "skills"), os.path.join(".agents", "skills")):
        _, found, inside = script.rpartition(os.sep + folder + os.sep)
        if not found:
            continue
        root = project_root()
        here = os.path.join(root, folder, inside)
        if here != script and os.path.isfile(here) and workspace_id(root) == workspace:
            return here
    return script


def _identify(project: str) -> str:
    root = project
    while not os.path.exists(os.path.join(root, ".git")):
        if os.path.dirname(root) == root:
            return project  # no repository: the folder is the workspace
        root = os.path.dirname(root)
    origin = _origin(os.path.join(root, ".git"))
    if origin is None:
        return project
    inside = os.path.relpath(project, root)
    return origin if inside == "." else f"{origin}/{inside.replace(os.sep, '/')}"


def _origin(git: str) -> str | None:
    """The origin remote's URL, made plain, from the repository's config; None without one."""
    if os.path.isfile(git):  # a worktree or submodule: `gitdir: PATH`
        try:
            with open(git, encoding="utf-8") as handle:
                pointed = handle.read().partition("gitdir:")[2].strip()
        except OSError:
            return None
        git = os.path.join(os.path.dirname(git), pointed)
        common = os.path.join(git, "commondir")
        if os.path.isfile(common):
            with open(common, encoding="utf-8") as handle:
                git = os.path.normpath(os.path.join(git, handle.read().strip()))
    try:
        with open(os.path.join(git, "config"), encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    section = re.search(r'^\[remote "origin"\]\s*$(.*?)(?=^\[|\Z)', text, re.M | re.S)
    url = re.search(r"^\s*url\s*=\s*(\S+)", section.group(1), re.M) if section else None
    return plain(url.group(1)) if url else None


def plain(url: str) -> str:
    """An origin URL without its scheme, user, port-less ssh colon and `.git`: the https, ssh
    and scp-like spellings of one repository read the same (`host/owner/name`), lowercased
    host."""
    text = url.strip()
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text)  # https://, ssh://, git://
    text = re.sub(r"^[^@/]+@", "", text)  # user@ (or user:token@)
    if re.match(r"^[^/:]+:(?!\d+/)", text):  # scp-like host:path (not host:port/)
        text = text.replace(":", "/", 1)
    text = re.sub(r"^([^/]+):\d+/", r"\1/", text)  # a port
    host, _, path = text.partition("/")
    path = path.strip("/").removesuffix(".git")
    return f"{host.lower()}/{path}" if path else host.lower()


def who() -> tuple[str, str]:
    """(this machine's name, this user's login), as a run records them."""
    import getpass  # only a run's first step asks: not every step pays for these
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    return socket.gethostname(), user
