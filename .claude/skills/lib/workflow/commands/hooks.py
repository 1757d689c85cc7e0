"""`skillrail hooks install|uninstall`: merge skillrail's Claude Code hooks into a settings file
(default `./.claude/settings.json`), keeping every other hook; `--dry-run` shows the diff."""

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
        sub.add_argument("--settings", default=os.path.join(".claude", "settings.json"),
                         metavar="PATH", help="the settings file (default: %(default)s)")
        sub.add_argument("--dry-run", action="store_true",
                         help="print the change as a unified diff; write nothing")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    path = ns.settings
    install = ns.action == "install"
    old_text, data = settings.read(path)
    new = settings.merged(data, install)
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
        return 0, f"removed skillrail's hooks from {path}\n"
    events = ", ".join(event for event, _ in settings.EVENTS)
    return 0, (f"installed skillrail's hooks in {path} ({events}); Claude Code reads them when "
               "a session starts (or after a review in /hooks)\n")
