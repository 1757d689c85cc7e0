"""`skillrail history SKILL [--export [FILE]]`: what skill-runner learned about a skill: its
success cases, failure cases and the user's feedback, newest first."""

from __future__ import annotations

import argparse

from ..ledger.learned import cases, export_markdown, summary
from ..ledger.store import Ledger

HELP = "what runs of a skill taught (skill-runner's learned cases), or --export them as markdown"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skill", help="the skill's name, as skill-runner records it")
    parser.add_argument("--export", nargs="?", const="-", metavar="FILE",
                        help="write a markdown section instead (to FILE, or stdout)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many cases")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger:
        found = cases(ledger, ns.skill, ns.limit)
    if ns.export is not None:
        text = export_markdown(ns.skill, found)
        if ns.export == "-":
            return 0, text
        with open(ns.export, "w", encoding="utf-8") as handle:
            handle.write(text)
        return 0, f"wrote {len(found)} case(s) of {ns.skill} to {ns.export}\n"
    if not found:
        return 0, f"no cases recorded for '{ns.skill}' (skill-runner records them at the end " \
                  "of a run)\n"
    return 0, summary(found, max_chars=10**9) + "\n"
