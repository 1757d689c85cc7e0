"""`skillrail show RUN KEY`: one value of a run's memory, whole, exactly as the agent reported it
(`--set KEY=...`) and the ledger keeps it: the latest one, as the run's steps see it. Nothing
else is printed, not even a newline the value does not end with, so the output can be piped or
compared byte for byte; a step that shows only the head of a long value names this command.
"""

from __future__ import annotations

import argparse

from ..base.errors import UsageError, did_you_mean
from ..ledger.store import Ledger
from .common import existing_run

HELP = "print one value of a run's memory, whole and exactly as stored (nothing else)"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (f"{HELP}. KEY is the name given to --set KEY=...; the latest value "
                          "is printed, as the run's steps see it, with no newline added.")
    parser.add_argument("run", help="the run id, e.g. pa-7f3a2c")
    parser.add_argument("key", help="the value's name, e.g. PROBLEM")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger:
        found = existing_run(ledger, ns.run)
    if ns.key not in found.memory:
        keys = sorted(found.memory)
        raise UsageError(
            f"run {ns.run} has no value '{ns.key}'",
            fix=(f"Its values: {', '.join(keys)}." + did_you_mean(ns.key, keys)) if keys
            else "It has recorded no values yet")
    return 0, found.memory[ns.key]
