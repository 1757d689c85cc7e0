"""An OS sandbox around every gateway command, where the machine has bubblewrap (`bwrap`, the
tool Claude Code's own Bash sandbox uses on Linux).

Inside it the whole filesystem is read-only, the workspace included (a program whose policy
says `writes: true` gets the workspace read-write, but never its `.git` or `.claude`), `/tmp` and
`HOME` are private and empty, credentials folders and skillrail's own state are hidden, there is
no network, and the command dies with its parent. The policy layer (gateway.py) decides what may
run; the sandbox bounds what a command that was allowed can do if the policy is wrong.

Without bwrap the policy layer alone applies, and `skillrail gateway policy` says so. A policy
with `sandbox: required` refuses to run anything then; `off` (the user's alone to choose, see
gatepolicy.sandbox_mode) never wraps. bwrap itself is looked up on PATH outside the workspace,
as every program the gateway runs: it runs outside any sandbox.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every step that runs a command imports this module.
import os
import shutil
import subprocess
import sys
from typing import NamedTuple

from ..base.errors import GatewayRefusal
from ..base.paths import PACKAGE_PARENT, state_dir

#: HOME inside the sandbox: a folder of its private /tmp.
HOME = "/tmp/skillrail-home"
#: Namespaces to leave: all of them; inside another sandbox (Claude Code's Bash, or ours when a
#: skill script runs a command) a new PID namespace cannot mount its /proc, so the nested form
#: keeps the outer one's (which already shows only that sandbox's processes).
_FULL = ("--unshare-all", "--die-with-parent", "--new-session")
_NESTED = ("--unshare-user-try", "--unshare-ipc", "--unshare-net", "--unshare-uts",
           "--unshare-cgroup-try", "--die-with-parent", "--new-session")
#: What a command never needs to see: keys and tokens under HOME (hidden when present).
_SECRETS = (".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud",
            ".config/gh", ".netrc", ".npmrc", ".pypirc", ".git-credentials",
            ".local/share/keyrings", ".claude")


class Sandbox(NamedTuple):
    """A working bwrap, with the namespace flags this machine accepts."""

    binary: str
    flags: tuple[str, ...]


_found: dict[str, Sandbox | None] = {}


def find(path: str | None = None) -> Sandbox | None:
    """bwrap on `path` (PATH by default; the gateway gives its PATH without the workspace's
    folders) when it can start a sandbox here (probed once per process), else None."""
    key = path or os.environ.get("PATH", os.defpath)
    if key not in _found:
        _found[key] = _probe(shutil.which("bwrap", path=key))
    return _found[key]


def _probe(binary: str | None) -> Sandbox | None:
    if binary is None:
        return None
    for flags in (_FULL, _NESTED):
        argv = [binary, *flags, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp", "true"]
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode == 0:
            return Sandbox(binary, flags)
    return None


def for_policy(mode: str, path: str | None = None) -> Sandbox | None:
    """The sandbox a policy's `sandbox:` mode asks for; GatewayRefusal when it is required and
    this machine has none."""
    if mode == "off":
        return None
    box = find(path)
    if box is None and mode == "required":
        raise GatewayRefusal("sandbox-missing", "the sandbox is required (by the project's "
                             "`sandbox: required` or your SKILLRAIL_SANDBOX) and bubblewrap is "
                             "not installed here (or cannot start)", "Install it (Debian and "
                             "Ubuntu: apt-get install bubblewrap), or drop what requires it")
    return box


def own_pids(box: Sandbox | None) -> bool:
    """Whether the sandbox has a PID namespace of its own, whose end kills everything the
    command started (the nested form keeps the outer one's)."""
    return box is not None and "--unshare-all" in box.flags


def describe(mode: str, path: str | None = None) -> str:
    """One line for people: which sandbox commands run in."""
    if mode == "off":
        return ("sandbox: off (SKILLRAIL_SANDBOX=off in your environment; the policy layer "
                "alone applies)")
    box = find(path)
    if box is None:
        return ("sandbox: none (install bubblewrap; until then the policy layer alone applies)"
                + (", and the policy requires one: nothing runs" if mode == "required" else ""))
    nested = "" if own_pids(box) else " (nested in another sandbox)"
    return f"sandbox: bubblewrap ({box.binary}){nested}: read-only files, no network"


def wrap(box: Sandbox, argv: list[str], workspace: str, skill_dir: str, writes: bool,
         hide: tuple[str, ...] = (), reads: tuple[str, ...] = ()) -> list[str]:
    """`argv` as run inside the sandbox, from `workspace`; `reads`: more folders it must see,
    read-only (a git repository's folders outside the workspace)."""
    out = [box.binary, *box.flags, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
           "--tmpfs", "/tmp", "--dir", HOME]
    for path in sorted(p for p in reads if not _contains(workspace, p)):
        out += ["--ro-bind", path, path]  # before what is hidden: a secret inside stays hidden
    # The skill folder (a copy in skillrail's state folder, trust.py) is bound back below.
    for path in _hidden(hide, (workspace, *reads)):
        out += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    out += [("--bind" if writes else "--ro-bind"), workspace, workspace]
    if writes:  # what could make a later, unsandboxed command run something stays read-only
        for name in (".git", ".claude"):
            inner = os.path.join(workspace, name)
            if os.path.exists(inner):
                out += ["--ro-bind", inner, inner]
    for needed in _python_paths():
        if needed.startswith("/tmp/") and not _contains(workspace, needed):
            out += ["--ro-bind", needed, needed]  # under the private /tmp: bring it back
    out += ["--ro-bind", skill_dir, skill_dir]  # last: read-only even in a writable workspace
    return out + ["--chdir", workspace, "--", *argv]


def _hidden(extra: tuple[str, ...], keep: tuple[str, ...]) -> list[str]:
    """Existing secret and state paths, minus any that holds a folder the command needs."""
    home = os.path.expanduser("~")
    candidates = [os.path.join(home, s) for s in _SECRETS]
    candidates += [state_dir(), *(os.path.expanduser(p) for p in extra)]
    found = []
    for path in dict.fromkeys(os.path.realpath(p) for p in candidates):
        if os.path.lexists(path) and not any(_contains(path, k) for k in keep):
            found.append(path)
    return found


def _contains(folder: str, path: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _python_paths() -> list[str]:
    """Where this Python and its packages live (the `skills` package among them): a skill
    script runs with this interpreter and imports from the same places."""
    places = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)),
              PACKAGE_PARENT, *sys.path]
    return [p for p in dict.fromkeys(os.path.realpath(p) for p in places if p)
            if os.path.isdir(p)]
