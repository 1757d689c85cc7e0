"""`skillrail abandon RUN`: end an active run that will not be finished (its history stays)."""

from __future__ import annotations

import argparse

from ..errors import SkillrailError, UsageError
from ..ledger import Ledger

HELP = "mark an active run abandoned; its history stays in the ledger"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="the run id, e.g. pa-7f3a2c")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger, ledger.transaction():
        found = ledger.run(ns.run)
        if found is None:
            raise UsageError(f"no run '{ns.run}' in the ledger {ledger.path}",
                             fix="`skillrail runs` lists the runs")
        if found.status != "active":
            raise SkillrailError(f"run {ns.run} is already {found.status}",
                                 fix="Nothing to do; start a new run from the skill's entry step")
        ledger.set_status(ns.run, "abandoned", f"abandoned at {found.step}")
    return 0, f"run {ns.run} abandoned at step '{found.step}'\n"
