"""The environment every gateway command runs in: an allow-list, not a clean-up.

Only `PATH` (its absolute entries), `LANG`, `LANGUAGE`, `LC_*`, `TERM` and
`TZ` are inherited: an inherited `PYTHONPATH`, `LD_PRELOAD`, `GIT_*`, `EDITOR` or `BASH_ENV` can
make a harmless program run anything. `HOME` and `XDG_CONFIG_HOME` point to an empty private
folder, so no `~/.gitconfig` or other dotfile is read. git is told to read no system or user
config, take no optional locks (so `git status` writes nothing), never prompt and never page.

A repository's own `.git/config` cannot be switched off, and it can name programs git runs on a
read-only command (`core.fsmonitor`, `diff.<driver>.textconv`, `filter.<driver>.clean`,
`log.showSignature` with `gpg.program`, ...). `git_overrides` answers with command-scope
settings (`GIT_CONFIG_COUNT`, which outrank every file) that neutralise all such keys: a fixed
list, plus every driver the repository's config defines.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from ..base.errors import GatewayRefusal

_INHERITED = re.compile(r"^(PATH|LANG|LANGUAGE|LC_[A-Z_]+|TERM|TZ)$")
_GIT = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "GIT_ATTR_NOSYSTEM": "1",
        "GIT_EDITOR": "false", "GIT_ADVICE": "0"}
#: Settings that run a program or read a file outside the repository, neutralised always.
FIXED_GIT = (
    ("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("core.pager", "cat"),
    ("core.editor", "false"), ("core.sshCommand", "false"), ("core.askPass", ""),
    ("core.gitProxy", ""), ("core.alternateRefsCommand", ""), ("core.attributesFile", "/dev/null"),
    ("core.excludesFile", "/dev/null"), ("diff.external", ""), ("diff.orderFile", "/dev/null"),
    ("log.showSignature", "false"), ("gpg.program", "false"), ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"), ("gpg.ssh.program", "false"), ("credential.helper", ""),
    ("sequence.editor", "false"), ("interactive.diffFilter", ""), ("mailmap.file", "/dev/null"),
    ("blame.ignoreRevsFile", ""), ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "dirty"), ("status.submoduleSummary", "false"), ("gc.auto", "0"),
    ("maintenance.auto", "false"), ("protocol.allow", "never"))
#: The last part of a repository key that names a program to run (any driver or helper).
_RUNS = {"textconv", "command", "clean", "smudge", "process", "driver", "helper", "program",
         "sshcommand", "askpass", "editor", "fsmonitor", "hookspath"}


def environment(home: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a gateway command, with `home` as its HOME."""
    inherited = {k: v for k, v in (os.environ if base is None else base).items()
                 if _INHERITED.match(k)}
    inherited["PATH"] = clean_path(inherited.get("PATH", os.defpath))
    return {**inherited, **_GIT, "HOME": home, "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home,
            "XDG_DATA_HOME": home, "XDG_STATE_HOME": home}


def clean_path(path: str, workspace: str | None = None) -> str:
    """PATH without relative entries (which mean "wherever the command runs"), and without
    folders inside `workspace` when given: there a checked-out file could stand in for the
    program the policy allows (the gateway looks programs up this way)."""
    from .confine import inside

    keep = [p for p in path.split(os.pathsep) if os.path.isabs(p) and (
        workspace is None or not inside(os.path.realpath(p), workspace))]
    return os.pathsep.join(dict.fromkeys(keep))


def git_overrides(repository_keys: Iterable[str]) -> dict[str, str]:
    """`GIT_CONFIG_*` variables neutralising what the repository's config may run, given the
    keys it sets (`git config --list --name-only`); GatewayRefusal for `core.worktree`, which
    would point git at files outside the workspace and cannot be overridden."""
    pairs: list[tuple[str, str]] = []
    for key in dict.fromkeys(k.strip() for k in repository_keys if k.strip()):
        lowered = key.lower()
        if lowered == "core.worktree":
            raise GatewayRefusal("git-config", "the repository's config sets core.worktree, "
                                 "which points git at another folder", "Remove it from "
                                 ".git/config, or run the command yourself")
        last = lowered.rsplit(".", 1)[-1]
        if lowered.startswith("pager.") or (lowered.startswith("filter.") and last == "required"):
            pairs.append((key, "false"))
        elif last in _RUNS:
            pairs.append((key, ""))
    pairs += FIXED_GIT  # after the repository's own keys: for one key, the last setting wins
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for n, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{n}"], env[f"GIT_CONFIG_VALUE_{n}"] = key, value
    return env
