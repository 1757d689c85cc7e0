"""Claude Code's settings files, as skillrail reads them: which of them apply to a workspace,
and whether skillrail's hooks are installed in one. Our hook entries are told from anyone
else's by the path of their entry script."""

from __future__ import annotations

import os

#: Part of every hook command skillrail installs.
MARKER = "/skills/lib/workflow/hooks/entry.py"


def ours(hook: object) -> bool:
    """Whether a settings file's hook entry is one of skillrail's."""
    return isinstance(hook, dict) and MARKER in str(hook.get("command", "")).replace(os.sep, "/")


#: Claude Code settings files, relative to the workspace, that hooks may be installed in.
_PROJECT_SETTINGS = (os.path.join(".claude", "settings.json"),
                     os.path.join(".claude", "settings.local.json"))
_MANAGED_SETTINGS = "/etc/claude-code/managed-settings.json"


def hook_settings(workspace: str) -> str | None:
    """The settings file that installs skillrail's UserPromptSubmit hook for `workspace` (the
    project's, the user's, or the managed one), or None when none does."""
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"),
                                                                 ".claude")
    for path in [*(os.path.join(workspace, p) for p in _PROJECT_SETTINGS),
                 os.path.join(config, "settings.json"), _MANAGED_SETTINGS]:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            import json  # here: every step of a run asks, and most find no settings file

            data = json.loads(text)
            groups = data["hooks"]["UserPromptSubmit"]
            if any(ours(h) for g in groups for h in g.get("hooks", [])):
                return path
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return None
