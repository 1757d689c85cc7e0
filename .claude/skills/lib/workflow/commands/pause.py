"""`skillrail pause RUN`: let an active run rest; the hooks leave its session alone until the run's
next step command or `skillrail resume RUN` (the ask_user gate still holds)."""

from __future__ import annotations

import argparse

from ..ledger.sessions import paused, set_paused
from ..ledger.store import Ledger
from .common import active_run

HELP = "pause an active run: the hooks stop enforcing it until it goes on"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="the run id, e.g. pa-7f3a2c")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger, ledger.transaction():
        found = active_run(ledger, ns.run, "paused")
        if not paused(ledger, found):
            set_paused(ledger, ns.run, True, f"paused at {found.step}")
    return 0, (f"run {ns.run} paused at step '{found.step}': the hooks leave it alone until its "
               f"next step command or `skillrail resume {ns.run}`\n")
