"""`skillrail ledger copy --to URL [--from PATH]`: copy this machine's run history (its SQLite
ledger) into a team's PostgreSQL ledger, run by run; copying again copies only what is new, and
a copy cut short goes on where it stopped (ledger/copy.py has the rule)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..base.paths import ledger_path
from ..ledger.copy import copy_ledger
from .common import add_json

HELP = "copy this machine's run history into a team's PostgreSQL ledger (ledger copy --to URL)"

COPY_HELP = """\
Copy the runs of a SQLite run ledger (default: this machine's, the file a skill uses when
SKILLRAIL_LEDGER is not set) into the PostgreSQL ledger at URL, whose schema is made first
when the database is empty. The source is only read.

Idempotent: a run is known by its id (the target's run of that id with the same skill,
workflow and start time), so copying again copies nothing it copied before and says
"0 new runs". A run the target holds as here is skipped; one it holds behind (the run went on
here after the last copy) is finished: what it lacks is added. One that went on in the target
since is left as it is, and named. Ids are random, not unique across machines: a run whose id
the target gives to another run is copied under a new id, and found there again next time.

Resumable: each run is copied in a transaction of its own, so a copy stopped, killed or cut
off from its server leaves whole runs only; run the same command again to copy the rest.

Everything a run owns comes along (moves, values, loop counts, events, sub-agents, learned
cases, params, where and by whom it started), and `skillrail stats` on the target counts each
run once. Not copied: the evidence store (the user's answers and trusted skills), which stays on
this machine."""


def add_parser(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    copy = sub.add_parser("copy", help="copy this machine's runs into a PostgreSQL ledger",
                          description=COPY_HELP,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    copy.add_argument("--to", required=True, metavar="URL",
                      help="the team's ledger: postgresql://USER@HOST/DB (the password in "
                           "~/.pgpass or PGPASSWORD)")
    copy.add_argument("--from", dest="source", metavar="PATH",
                      help="the SQLite ledger to copy (default: this machine's)")
    copy.add_argument("--dry-run", action="store_true",
                      help="say what would be copied, and write nothing")
    add_json(copy)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    report = copy_ledger(ns.source or ledger_path(), ns.to, ns.dry_run)
    if ns.json:
        return 0, json.dumps(_data(report._asdict()), indent=2) + "\n"
    return 0, summary(report._asdict()) + "\n"


def _data(report: dict[str, Any]) -> dict[str, Any]:
    counts = {"new_runs": len(report["copied"]), "finished_runs": len(report["finished"]),
              "skipped_runs": len(report["skipped"]), "differing_runs": len(report["differing"])}
    return {**counts, **report}


def summary(report: dict[str, Any]) -> str:
    """One line: what was copied, finished and skipped, and anything left as it was."""
    new, done, skipped = (len(report[k]) for k in ("copied", "finished", "skipped"))
    if report["dry_run"]:
        line = (f"would copy {_runs(new, 'new ')}, finish {done}, skip {skipped} (already "
                f"there)")
    else:
        line = f"copied {_runs(new, 'new ')}, finished {done}, skipped {skipped} (already there)"
    line += f": {report['source']} -> {report['target']}"
    if report["renamed"]:
        line += (f"; {_runs(len(report['renamed']))} under a new id, the target giving theirs "
                 f"to other runs ({_ids(report['renamed'])})")
    if report["differing"]:
        line += (f"; {_runs(len(report['differing']))} left as the target has them, having gone "
                 f"on there ({', '.join(report['differing'])})")
    if report["migrated_from"]:
        line += f"; read from schema {report['migrated_from']} through a migrated temporary copy"
    return line + ("; dry run: nothing written" if report["dry_run"] else "")


def _runs(n: int, kind: str = "") -> str:
    return f"{n} {kind}run{'' if n == 1 else 's'}"


def _ids(renamed: dict[str, str | None]) -> str:
    return ", ".join(f"{old} -> {new or 'a new id'}" for old, new in renamed.items())
