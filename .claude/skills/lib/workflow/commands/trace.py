"""`skillrail trace RUN`: one run's history from the ledger, at a chosen level of detail or at the
level of a role (`--role`, guard/visibility.py), with secrets redacted and what names a tool the
project marks sensitive hidden at every level (see `history`, `redact` and `visibility`);
`--since ID` starts after an entry, `--follow` goes on as the run does (tools/follow.py)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..base.errors import one_line
from ..base.paths import project_root
from ..guard.askgate import tampered
from ..guard.visibility import load_visibility
from ..ledger.store import Ledger
from ..ledger.workspace import folder_of
from ..tools.follow import Out, View, follow
from ..tools.history import LEVELS, event_text, run_workflow, started_by, trace
from .common import add_json, counted, existing_run

HELP = "show one run's history: every step, value and event (full), milestones, or the outcome"


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        f"{HELP}. Each entry has an id that never changes: e<N> an event (the ledger numbers "
        "its events in the order they are recorded), t<N> the run's move N, t<N>.<KEY> a value "
        "move N recorded. Entries are in time order.")
    parser.add_argument("run", help="the run id, e.g. pa-7f3a2c")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--level", choices=LEVELS, default="full",
                       help="full: everything; summary: milestones; hidden: the outcome only "
                            "(default: full)")
    shown.add_argument("--role", help="the level of this role, from the visibility.roles of "
                                      ".claude/skillrail.yaml where the run started (default "
                                      "roles: end_user: summary, developer: full)")
    parser.add_argument("--since", metavar="ID",
                        help="only the entries after the one with this id (e.g. t12 or e345, "
                             "the last one a follower printed before it stopped)")
    parser.add_argument("--follow", "-f", action="store_true",
                        help="go on printing each entry as the run records it, until the run "
                             "ends (completed, partial or abandoned), Ctrl-C (exit 0) or SIGTERM "
                             "(exit 143); on a PostgreSQL ledger a lost connection is reopened "
                             "and the follower goes on where it was. With --json: one JSON "
                             "object a line (the run, then each entry, then its outcome)")
    add_json(parser)


def run(ns: argparse.Namespace) -> tuple[int, str]:
    try:
        with Ledger() as ledger:
            found = existing_run(ledger, ns.run)
            seen = load_visibility(folder_of(found.workspace, found.folder) or project_root())
            level = ns.level if ns.role is None else seen.level(ns.role)
            workflow, note = (None, "") if level == "hidden" else run_workflow(found)
            if ns.follow:
                with _stopped_by_sigterm():
                    follow(ledger, found, View(level, workflow, note, seen.hides()),
                           ns.since, _lines_out(ns.json))
                return 0, ""
            doc = trace(ledger, found, level, workflow, note, seen.hides(), ns.since)
            if (why := _tampered(found.id)) is not None:
                doc["tampered"] = why
    except (KeyboardInterrupt, _ReaderGone):
        if not ns.follow:
            raise
        return 0, ""  # Ctrl-C is how a follower is stopped
    except _Terminated:
        # 128 + SIGTERM, as a shell says of a process SIGTERM ended: whatever sent it (a
        # supervisor, `timeout`, a script) learns it stopped the follower, not the run's end.
        # Ctrl-C stays 0: it is how the person watching stops their own view.
        return 128 + signal.SIGTERM, ""
    if ns.json:
        return 0, json.dumps(doc, indent=2) + "\n"
    return 0, "\n".join(text_lines(doc)) + "\n"


def _tampered(run_id: str) -> str | None:
    """Why skillrail's hooks found the run tampered with (the evidence store), or None."""
    return tampered(run_id)


class _ReaderGone(Exception):
    """Whoever read a follower's output stopped reading (a closed pipe)."""


class _Terminated(BaseException):
    """SIGTERM came: a BaseException, as KeyboardInterrupt is, so that no `except Exception`
    on the way out takes it for an error."""


@contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """SIGTERM ends a follower at once, as Ctrl-C does: its connections closed, no traceback.
    Handled rather than left to the default action, which the kernel never takes for the first
    process of a PID namespace (a container's, `unshare --pid`): there a follower went on until
    it was killed."""
    def stop(signum: int, frame: object) -> None:
        raise _Terminated

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _lines_out(as_json: bool) -> Out:
    """A follower's output, each line written (UTF-8) and flushed as it comes."""
    def say(line: str) -> None:
        try:
            sys.stdout.buffer.write(line.encode("utf-8", "replace") + b"\n")
            sys.stdout.flush()
        except BrokenPipeError:
            # Nobody reads on; what is left in the buffer goes nowhere, not to a traceback.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise _ReaderGone from None

    def warn(line: str) -> None:
        sys.stderr.write(f"skillrail trace: {one_line(line)}\n")
        sys.stderr.flush()

    if as_json:
        def dumped(kind: str) -> Any:
            return lambda doc: say(json.dumps({"kind": kind, **doc}))
        return Out(dumped("run"), lambda entry: say(json.dumps(entry)), dumped("end"), warn)
    return Out(lambda doc: say("\n".join(head_lines(doc))), lambda e: say(entry_line(e)),
               lambda doc: say("\n".join(tail_lines(doc, end=True))), warn)


def text_lines(doc: dict[str, Any]) -> list[str]:
    """A trace document as lines for a terminal."""
    if doc["level"] == "hidden":
        return head_lines(doc)
    return head_lines(doc) + [entry_line(e) for e in doc["timeline"]] + tail_lines(doc)


def head_lines(doc: dict[str, Any]) -> list[str]:
    """What a trace shows before its timeline: the run's outcome so far, when and where it
    started, its params."""
    lines = [_outcome(doc)]
    if doc.get("tampered"):  # at every level: the run's history is not skillrail's doing
        lines.append(f"changed outside skillrail: {doc['tampered']}")
    if doc["level"] == "hidden":
        return lines
    by = started_by(doc.get("host"), doc.get("who"))
    lines.append(f"skill {doc['skill']}, started {doc['started']}" + (f" by {by}" if by else "")
                 + f", last change {doc['updated']}"
                 + (f", sub-run of {doc['parent']}" if doc["parent"] else ""))
    if doc.get("params"):
        lines.append("params: " + ", ".join(f"--{k}={v}" for k, v in doc["params"].items()))
    if doc.get("note"):
        lines.append(f"note: {doc['note']}")
    return lines


def tail_lines(doc: dict[str, Any], end: bool = False) -> list[str]:
    """What a trace shows after its timeline: the sub-runs; for a follower (`end`), the
    outcome first."""
    lines = [_outcome(doc)] if end else []
    if doc.get("sub_runs"):
        lines.append("sub-runs:")
        lines += [f"  {s['run']}  {s['workflow']}  {s['status']} at '{s['step']}', "
                  f"{counted(s['steps'], 'step')}" for s in doc["sub_runs"]]
    return lines


def _outcome(doc: dict[str, Any]) -> str:
    return (f"run {doc['run']}  {doc['workflow']}  {doc['status']} at '{doc['step']}', "
            f"{counted(doc['steps'], 'step')}")


def entry_line(entry: dict[str, Any]) -> str:
    """One timeline entry as a line (a value may span several), its id first."""
    if entry["kind"] == "event":
        said = event_text(entry["event"], entry["detail"])
        return f"  {entry['id']:<{_ID}} {entry['at']}  {said}"
    if entry["kind"] == "transition":
        why = f"  [{entry['milestone']}]" if entry["milestone"] else ""
        return (f"  {entry['id']:<{_ID}} {entry['at']}  #{entry['seq']} {entry['source']} "
                f"--{entry['outcome']}--> {entry['target']}{why}")
    head = f"  {entry['id']:<{_ID + 20}}  {entry['step']} set {entry['key']} = "
    # A value may span lines; its continuation lines are indented under its first.
    return head + str(entry["value"]).replace("\n", "\n" + " " * len(head))


#: The width of the id column (e12345: a ledger's events are numbered together).
_ID = 7
