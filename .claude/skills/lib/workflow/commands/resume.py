"""`skillrail resume RUN`: reprint a run's current step, exactly as its script would, changing
nothing but a pause (`skillrail pause`), which it ends. What an agent runs after its context was
compacted. Its commands start with the interpreter the run was started with, as the run's own
steps print them."""

from __future__ import annotations

import argparse

from ..ledger.sessions import paused, set_paused
from ..ledger.store import Ledger
from ..step.invocation import FORMATS
from ..step.resume import reprint
from ..step.routing import speaking_for
from ..step.runs import run_python

HELP = "reprint a run's current step (after an agent lost its context)"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="the run id, e.g. pa-7f3a2c")
    parser.add_argument("--format", choices=FORMATS, default="xml", help="output rendering")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger:
        with speaking_for(run_python(ledger, ns.run)):
            text = reprint(ledger, ns.run, ns.format)
        run = ledger.run(ns.run)
        if run is not None and paused(ledger, run):
            with ledger.transaction():
                set_paused(ledger, run.id, False, "skillrail resume")
        return 0, text
