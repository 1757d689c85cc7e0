"""A hook's stdin payload (one JSON object, the fields of Claude Code's hook contract, which
Codex's follows), read defensively: anything malformed is the reason it cannot be read, and the
hook then lets the action through with that reason as its note."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from types import MappingProxyType

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from ..base.records import NamedTuple

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class Payload(NamedTuple):
    event: str
    session: str
    cwd: str
    agent: str | None = None  # set inside a sub-agent
    tool: str = ""
    tool_input: Mapping[str, Any] = _EMPTY
    tool_response: Any = None
    source: str = ""  # SessionStart: startup, resume, clear, compact
    stop_active: bool = False  # Stop: already continuing because of a Stop hook
    prompt: str = ""  # UserPromptSubmit, UserPromptExpansion


def parse(raw: bytes | str, event: str = "") -> Payload | str:
    """The payload of `raw`, or why it is none: not JSON, nested too deep to read, or not an
    object naming a session. `event` is the event the hook was installed for, used when the
    payload does not name one."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return "the payload is not JSON"
    except RecursionError:  # Claude Code never sends one: a payload made to break the hook
        return ("the payload nests too deep to read (more than about "
                f"{sys.getrecursionlimit()} levels of JSON arrays or objects)")
    if not isinstance(data, dict):
        return "the payload is not a JSON object"
    session = data.get("session_id") or os.environ.get("CLAUDE_CODE_SESSION_ID")
    name = data.get("hook_event_name") or event
    if not isinstance(session, str) or not session or not isinstance(name, str):
        return "the payload names no session (session_id) or event (hook_event_name)"
    tool_input = data.get("tool_input")
    agent = data.get("agent_id")
    return Payload(
        event=name, session=session, cwd=_text(data.get("cwd")) or os.getcwd(),
        agent=agent if isinstance(agent, str) and agent else None,
        tool=_text(data.get("tool_name")),
        tool_input=tool_input if isinstance(tool_input, dict) else _EMPTY,
        tool_response=data.get("tool_response"), source=_text(data.get("source")),
        stop_active=data.get("stop_hook_active") is True, prompt=_text(data.get("prompt")))


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


#: Codex's file-edit tool: its input's `command` is the patch, in Codex's own format.
PATCH_TOOL = "apply_patch"
#: (Compiled on first use, by re: most payloads are no patch.)
_PATCHED = r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$"


def patched_files(p: Payload) -> list[str] | None:
    """The files a Codex `apply_patch` call writes (added, updated, deleted or moved to), as
    its patch names them; None for any other tool call."""
    if p.tool != PATCH_TOOL:
        return None
    patch = p.tool_input.get("command") or p.tool_input.get("input")
    return re.findall(_PATCHED, patch, re.M) if isinstance(patch, str) else []
