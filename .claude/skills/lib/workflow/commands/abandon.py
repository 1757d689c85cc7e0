"""`skillrail abandon RUN`: end an active run that will not be finished (its history stays)."""

from __future__ import annotations

import argparse

from ..ledger.store import Ledger
from .common import active_run

HELP = "mark an active run abandoned; its history stays in the ledger"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="the run id, e.g. pa-7f3a2c")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger, ledger.transaction():
        found = active_run(ledger, ns.run, "abandoned")
        ledger.set_status(ns.run, "abandoned", f"abandoned at {found.step}")
    return 0, f"run {ns.run} abandoned at step '{found.step}'\n"
