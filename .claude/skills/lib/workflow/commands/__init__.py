"""`skillrail`: the command people and CI use to see and check skills (not the agent's path).

Exit status: 0 fine, 1 findings or a runtime error, 2 bad usage. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from ..base.errors import UsageError, did_you_mean
from ..base.version import VERSION
from ..step.cli import guarded

#: Each command and the module of this package that holds it (its HELP, add_parser and run).
#: Only the module of the command run is imported: each imports what it needs at its top, and
#: `skillrail runs` does not pay for the report page, the doctor or the simulator. `skillrail
#: --help` imports them all, to list them.
_COMMANDS = {
    "init": "init", "doctor": "doctor", "list": "listing", "validate": "validate",
    "lint": "lint", "describe": "describe", "graph": "graph", "simulate": "simulate",
    "docs": "docs", "migration-status": "migration", "new": "new", "status": "status",
    "resume": "resume", "runs": "runlist", "abandon": "abandon", "trace": "trace",
    "show": "show", "stats": "stats", "report": "report", "gateway": "gateway",
    "pause": "pause", "hooks": "hooks", "install": "install", "uninstall": "uninstall",
    "history": "history", "trust": "trust", "approve": "approve", "ledger": "ledger",
}


def _module(command: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{_COMMANDS[command]}")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message, fix=f"Run `{self.prog} --help`")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of `skillrail`: with `command`, of that command alone (the others are not
    imported); without, of every command."""
    parser = _Parser(prog="skillrail", description="See and check skillrail skills.")
    parser.add_argument("--version", action="version", version=f"skillrail {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in _COMMANDS if command is None else [command]:
        module = _module(name)
        module.add_parser(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    status = 0

    def work() -> str:
        nonlocal status
        command = _check_command(args)
        ns = build_parser(command).parse_args(args)
        status, text = _module(ns.command).run(ns)
        return str(text)

    code = guarded(work, "skillrail")
    return code or status


def _check_command(args: list[str]) -> str | None:
    """The command `args` name (None when they name none: --help, --version); an unknown one
    is said in one line with the command it is closest to (argparse would list all of them,
    and suggest none)."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command is not None and command not in _COMMANDS:
        raise UsageError(f"unknown command '{command}'",
                         fix=did_you_mean(command, _COMMANDS).strip()
                         or "Run `skillrail --help` to see the commands")
    return command
