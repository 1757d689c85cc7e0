"""`skillrail approve RUN [SCOPE]`: answer a run's questions before they are put, for a run you
will not be there for (guard/standing.py). SCOPE is a step's id, a kind of question, or `all`
(the default); only the questions the skill lets be approved in advance are covered, and an
approval ends with the run, or at `--until`. `--if` carries your condition: the agent must say
how it holds before the approval answers. `--list` shows the approvals that can answer the
run's questions.

Where skillrail's hooks make the run's questions binding, run it yourself at your terminal: the
hooks refuse it to the agent, and it refuses to run without a terminal. Elsewhere nothing can
tell who ran it, and the approval is recorded as advisory."""

from __future__ import annotations

import argparse
import shlex
import time

from ..base.errors import UsageError
from ..guard.askgate import interactive, verdict
from ..guard.evidence import Evidence, read_only
from ..guard.standing import approval, until_time
from ..ledger.store import Ledger, Run
from ..ledger.workspace import folder_of
from ..tools.history import run_workflow
from .common import existing_run

HELP = "approve a run's questions in advance, for a run you will not be there for"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Answer a run's questions before they are put, for a run you will not be there for. "
        "Only the questions the skill lets be approved in advance are covered; the approval "
        "ends with the run, or at --until. Where skillrail's hooks are installed, run it "
        "yourself at your terminal (the agent cannot); elsewhere it is recorded as advisory. "
        "In a prompt to the agent, `--approve SCOPE [--if \"...\"] [--until TIME]` does the "
        "same for the runs it starts.")
    parser.add_argument("run", help="the run id, e.g. pl-7f3a2c")
    parser.add_argument("scope", nargs="?", default="all",
                        help="which questions: a step's id, a kind of question, or 'all' "
                             "(default)")
    parser.add_argument("--if", dest="condition", default="", metavar="CONDITION",
                        help="your condition, in your words; the agent must say how it holds")
    parser.add_argument("--until", metavar="TIME",
                        help="when the approval ends: HH:MM, 'YYYY-MM-DD HH:MM', or a span "
                             "(90m, 2h, 1d); default: when the run ends")
    parser.add_argument("--list", action="store_true",
                        help="list the approvals that can answer the run's questions")


def run(ns: argparse.Namespace) -> tuple[int, str]:
    with Ledger() as ledger:
        found = existing_run(ledger, ns.run)
    if ns.list:
        return 0, _listing(found)
    if found.status != "active":
        raise UsageError(f"run {found.id} is {found.status}: it asks nothing more",
                         fix="Approve a run that is still going (`skillrail runs`)")
    questions = _check_scope(found, ns.scope)
    binding = verdict(folder_of(found.workspace, found.folder), found).binding
    if binding and not interactive():
        raise UsageError("skillrail's hooks make this run's questions binding, and an approval "
                         "in advance there is the user's alone: this command runs only at a "
                         "terminal", fix="Run it yourself in your terminal, or type --approve "
                         f"{ns.scope} in your prompt to the agent")
    try:
        until = until_time(ns.until) if ns.until else None
    except ValueError as exc:
        raise UsageError(str(exc), fix="Give --until as HH:MM, 'YYYY-MM-DD HH:MM' or 2h"
                         ) from None
    words = _own_words(ns)
    given = approval(ns.scope, ns.condition, until, words,
                     "terminal" if binding else "advisory", run=found.id)
    with Evidence() as store:
        store.approve(given)
    ends = (f"until {time.strftime('%Y-%m-%d %H:%M', time.localtime(until))}" if until
            else "until the run ends")
    lines = [f"run {found.id}: {questions} approved in advance, {ends}"
             + (f", if {ns.condition}" if ns.condition else "") + "."]
    if not binding:
        lines.append("Recorded as advisory: no skillrail hook is installed for this run's "
                     "project, so nothing can tell who gave it (`skillrail hooks install`).")
    return 0, "\n".join(lines) + "\n"


def _check_scope(found: Run, scope: str) -> str:
    """What `scope` covers in the run's workflow, as words; refused when it names nothing the
    skill lets be approved in advance."""
    workflow, _ = run_workflow(found)
    if workflow is None:
        return f"the questions '{scope}' names"  # the script cannot load: take it as given
    asks = [(s.id, s.ask_user) for s in workflow.steps if s.ask_user is not None]
    approvable = [(step, ask.kind) for step, ask in asks if ask.in_advance is not None]
    covered = [step for step, kind in approvable if scope in ("all", step, kind)]
    if covered:
        return "question" + "s" * (len(covered) > 1) + " " + ", ".join(
            f"'{c}'" for c in covered)
    names = sorted({name for pair in approvable for name in pair if name})
    always = [step for step, ask in asks if ask.in_advance is None and scope == step]
    why = (f"step '{scope}' is always asked: the skill does not let it be approved in advance"
           if always else f"'{scope}' names no question of skill '{workflow.skill}' that can "
           "be approved in advance")
    raise UsageError(why, fix=("Approve one of: all, " + ", ".join(names)) if names else
                     "This skill asks every question of the user")


def _own_words(ns: argparse.Namespace) -> str:
    words = ["skillrail", "approve", ns.run, ns.scope]
    words += ["--if", ns.condition] if ns.condition else []
    words += ["--until", ns.until] if ns.until else []
    return shlex.join(words)


def _listing(found: Run) -> str:
    store = read_only()
    approvals = []
    if store is not None:
        with store:
            first = store.seen_run(found.id)
            sessions = {s for s in (found.session, first[0] if first else None) if s}
            approvals = store.approvals(sessions, [found.id])
    if not approvals:
        return f"run {found.id}: no approval given in advance\n"
    lines = [f"run {found.id}: approvals given in advance, newest first"]
    for a in approvals:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(a.at))
        where = f"in the prompt of session {a.session}" if a.session else "with skillrail approve"
        lines.append(f"  {when}  {a.scope}  {where}: {a.quoted()}"
                     + (f", if {a.condition}" if a.condition else ""))
    return "\n".join(lines) + "\n"
