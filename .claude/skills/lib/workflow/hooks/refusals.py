"""What PreToolUse refuses in every session, whatever step a run is at: the cheap ways around the
ask_user gate and trust. With Claude Code's sandbox (`skillrail hooks install --sandbox`) the
evidence store is also out of the Bash tool's reach; these refusals close the routes that need
no more than one command line, with or without it.

- feeding skillrail's hook entry point a made-up payload (a forged user turn);
- opening the run ledger or the evidence store by hand (`sqlite3 ... UPDATE turns`);
- `skillrail trust`, `skillrail hooks` and `skillrail approve`: the user's decisions, made in
  their own terminal (an approval in advance is typed in the user's prompt, or given there);
- changing Codex's hook file or the user's Codex config (where Codex keeps which hooks the user
  trusts), by a patch, a file tool or a command that names them;
- a skillrail step script run with an environment prefix (`PYTHONPATH=... python3 step.py`,
  `env ...`), beside a command that changes the environment (`export`, `unset`, `source`), or
  written so that its words cannot be read (`$VAR`, backticks): it must run as printed.
"""

from __future__ import annotations

import os
import re

from .payload import Payload, patched_files

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from ..guard.shell import Simple

#: File tools that write: their path is checked against skillrail's state folder.
_WRITERS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
#: Shell builtins that change what a later command of the line inherits or runs.
_ENVIRONMENT = {"export", "unset", "declare", "typeset", "readonly", "set", "source", ".",
                "eval", "exec", "alias", "enable", "builtin", "command", "env", "exports"}
# Patterns, compiled on first use (re caches them), and only for a command holding the words
# they need: most commands hold none, and compiling one costs about a tenth of a millisecond.
_STEP_SCRIPT = r"[/\\]skills[/\\][^/\\\s]+[/\\]scripts[/\\]\S*\.py\b"
_SKILLRAIL = r"(?:\bskillrail|skills\.lib\.workflow\.commands)"
_USERS_ONLY = _SKILLRAIL + r"\s+(?:[^;&|\n]*\s)?(trust|hooks|approve)(?=\s|$)"


def refusal(p: Payload, command: str | None, simples: list[Simple] | None) -> str | None:
    """Why this tool call may not run in any session, or None."""
    state = _state_folder()
    patched = patched_files(p)
    if p.tool in _WRITERS or patched is not None:
        paths = patched if patched is not None else [
            str(p.tool_input[k]) for k in ("file_path", "notebook_path") if k in p.tool_input]
        for path in paths:
            if path and _inside(os.path.join(p.cwd, path), state):
                return f"{p.tool} on {path} writes skillrail's run ledger or its evidence store"
            if path and _codex_settings(os.path.join(p.cwd, path)):
                return f"{p.tool} on {path} {_CODEX_WHY}"
            if path and _project_settings(path):
                return f"{p.tool} on {path} {_SETTINGS_WHY}"
        return None
    if p.tool != "Bash" or command is None:
        return None
    return (_feeds_hooks(command) or _opens_state(command, state) or _users_only(command)
            or _users_only_words(simples) or _step_script_misused(command, simples)
            or _names_codex_settings(command, p.cwd) or _writes_project_settings(simples))


#: The project's files that decide what the hooks and the gateway allow: Claude Code's sandbox
#: keeps them read-only (hooks install --sandbox); under another client, this refusal does.
_PROJECT_SETTINGS = (".claude/skillrail.yaml", ".claude/settings.json",
                     ".claude/settings.local.json", ".gemini/settings.json")
_SETTINGS_WHY = ("changes what skillrail's hooks or its command policy allow (.claude/"
                 "skillrail.yaml, .claude/settings*.json, .gemini/settings.json): the user's to "
                 "change")
#: Programs that only read the files they name.
_READERS = {"cat", "head", "tail", "less", "more", "grep", "rg", "wc", "diff", "ls", "stat",
            "file", "jq", "git"}


def _project_settings(path: str) -> bool:
    return path.replace(os.sep, "/").endswith(_PROJECT_SETTINGS)


def _writes_project_settings(simples: list[Simple] | None) -> str | None:
    """A command that names one of the project's settings files and may write it: a program
    that is no plain reader, or a redirection into it."""
    from ..guard.shell import program

    for simple in simples or ():
        words = program(simple)
        named = [w for w in simple.words[1:] if _project_settings(w)]
        into = [t for op, t in simple.redirects if ">" in op and _project_settings(t)]
        reader = bool(words) and os.path.basename(words[0]) in _READERS
        if into or (named and not reader):
            return f"it {_SETTINGS_WHY.replace('changes', 'may change', 1)}"
    return None


_CODEX_WHY = ("changes Codex's hooks or the user's trust of them (.codex/hooks.json, "
              "config.toml): the user's to change, at their terminal")


def _codex_settings(path: str) -> bool:
    """Whether `path` is a Codex hook file or the user's Codex config (which records the
    trust of hooks): a hook changed since it was trusted is skipped by Codex."""
    from ..base.paths import codex_home

    real = os.path.realpath(path)
    return (real.endswith(os.sep + os.path.join(".codex", "hooks.json"))
            or _inside(real, codex_home()))


def _names_codex_settings(command: str, cwd: str) -> str | None:
    from ..base.paths import codex_home

    home = codex_home()
    if ".codex/hooks.json" in command or home in command or os.path.realpath(home) in command:
        return f"it names a file that {_CODEX_WHY}"
    return None


def _feeds_hooks(command: str) -> str | None:
    if any(name in command for name in
           ("hooks/entry.py", "hooks\\entry.py", "skills.lib.workflow.hooks")):
        return ("it runs skillrail's hook entry point: only the agent's client (Claude Code, "
                "Codex) runs hooks, with the real events of this session")
    return None


def _opens_state(command: str, state: str) -> str | None:
    home = os.path.expanduser("~")
    spellings = {state, os.path.realpath(state)}
    spellings |= {s.replace(home, h, 1) for s in set(spellings) if s.startswith(home + os.sep)
                  for h in ("~", "$HOME", "${HOME}")}
    if "runs.sqlite3" in command or "evidence.sqlite3" in command or any(
            s in command for s in spellings):
        return ("it opens skillrail's run ledger or its evidence store by hand; `skillrail "
                "status`, `skillrail runs` and `skillrail trace RUN` show what they hold")
    return None


def _users_only(command: str) -> str | None:
    found = re.search(_USERS_ONLY, command) if "skillrail" in command or \
        "skills.lib.workflow.commands" in command else None
    if found and found.group(1) == "approve":
        return ("`skillrail approve` is the user's to run: with skillrail's hooks installed, an "
                "approval in advance counts only as the user gives it, typed in their prompt "
                "(--approve ..., recorded by the hooks already if they did) or at their "
                "terminal. Go on with the run; a question nobody approved is put to the user")
    if found:
        return (f"`skillrail {found.group(1)}` is the user's decision: they run it in their own "
                "terminal; tell them what it would do and why")
    return None


def _users_only_words(simples: list[Simple] | None) -> str | None:
    """The same, read off the words the shell runs: quotes removed (`skill''rail trust`), the
    command module named any way Python takes it."""
    from ..guard.shell import program

    for simple in simples or ():
        words = program(simple)
        name = os.path.basename(words[0]) if words else ""
        rest = [w for w in words[1:] if not w.startswith("-")]
        if name == "skillrail" and rest[:1] in (["trust"], ["hooks"], ["approve"]):
            return _users_only(f"skillrail {rest[0]}")
        module = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "-m"), "")
        if module.startswith(("skills.lib.workflow.commands", "skills.lib.workflow.hooks")) \
                and any(w in ("trust", "hooks") for w in words):
            return _users_only(f"skillrail {'trust' if 'trust' in words else 'hooks'}")
    return None


def _step_script_misused(command: str, simples: list[Simple] | None) -> str | None:
    from ..guard.shell import program

    if "scripts" not in command or not re.search(_STEP_SCRIPT, command):
        return None
    how = ("Run the step command exactly as printed: no VAR=value or env in front, nothing "
           "that changes the environment on the same line, no $VAR or backticks")
    if simples is None:
        return f"it runs a skill's step script in a form that cannot be read. {how}"
    for simple in simples:
        words = program(simple)
        prefixed = words != simple.words
        if prefixed and any(re.search(_STEP_SCRIPT, w) for w in simple.words):
            return f"it runs a skill's step script with an environment prefix. {how}"
        if words and os.path.basename(words[0]) in _ENVIRONMENT:
            return f"it changes the environment on the line that runs a step script. {how}"
    return None


def _state_folder() -> str:
    from ..base.paths import state_dir

    return state_dir()


def _inside(path: str, folder: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real == base or real.startswith(base + os.sep)
