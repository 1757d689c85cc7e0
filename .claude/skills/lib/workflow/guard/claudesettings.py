"""Claude Code's settings files, as skillrail reads them: which of them apply to a workspace,
and whether skillrail's hooks are installed in one. Our hook entries are told from anyone
else's by what they run: the `skillrail-hook` program, or the path of its entry script."""

from __future__ import annotations

import os

#: Part of a hook command that runs skillrail's entry script by its path.
MARKER = "/skills/lib/workflow/hooks/entry.py"
#: The program pip installs with skillrail (pyproject's project.scripts) that runs the hooks
#: from the user's own installation.
HOOK_PROGRAM = "skillrail-hook"


def ours(hook: object) -> bool:
    """Whether a settings file's hook entry is one of skillrail's."""
    if not isinstance(hook, dict):
        return False
    command = str(hook.get("command", "")).replace(os.sep, "/")
    first = command.strip().split(" ", 1)[0].strip("'\"")
    return MARKER in command or first.rsplit("/", 1)[-1] == HOOK_PROGRAM


#: Claude Code settings files, relative to the workspace, that hooks may be installed in.
_PROJECT_SETTINGS = (os.path.join(".claude", "settings.json"),
                     os.path.join(".claude", "settings.local.json"),
                     os.path.join(".codex", "hooks.json"),  # Codex's, of the same shape
                     os.path.join(".gemini", "settings.json"))  # Gemini CLI's: BeforeAgent
_MANAGED_SETTINGS = "/etc/claude-code/managed-settings.json"


def hook_settings(workspace: str) -> str | None:
    """The settings file that installs skillrail's UserPromptSubmit hook for `workspace` (the
    project's, Claude Code's or Codex's, the user's, or the managed one), or None when none
    does."""
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"),
                                                                 ".claude")
    for path in [*(os.path.join(workspace, p) for p in _PROJECT_SETTINGS),
                 os.path.join(config, "settings.json"), _MANAGED_SETTINGS]:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            import json  # here: every step of a run asks, and most find no settings file

            data = json.loads(text)
            hooks = data["hooks"]
            groups = hooks.get("UserPromptSubmit") or hooks["BeforeAgent"]
            if any(ours(h) for g in groups for h in g.get("hooks", [])):
                return path
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return None
