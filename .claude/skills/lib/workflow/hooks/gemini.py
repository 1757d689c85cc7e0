"""skillrail's hooks for Google's Gemini CLI: the project's `.gemini/settings.json`, and
Gemini's events, payloads and answers read as Claude Code's, which the hooks decide on.

Gemini names its events and tools its own way (BeforeTool, AfterTool, AfterAgent, BeforeAgent;
run_shell_command, write_file, replace), reports a command's output inside `llmContent`, and
takes a refusal as `{"decision": "deny", "reason": ...}`, ignoring Claude Code's
`hookSpecificOutput.permissionDecision`. Two of its ways matter for enforcement:

- AfterAgent's continuation (the Stop hook's reason, sent back to the model) comes through
  BeforeAgent as if it were a prompt: that is no turn of the user's, and is never recorded as
  one (the ask_user gate would take it for the user's answer);
- a hook command that exits with anything but 0 or 1 blocks the action, so every command ends
  `|| true`: a hook program gone from PATH lets the action through, as in the other clients.

No variable names the session in the agent's shell, so, as under Codex, a run is tied to its
session by what the hooks see of it (hooks/state.py).
"""

from __future__ import annotations

from typing import Any

#: (event, matcher) of each hook in `.gemini/settings.json`: a tool event's matcher is a regex
#: on the tool's name; SessionStart's, the source exactly.
EVENTS: tuple[tuple[str, str | None], ...] = (
    ("BeforeTool", ".*"),
    ("AfterTool", "run_shell_command"),
    ("AfterAgent", None),
    ("SessionStart", "resume"),
    ("BeforeAgent", None),
)
#: The settings file, from the project's folder.
SETTINGS_FILE = ".gemini/settings.json"
#: Milliseconds Gemini waits for a hook (its unit; a hook that times out lets the action on).
TIMEOUT_MS = 10_000
#: Each Gemini event as the hooks decide it (Claude Code's name).
_EVENTS = {"BeforeTool": "PreToolUse", "AfterTool": "PostToolUse", "AfterAgent": "Stop",
           "BeforeAgent": "UserPromptSubmit", "SessionStart": "SessionStart"}
#: Gemini's tools as Claude Code's, with the input key holding the path where it differs.
_TOOLS = {"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit",
          "read_file": "Read", "read_many_files": "Read", "glob": "Glob",
          "search_file_content": "Grep", "grep_search": "Grep", "list_directory": "LS",
          "web_fetch": "WebFetch", "google_web_search": "WebSearch"}
#: How the Stop hook's reason begins (hooks/decisions.stop): Gemini hands it back to
#: BeforeAgent as a prompt.
CONTINUATION = "skillrail: run "


def event_of(event: str) -> str:
    """The hooks' name (Claude Code's) for a Gemini event; '' for one they do not decide."""
    return _EVENTS.get(event, "")


def as_claude(data: dict[str, Any]) -> dict[str, Any]:
    """A Gemini payload with Claude Code's names: the event, the tool and its input's path,
    a command's output as `stdout`. A BeforeAgent prompt that is the Stop hook's own reason
    comes back as an event of its own, which nothing decides: it is no turn of the user's."""
    out = dict(data)
    event = event_of(str(data.get("hook_event_name", "")))
    if event:
        out["hook_event_name"] = event
    tool = data.get("tool_name")
    if isinstance(tool, str):
        out["tool_name"] = _TOOLS.get(tool, tool)
        given = data.get("tool_input")
        if isinstance(given, dict) and "file_path" not in given:
            path = given.get("absolute_path") or given.get("path") or given.get("dir_path")
            if isinstance(path, str) and out["tool_name"] in ("Write", "Edit", "Read"):
                out["tool_input"] = {**given, "file_path": path}
    response = data.get("tool_response")
    if isinstance(response, dict) and isinstance(response.get("llmContent"), str):
        out["tool_response"] = {"stdout": response["llmContent"]}
    prompt = data.get("prompt")
    if event == "UserPromptSubmit" and isinstance(prompt, str) and \
            prompt.lstrip().startswith(CONTINUATION):
        out["hook_event_name"] = "Continuation"  # an event no hook decides
    return out


def answer(out: dict[str, Any] | None) -> dict[str, Any] | None:
    """The hooks' answer (Claude Code's form) as Gemini takes it: a PreToolUse refusal as
    `decision: deny` with its reason; the rest (a Stop block, additional context, a message
    for the user) Gemini reads as it is."""
    if not out:
        return out
    specific = out.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") == "deny":
        return {"decision": "deny", "reason": specific.get("permissionDecisionReason", "")}
    return out
