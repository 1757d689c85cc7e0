"""skillrail's hooks for OpenAI's Codex CLI: a project's `.codex/hooks.json`, which Codex reads
beside the project's own config, and the user's trust of those hooks, which Codex keeps in the
user's `config.toml` (`$CODEX_HOME`, else `~/.codex`).

Codex's hook file has the shape of a Claude Code settings file's `hooks` (settings.merged does
the merge) and its events carry the same payloads, with three differences the hooks handle
where they read them: a shell command is the tool `Bash` and a file edit the tool
`apply_patch` (its input the patch text); a command's output comes back as one string; and no
variable names the session in the agent's shell, so a run is tied to its session by what the
hooks see of it (ledger/sessions.py, hooks/state.py).

Codex runs a hook only when two things hold, and skips it silently otherwise: the project is
trusted (the user's decision, made in Codex when it first opens the folder, or with `codex exec
--trust`), and the hook itself is, by a digest of its definition that the user's config records
under a key naming the file, the event and the hook's place in it. `skillrail hooks install
--client codex` is run by the user at their terminal, so it records that digest for each of
skillrail's hooks; a hook edited since (by the agent, say) no longer matches and Codex skips
it, which `skillrail doctor` reports.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any

from ..base.errors import SkillrailError
from ..base.paths import codex_home
from ..guard.claudesettings import ours

#: (event, matcher) of each hook in `.codex/hooks.json`: a Codex matcher of letters and `|`
#: matches tool names (or SessionStart's source) exactly, `*` every one.
EVENTS: tuple[tuple[str, str | None], ...] = (
    ("PreToolUse", "*"),
    ("PostToolUse", "Bash"),
    ("Stop", None),
    ("SessionStart", "compact|resume"),
    ("UserPromptSubmit", None),
)
#: The hook file, from the project's folder.
HOOKS_FILE = os.path.join(".codex", "hooks.json")
#: The events whose matcher is part of a hook's identity (Codex ignores it on the others).
_MATCHED = ("PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart")
#: Codex's default time a hook may take, in seconds, when the file names none.
_DEFAULT_TIMEOUT = 600


def config_file() -> str:
    return os.path.join(codex_home(), "config.toml")


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def trust_keys(path: str, data: dict[str, Any]) -> dict[str, str]:
    """Each of skillrail's hooks in the hook file `path` (holding `data`) as Codex's trust
    record names it, `<file>:<event>:<group>:<hook>`, with the digest Codex trusts it by."""
    found = {}
    real = os.path.abspath(path)
    for event, groups in (data.get("hooks") or {}).items():
        for g, group in enumerate(groups):
            for h, hook in enumerate(group.get("hooks") or []):
                if not ours(hook) or hook.get("type") != "command":
                    continue
                found[f"{real}:{_snake(event)}:{g}:{h}"] = _digest(event, group, hook)
    return found


def _digest(event: str, group: dict[str, Any], hook: dict[str, Any]) -> str:
    """The digest Codex keeps a hook's trust by: its definition as Codex normalises it (the
    event, its matcher where the event has one, the command, time-out and async flag)."""
    shown: dict[str, Any] = {"type": "command", "command": hook["command"],
                             "timeout": max(1, int(hook.get("timeout", _DEFAULT_TIMEOUT))),
                             "async": bool(hook.get("async", False))}
    if hook.get("statusMessage") is not None:
        shown["statusMessage"] = hook["statusMessage"]
    identity: dict[str, Any] = {"event_name": _snake(event), "hooks": [shown]}
    if group.get("matcher") is not None and event in _MATCHED:
        identity["matcher"] = group["matcher"]
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def untrusted(keys: dict[str, str]) -> list[str]:
    """The keys whose hooks the user's config does not trust as they are (missing or changed)."""
    recorded = _recorded()
    return [key for key, digest in keys.items() if recorded.get(key) != digest]


def stale(path: str, digests: set[str], keep: dict[str, str]) -> list[str]:
    """The trust records of the hook file `path` that hold one of skillrail's hook `digests`
    under a key not in `keep`: left from where our hooks sat before (a hook of the user's own
    added in front moves ours down)."""
    prefix = os.path.abspath(path) + ":"
    return [key for key, digest in _recorded().items()
            if key.startswith(prefix) and digest in digests and key not in keep]


def _recorded() -> dict[str, str]:
    import tomllib

    try:
        with open(config_file(), "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    state = (data.get("hooks") or {}).get("state") or {}
    return {str(k): str(v.get("trusted_hash")) for k, v in state.items() if isinstance(v, dict)}


def with_trust(text: str, drop: list[str], add: dict[str, str]) -> str:
    """The user's config.toml `text` without the trust records of `drop` and with one for each
    key of `add`; everything else as it was. SkillrailError, leaving the file alone, when the
    result would not be TOML that Codex reads (a record written in another form, say)."""
    import tomllib

    try:
        state = ((tomllib.loads(text).get("hooks") or {}).get("state") or {})
    except tomllib.TOMLDecodeError:
        state = {}
    add = {k: v for k, v in add.items()  # a record already right stays where it is
           if not (isinstance(state.get(k), dict) and state[k].get("trusted_hash") == v)}
    for key in [*drop, *add]:
        header = re.escape(f"[hooks.state.{json.dumps(key)}]")
        text = re.sub(rf"(?m)^{header}[ \t]*\n(?:(?!\[)[^\n]*\n?)*", "", text)
    if add and text and not text.endswith("\n"):
        text += "\n"
    text += "".join(f"\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(digest)}\n"
                    for key, digest in add.items())
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SkillrailError(
            f"cannot record the hooks' trust in {config_file()} ({exc})",
            fix="Trust skillrail's hooks in Codex instead (its /hooks command); the file was "
                "left untouched") from None
    return text



#: The table of Codex's config that lists, for `-s workspace-write`, the folders a command may
#: write besides the workspace and the temporary folders.
SANDBOX_TABLE = "sandbox_workspace_write"


def writable(text: str, folder: str, add: bool) -> str:
    """The user's config.toml `text` with `folder` among the sandbox's writable roots (or taken
    out of them): step scripts write the run ledger there, which Codex's sandbox otherwise
    keeps read-only. SkillrailError, leaving the file alone, where the roots are written in a
    form this edit does not take (an array over several lines)."""
    import tomllib

    try:
        roots = ((tomllib.loads(text).get(SANDBOX_TABLE) or {}).get("writable_roots"))
    except tomllib.TOMLDecodeError as exc:
        raise SkillrailError(f"cannot read {config_file()} ({exc})",
                             fix="Fix it by hand first (Codex cannot read it either); it was "
                                 "left untouched") from None
    roots = list(roots or [])
    if (folder in roots) == add:
        return text
    wanted = [*roots, folder] if add else [r for r in roots if r != folder]
    line = f"writable_roots = {json.dumps(wanted)}\n"
    header = re.search(rf"(?m)^\[{SANDBOX_TABLE}\][ \t]*(?:#[^\n]*)?\n", text)
    if header is None:
        if not add:
            return text
        out = text + ("" if not text or text.endswith("\n") else "\n")
        return out + f"\n[{SANDBOX_TABLE}]\n{line}"
    after = re.search(r"(?m)^\[", text[header.end():])
    end = header.end() + (after.start() if after else len(text) - header.end())
    section = text[header.end():end]
    key = re.search(r"(?m)^writable_roots[ \t]*=[ \t]*\[[^\]\n]*\][ \t]*(?:#[^\n]*)?\n?",
                    section)
    if key is None and roots:
        raise SkillrailError(f"cannot change the sandbox's writable_roots in {config_file()} "
                             "as written (over several lines)", fix=f"Add {json.dumps(folder)} "
                             f"to writable_roots under [{SANDBOX_TABLE}] by hand")
    if key is None:
        out = text[:header.end()] + line + text[header.end():]
    elif not wanted and not (section[:key.start()] + section[key.end():]).strip():
        before, rest = text[:header.start()].rstrip("\n"), text[end:]
        out = "\n\n".join(part for part in (before, rest) if part)
        out += "\n" if before and not rest else ""
    else:
        start = header.end() + key.start()
        out = text[:start] + line + text[header.end() + key.end():]
    tomllib.loads(out)  # what was written parses, or the edit is wrong: a bug, loudly
    return out
