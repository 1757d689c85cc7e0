"""Merging skillrail's hooks into a Claude Code settings file (`.claude/settings.json`), leaving
every other key and hook as it was. Our entries are recognised by the entry script's path, so
installing twice changes nothing, installing from a moved checkout replaces them in place, and
uninstalling removes exactly them. A file that is not a JSON object is an error, left untouched.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import tempfile
from typing import Any

from ..base.errors import SkillrailError
from ..guard.claudesettings import HOOK_PROGRAM, ours

#: (event, matcher) of each hook; None: the event takes no matcher.
EVENTS: tuple[tuple[str, str | None], ...] = (
    ("PreToolUse", "*"),
    ("PostToolUse", "AskUserQuestion|Bash"),
    ("Stop", None),
    ("SessionStart", "compact|resume"),
    ("UserPromptSubmit", None),
)
#: Seconds Claude Code waits for a hook; a hook that times out lets the action through.
TIMEOUT = 10


#: The entry script inside a project whose `.claude/skills` holds the framework (`skillrail
#: init`), as hook commands before issue 26 named it: the project's copy, which the agent can
#: edit like any other file. Hooks that run it are installed again (doctor says so).
PROJECT_ENTRY = ".claude/skills/lib/workflow/hooks/entry.py"


def entry_command(event: str, shared: bool = False, client: str = "claude") -> str:
    """The command for `event`. `shared`: `skillrail-hook EVENT`, the program pip installs
    with skillrail, found on each teammate's PATH: every teammate's hooks run their own
    installation. Else this installation by absolute paths (one machine's), ending with
    `|| true`: an entry script that is gone (a removed virtual environment) would otherwise
    exit 2, which Claude Code takes as a refusal of every tool call. Neither ever runs a
    project's copy of the framework. Gemini CLI's commands name the client after the event
    and always end `|| true`: Gemini blocks the action on any exit but 0 and 1, a missing
    program's 127 included."""
    gemini = client == "gemini"
    if shared and not gemini:
        return f"{HOOK_PROGRAM} {event}"
    entry = os.path.join(os.path.dirname(os.path.realpath(__file__)), "entry.py")
    words = [HOOK_PROGRAM] if shared else [sys.executable or "python3", entry]
    return shlex.join([*words, event, *(["gemini"] if gemini else [])]) + " || true"


def _group(event: str, matcher: str | None, shared: bool,
           client: str = "claude") -> dict[str, Any]:
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    timeout = TIMEOUT * 1000 if client == "gemini" else TIMEOUT  # Gemini counts milliseconds
    group["hooks"] = [{"type": "command", "command": entry_command(event, shared, client),
                       "timeout": timeout}]
    return group


def read(path: str) -> tuple[str, dict[str, Any]]:
    """The file's text and its settings ({} when it does not exist); SkillrailError when it is
    not a JSON object whose `hooks` has the documented shape."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillrailError(f"cannot read {path}: {exc}", fix="Check the file and its "
                             "permissions; it was left untouched") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SkillrailError(f"{path} is not valid JSON ({exc})",
                             fix="Fix the file by hand first; it was left untouched") from None
    if not isinstance(data, dict):
        raise SkillrailError(f"{path} is not a JSON object", fix="Fix the file by hand first; "
                             "it was left untouched")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or not all(
            isinstance(groups, list) and all(isinstance(g, dict) for g in groups)
            for groups in hooks.values()):
        raise SkillrailError(f"'hooks' in {path} is not an object of event -> list of matcher "
                             "groups", fix="Fix the file by hand first; it was left untouched")
    return text, data


def merged(data: dict[str, Any], install: bool, shared: bool = False,
           events: tuple[tuple[str, str | None], ...] = EVENTS,
           client: str = "claude") -> dict[str, Any]:
    """`data` with our hooks for `events` installed (or removed), everything else kept in its
    order. (Codex's `.codex/hooks.json` and Gemini CLI's `.gemini/settings.json` have this
    shape too, with events of their own.)"""
    hooks: dict[str, list[dict[str, Any]]] = {
        event: [dict(g) for g in groups] for event, groups in data.get("hooks", {}).items()}
    wanted = ({event: _group(event, matcher, shared, client) for event, matcher in events}
              if install else {})
    for event in list(hooks) + [e for e in wanted if e not in hooks]:
        groups = hooks.get(event, [])
        if event in wanted and wanted[event] in groups:
            hooks[event] = _without_ours(groups, keep=wanted[event])
            continue
        groups = _without_ours(groups)
        if event in wanted:
            groups.append(wanted[event])
        _put(hooks, event, groups)
    return _put(dict(data), "hooks", hooks)


def _put(mapping: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """`mapping` with `key` set to `value`, or without `key` when `value` is empty: we never
    leave an empty entry behind in someone's settings."""
    if value:
        mapping[key] = value
    else:
        mapping.pop(key, None)
    return mapping


def _without_ours(groups: list[dict[str, Any]],
                  keep: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The groups minus our hooks (except the group `keep`, which is already as wanted);
    groups left without any hook are dropped."""
    result = []
    for group in groups:
        if group == keep:
            result.append(group)
            keep = None  # a second identical copy is a duplicate: drop it
            continue
        inner = group.get("hooks")
        if not isinstance(inner, list):
            result.append(group)
            continue
        rest = [h for h in inner if not ours(h)]
        if rest == inner:
            result.append(group)
        elif rest:
            result.append({**group, "hooks": rest})
    return result


#: The state folder base/paths.state_dir gives where nothing overrides it, as the settings
#: spell it: the one a teammate has unless they set SKILLRAIL_HOME or XDG_STATE_HOME.
DEFAULT_STATE = "~/.local/state/skillrail"


def sandbox_paths(portable: bool = False) -> tuple[str, str]:
    """(the run ledger's folder, the evidence store's folder) as Claude Code's settings spell
    paths: `~/...` below HOME, else `//...` (a single leading slash would mean "relative to the
    project"). `portable`: the default folder's, which a shared settings file names (this
    machine's own, when it differs, goes to the unshared one: personal_sandbox)."""
    from ..base.paths import evidence_dir, state_dir

    if portable:
        return DEFAULT_STATE, DEFAULT_STATE + "/evidence"
    return _spelled(state_dir()), _spelled(evidence_dir())


def make_sandbox_folders() -> None:
    """Create the folders the sandbox settings name (this machine's state and evidence folders,
    and the default ones a shared settings file names), private to the user: Claude Code's
    bubblewrap refuses to start any command when a folder it must guard is missing ("Can't
    find source path"), which happened where the default state folder held a ledger but the
    evidence store lived elsewhere (SKILLRAIL_HOME)."""
    for portable in (False, True):
        for spelled in sandbox_paths(portable):
            path = os.path.expanduser(spelled) if spelled.startswith("~/") else spelled[1:]
            os.makedirs(path, mode=0o700, exist_ok=True)


def own_state() -> bool:
    """Whether this machine keeps skillrail's state somewhere other than the default folder
    (SKILLRAIL_HOME, XDG_STATE_HOME)."""
    return sandbox_paths()[0] != DEFAULT_STATE


def _spelled(path: str) -> str:
    home = os.path.expanduser("~")
    real = os.path.realpath(path)
    if real.startswith(home.rstrip(os.sep) + os.sep):
        return "~/" + os.path.relpath(real, home)
    return "/" + real


def protected(root: str) -> list[str]:
    """What decides whether the hooks and the gateway hold, in the project at `root`, as
    Claude Code's project settings spell paths (`/...`: from the project's folder; elsewhere
    `~/...` or `//...`): its settings files, its policy, the framework copy step scripts
    import, and this skillrail installation when it lies inside the project (a virtual
    environment there)."""
    paths = ["/.claude/settings.json", "/.claude/settings.local.json", "/.claude/skillrail.yaml"]
    if os.path.isdir(os.path.join(root, ".claude", "skills", "lib")):
        paths.append("/.claude/skills/lib")
    from ..base.paths import PACKAGE_PARENT
    from ..guard.confine import inside

    package, real = PACKAGE_PARENT, os.path.realpath(root)  # the folder holding `skills`
    if inside(package, real):
        spelled = "/" + os.path.relpath(package, real).replace(os.sep, "/")
        if not any(spelled == p or spelled.startswith(p + "/") for p in paths):
            paths.append(spelled.rstrip("/.") or "/")
    return paths


def with_sandbox(data: dict[str, Any], install: bool, root: str,
                 portable: bool = False) -> dict[str, Any]:
    """`data` with Claude Code's Bash sandbox on (or our paths taken out of it): step scripts
    may write the run ledger; nothing in the sandbox may write the evidence store or what the
    hooks and the gateway are decided by (`protected`), and the file tools may not edit them
    either (`permissions.deny`); no command may leave the sandbox (`dangerouslyDisableSandbox`)
    and Claude Code refuses to start where the sandbox cannot run (`failIfUnavailable`), rather
    than run Bash unsandboxed. `portable` (a shared file): the state folder is the default one
    (sandbox_paths). Other keys are kept; removing takes out this machine's paths and the
    default ones."""
    box = dict(data.get("sandbox") or {})
    if install:
        box.update(enabled=True, allowUnsandboxedCommands=False, failIfUnavailable=True)
    out = _put(dict(data), "sandbox", box)
    return _state_rules(out, install, sandbox_paths(portable), protected(root))


def personal_sandbox(data: dict[str, Any], install: bool) -> dict[str, Any]:
    """`data` (the unshared settings.local.json) with this machine's own state folder (or
    without it): what a shared file's with_sandbox(portable=True) leaves out when this machine
    keeps its state elsewhere. Claude Code adds these paths and rules to the shared ones."""
    return _state_rules(data, install, sandbox_paths(), [])


def _state_rules(data: dict[str, Any], install: bool, state: tuple[str, str],
                 guarded_too: list[str]) -> dict[str, Any]:
    """`data` with the ledger's folder writable and `guarded_too` and the evidence folder
    neither writable nor editable (or with all of these taken out, in every spelling ours may
    have had)."""
    ledger, evidence = state
    guarded = [evidence, *guarded_too]

    def rules(paths: list[str]) -> list[str]:
        # Claude Code also makes its sandbox deny Bash what an Edit rule denies (seen with
        # 2.1.332), so the ledger, which step scripts write, gets no rule; PreToolUse refuses
        # the file tools there (hooks/refusals.py).
        return [f"Edit({p})" if p.endswith((".json", ".yaml")) else f"Edit({p}/**)"
                for p in paths]

    ledgers = {ledger, *(paths[0] for paths in (sandbox_paths(), sandbox_paths(True)))}
    evidences = {evidence, *(paths[1] for paths in (sandbox_paths(), sandbox_paths(True)))}
    ours_guarded = [*evidences, *guarded_too]
    box = dict(data.get("sandbox") or {})
    files = dict(box.get("filesystem") or {})
    allow = [p for p in files.get("allowWrite", []) if p not in ledgers]
    deny = [p for p in files.get("denyWrite", []) if p not in ours_guarded]
    permissions = dict(data.get("permissions") or {})
    refused = [r for r in permissions.get("deny", []) if r not in rules(ours_guarded)]
    if install:
        allow, deny, refused = allow + [ledger], deny + guarded, refused + rules(guarded)
    _put(files, "allowWrite", allow)
    _put(files, "denyWrite", deny)
    _put(permissions, "deny", refused)
    out = _put(dict(data), "sandbox", _put(box, "filesystem", files))
    return _put(out, "permissions", permissions)


def render(data: dict[str, Any], like: str) -> str:
    """`data` as JSON, indented as the file `like` was (two spaces for a new file)."""
    found = re.search(r"\n([ \t]+)\S", like)
    indent: str | int = found.group(1) if found else 2
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def write(path: str, text: str) -> None:
    """Replace the file in one step (a crash leaves the old file or the new, never half)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
    fd, temp = tempfile.mkstemp(prefix=".settings-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
