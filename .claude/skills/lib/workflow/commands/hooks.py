"""`skillrail hooks install|uninstall`: merge skillrail's Claude Code hooks into a settings file,
keeping every other hook; `--dry-run` shows the diff. In a project whose `.claude/skills` holds
the framework (`skillrail init`), the hooks go to the shared `.claude/settings.json` in a form
that works for every teammate (`python3 "$CLAUDE_PROJECT_DIR/..."`); otherwise, or with
`--local`, to `.claude/settings.local.json` with this machine's paths. `install --sandbox` also
turns on Claude Code's Bash sandbox with the run ledger's folder writable and the evidence
store's folder not: the agent's Bash can then read the evidence the ask_user gate trusts, never
write it. `uninstall` takes out the hooks and those two paths."""

from __future__ import annotations

import argparse
import difflib
import os

from ..hooks import settings

HELP = "install (or uninstall) the Claude Code hooks that enforce runs"


def add_parser(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for name, text in (("install", "merge the hooks into the settings file"),
                       ("uninstall", "remove skillrail's hooks from the settings file")):
        sub = actions.add_parser(name, help=text, description=text)
        sub.add_argument("--settings", default=None, metavar="PATH",
                         help="the settings file (default: the project's .claude/settings.json, "
                              "or .claude/settings.local.json; see --local)")
        sub.add_argument("--local", action="store_true",
                         help="this machine only: .claude/settings.local.json (not shared in "
                              "git), with this interpreter's and this framework's paths")
        sub.add_argument("--dry-run", action="store_true",
                         help="print the change as a unified diff; write nothing")
        if name == "install":
            sub.add_argument("--sandbox", action="store_true",
                             help="also turn on Claude Code's Bash sandbox, so the agent "
                                  "cannot write the evidence the ask_user gate trusts")


def target(ns: argparse.Namespace) -> tuple[str, bool, str]:
    """(the settings file, whether the hook commands are portable, a note on the choice)."""
    from ..base.paths import project_root

    # A settings file given is a project's `.claude/<file>`: that project's framework counts.
    root = (os.path.dirname(os.path.dirname(os.path.abspath(ns.settings)))
            if ns.settings is not None else project_root())
    portable = not ns.local and os.path.isfile(os.path.join(root, settings.PROJECT_ENTRY))
    shared = os.path.join(root, ".claude", "settings.json")
    local = os.path.join(root, ".claude", "settings.local.json")
    if ns.settings is not None:
        return ns.settings, portable, ""
    if portable:
        return shared, True, ""
    note = ("" if ns.local else "note: this project's .claude/skills does not hold skillrail's "
            "framework (`skillrail init` copies it), so the hooks name this machine's paths and "
            f"go to {local}, which is not shared\n")
    return local, False, note


def run(ns: argparse.Namespace) -> tuple[int, str]:
    install = ns.action == "install"
    path, portable, note = target(ns)
    old_text, data = settings.read(path)
    new = settings.merged(data, install, portable)
    if getattr(ns, "sandbox", False) or not install:
        new = settings.with_sandbox(new, install)
    if new == data:
        state = "installed" if install else "not installed"
        return 0, f"skillrail's hooks are already {state} in {path}: nothing to change\n"
    new_text = settings.render(new, old_text)
    if ns.dry_run:
        diff = difflib.unified_diff(old_text.splitlines(keepends=True),
                                    new_text.splitlines(keepends=True),
                                    fromfile=f"{path} (now)", tofile=f"{path} (after)")
        return 0, "".join(diff)
    settings.write(path, new_text)
    if not install:
        return 0, (f"removed skillrail's hooks (and its sandbox paths) from {path}; "
                   "sandbox.enabled is left as it is\n")
    events = ", ".join(event for event, _ in settings.EVENTS)
    text = note + (f"installed skillrail's hooks in {path} ({events}); Claude Code reads them "
                   "when a session starts (or after a review in /hooks)\n")
    if ns.sandbox:
        ledger, evidence = settings.sandbox_paths()
        text += (f"turned on Claude Code's Bash sandbox: {ledger} writable (the run ledger), "
                 f"{evidence} not (the evidence store), no unsandboxed commands\n"
                 + _sandbox_needs())
    return 0, text


def _sandbox_needs() -> str:
    """What Claude Code's sandbox needs on Linux, when it is missing here."""
    import shutil
    import sys

    if not sys.platform.startswith("linux"):
        return ""
    missing = [p for p in ("bwrap", "socat") if shutil.which(p) is None]
    if not missing:
        return ""
    return (f"note: Claude Code's sandbox needs {' and '.join(missing)} on Linux (Debian and "
            "Ubuntu: apt-get install bubblewrap socat); without them it warns and runs "
            "commands unsandboxed\n")
