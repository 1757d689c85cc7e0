"""The environment every gateway command runs in: an allow-list, not a clean-up.

Only `PATH` (its absolute entries outside the workspace), `LANG`, `LANGUAGE`, `LC_*`, `TERM` and
`TZ` are inherited: an inherited `PYTHONPATH`, `LD_PRELOAD`, `GIT_*`, `EDITOR` or `BASH_ENV` can
make a harmless program run anything, and a folder of the workspace on PATH (the project's
`bin/`, its `.venv/bin`) would let a checked-out file stand in for whatever a command runs in
its turn. `HOME` and `XDG_CONFIG_HOME` point to an empty private folder, so no `~/.gitconfig` or
other dotfile is read. git is told to read no system or user config, take no optional locks (so
`git status` writes nothing), never prompt, never page, and read pathspecs literally (no `:/`).

A repository's own `.git/config` cannot be switched off, and it can name programs git runs on a
read-only command (`core.fsmonitor`, `diff.<driver>.textconv`, `filter.<driver>.clean`,
`log.showSignature` with `gpg.program`, an alias, ...). `git_overrides` answers with
command-scope settings (`GIT_CONFIG_COUNT`, which outrank every file) that neutralise all such
keys: a fixed list, plus every driver and alias the repository's config defines. A program
setting is switched off with a value git never looks up on PATH: empty where git reads that as
"none", else the absolute path of `false` (or /dev/null, which cannot be run).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

_INHERITED = re.compile(r"^(PATH|LANG|LANGUAGE|LC_[A-Z_]+|TERM|TZ)$")
# The pager "cat" is git's word for no pager: it runs nothing (pager.c).
_GIT = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "GIT_ATTR_NOSYSTEM": "1",
        "GIT_ADVICE": "0", "GIT_LITERAL_PATHSPECS": "1"}
#: Settings that run a program or read a file outside the repository, neutralised always
#: (PROGRAM: a program that does nothing, found outside the workspace; see no_program).
PROGRAM = "\0program"
FIXED_GIT = (
    ("core.fsmonitor", ""), ("core.hooksPath", "/dev/null"), ("core.pager", "cat"),
    ("core.editor", PROGRAM), ("core.sshCommand", PROGRAM), ("core.askPass", ""),
    ("core.gitProxy", ""), ("core.alternateRefsCommand", ""), ("core.attributesFile", "/dev/null"),
    ("core.excludesFile", "/dev/null"), ("diff.external", ""), ("diff.orderFile", "/dev/null"),
    ("log.showSignature", "false"), ("gpg.program", PROGRAM), ("gpg.openpgp.program", PROGRAM),
    ("gpg.x509.program", PROGRAM), ("gpg.ssh.program", PROGRAM), ("credential.helper", ""),
    ("sequence.editor", PROGRAM), ("interactive.diffFilter", ""), ("mailmap.file", "/dev/null"),
    ("blame.ignoreRevsFile", ""), ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "dirty"), ("diff.submodule", "short"),
    ("status.submoduleSummary", "false"), ("gc.auto", "0"), ("maintenance.auto", "false"),
    ("protocol.allow", "never"))
#: The last part of a repository key that names a program to run (any driver or helper).
_RUNS = {"textconv", "command", "clean", "smudge", "process", "driver", "helper", "program",
         "sshcommand", "askpass", "editor", "fsmonitor", "hookspath", "cmd"}


#: The PATH the gateway was given, passed to its commands under another name (no program
#: looks anything up on it): a skill script the gateway runs may run the gateway in its turn,
#: whose `local: true` programs are found where that rule says, the workspace's folders too.
USER_PATH = "SKILLRAIL_USER_PATH"


def user_path(environ: Mapping[str, str] | None = None) -> str:
    """The user's PATH: the one an outer gateway kept under USER_PATH, else PATH."""
    source = os.environ if environ is None else environ
    return source.get(USER_PATH) or source.get("PATH", os.defpath)


def environment(home: str, workspace: str | None = None,
                base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a gateway command, with `home` as its HOME, and no folder of
    `workspace` on its PATH (USER_PATH keeps the PATH it had, see user_path)."""
    source = os.environ if base is None else base
    inherited = {k: v for k, v in source.items() if _INHERITED.match(k)}
    inherited["PATH"] = command_path(workspace, source)
    return {**inherited, **_GIT, "GIT_EDITOR": no_program(inherited["PATH"]), "HOME": home,
            "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home, "XDG_DATA_HOME": home,
            "XDG_STATE_HOME": home, USER_PATH: clean_path(user_path(source))}


def no_program(path: str) -> str:
    """A program setting's value that runs nothing and is never looked up on PATH: the full
    path of `false` on `path` (a PATH without the workspace), else /dev/null (exec refuses a
    device)."""
    import shutil

    found = shutil.which("false", path=path)  # not resolved: a multi-call binary reads argv[0]
    return found if found and os.path.isabs(found) else "/dev/null"


def command_path(workspace: str | None, environ: Mapping[str, str] | None = None) -> str:
    """PATH as gateway commands get it, and as bwrap is looked up on: no relative entries, no
    folder of `workspace`."""
    source = os.environ if environ is None else environ
    return clean_path(source.get("PATH", os.defpath), workspace)


def clean_path(path: str, workspace: str | None = None) -> str:
    """PATH without relative entries (which mean "wherever the command runs"), and without
    folders inside `workspace` when given: there a checked-out file could stand in for the
    program the policy allows (the gateway looks programs up this way)."""
    from .confine import inside

    keep = [p for p in path.split(os.pathsep) if os.path.isabs(p) and (
        workspace is None or not inside(os.path.realpath(p), workspace))]
    return os.pathsep.join(dict.fromkeys(keep))


def git_overrides(repository_keys: Iterable[str], path: str,
                  extra: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """`GIT_CONFIG_*` variables neutralising what the repository's config may run, given the
    keys it sets (`git config --list --name-only`) and the command's PATH; `extra` settings
    after them."""
    pairs: list[tuple[str, str]] = []
    for key in dict.fromkeys(k.strip() for k in repository_keys if k.strip()):
        lowered = key.lower()
        last = lowered.rsplit(".", 1)[-1]
        if lowered.startswith("pager.") or (lowered.startswith("filter.") and last == "required"):
            pairs.append((key, "false"))
        elif last in _RUNS or lowered.startswith("alias."):
            pairs.append((key, ""))  # an empty alias or driver runs nothing
    pairs += FIXED_GIT  # after the repository's own keys: for one key, the last setting wins
    pairs += extra
    nothing = no_program(path)
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for n, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = nothing if value == PROGRAM else value
    return env
