"""Options and look-ups the subcommands share."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..base.errors import SkillrailError, UsageError, did_you_mean
from ..graph.model import Workflow, skill_folder
from ..ledger.listing import ids_like
from ..ledger.store import Ledger, Run
from ..step.discovery import LoadError, default_root, discover_workflows
from ..step.routing import skillrail_command


def add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", type=Path, default=None, metavar="DIR",
                        help="the skills folder (default: the nearest .claude/skills from "
                             "here up, else the installed skills)")


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def add_limit(parser: argparse.ArgumentParser, default: int, what: str) -> None:
    parser.add_argument("--limit", type=_limit, default=default, metavar="N|all",
                        help=f"show the newest N {what} (default: {default}), or all of them; "
                             "a last line says how many more there are")


def _limit(text: str) -> int | None:
    if text == "all":
        return None
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"--limit wants a whole number or 'all', not '{text}'")
    return int(text)


def counted(n: int, noun: str) -> str:
    """'1 run', '2 runs', 'no runs'."""
    return f"{n or 'no'} {noun}{'' if n == 1 else 's'}"


def find_workflow(name: str, root: Path | None) -> Workflow:
    """The workflow named `name`, or the only workflow of the skill named `name`."""
    root = root or default_root()
    found = discover_workflows(root)
    by_name = {wf.name: wf for wf in found.workflows}
    if name in by_name:
        return by_name[name]
    of_skill = [wf for wf in found.workflows if wf.skill == name]
    if len(of_skill) == 1:
        return of_skill[0]
    if of_skill:
        raise UsageError(f"skill '{name}' has several workflows",
                         fix="Name one: " + ", ".join(wf.name for wf in of_skill))
    broken = [e for e in found.errors
              if name in (Path(skill_folder(e.path)).name, Path(e.path).stem)]
    if broken:
        raise NotLoaded(name, broken[0])
    original = [p for p in found.originals
                if name in (Path(skill_folder(p)).name, Path(p).stem)]
    if original:
        raise UsageError(f"'{name}' is a script of the original shape ({original[0]}): it "
                         "prints the format_* documents itself and registers no workflow, so "
                         "there is no graph to work on", fix="It runs as it is. To describe, "
                         "draw or simulate it, write it as a Workflow of StepDefs (README, "
                         "'Writing a skill')")
    raise UsageError(f"no workflow or skill named '{name}'", f"under {root}",
                     fix="`skillrail list` shows them; --root DIR looks in another skills "
                         "folder."
                     + did_you_mean(name, list(by_name) + [wf.skill for wf in found.workflows]))


class NotLoaded(SkillrailError):
    """A skill that is there, but whose script does not load: its load error, and the
    registration's findings below it."""

    def __init__(self, name: str, error: LoadError) -> None:
        count = len(error.findings)
        reason = (f"its workflow has {count} problem{'s' * (count != 1)}, listed below"
                  if count else error.message)
        super().__init__(f"skill '{name}' is there, but its script does not load: {reason}",
                         error.path, "Fix it, then run the command again; `skillrail "
                         "validate` lists the problems of every skill")
        self.findings = error.findings

    def lines(self) -> list[str]:
        return super().lines() + [f"  {f}" for f in self.findings]


def loaded_workflows(root: Path | None) -> list[Workflow]:
    """Every workflow under `root`, for commands that need them all to load (docs, migration
    status, simulation); validate is the command that reports load failures one by one."""
    found = discover_workflows(root)
    if found.errors:
        raise SkillrailError(f"{len(found.errors)} skill script(s) failed to load",
                             fix="`skillrail validate` lists them; fix them first")
    return found.workflows


def existing_run(ledger: Ledger, run_id: str) -> Run:
    """The run `run_id`; refused, with the closest id, when the ledger has none."""
    found = ledger.run(run_id)
    if found is None:
        raise UsageError(f"no run '{run_id}' in the ledger {ledger.path}",
                         fix="`skillrail runs` lists the runs."
                             + did_you_mean(run_id, ids_like(ledger, run_id)))
    return found


def active_run(ledger: Ledger, run_id: str, doing: str) -> Run:
    """The run `run_id`, which must exist and be active for `doing` (e.g. 'paused')."""
    found = existing_run(ledger, run_id)
    if found.status != "active":
        raise SkillrailError(f"run {run_id} is already {found.status}",
                             fix=f"Only an active run can be {doing}, so there is nothing to "
                                 f"do: `{skillrail_command('trace', run_id)}` shows its "
                                 "history, and the skill's first step starts a new run")
    return found
