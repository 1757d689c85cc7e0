"""`skillrail trace RUN --follow`: a run's history, then each entry as the ledger records it,
until the run ends (completed, partial or abandoned).

The follower holds a position (ledger/entries.py: its last move and its last event) and, each
time it wakes (ledger/wakeups.py), reads what came after it, in one snapshot: it shows every entry
once, whatever it was woken by. Entries are shown in time order, with the ids `trace` prints;
`--since ID` starts after the entry ID, so a follower stopped (a lost terminal, Ctrl-C) and
started again with its last id shows each entry exactly once. On a ledger several machines
write, that order is their clocks': an entry recorded by a machine whose clock lags shows
when it arrives.

A PostgreSQL connection lost while following (the server restarted, the network cut) is
opened again, waiting longer each time up to a few seconds: a line on stderr says so, naming the
last entry shown (the `--since` that would go on from there), and another when it is open again;
the follower goes on from its position. On SQLite an error ends it, as any command's does."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from typing import Any, NamedTuple

from ..base.errors import LedgerError
from ..graph.model import Workflow
from ..ledger.entries import START, Rows, read
from ..ledger.store import Ledger, Run
from ..ledger.wakeups import Waiter, waiter
from .history import Hides, outcome, shown, timeline, trace

#: The pauses between attempts to reopen a lost PostgreSQL ledger; the last one repeats.
BACKOFF_SECONDS = (0.2, 0.5, 1.0, 2.0, 4.0)


class View(NamedTuple):
    """How the run is shown: trace's level, the run's workflow (for milestones), the note
    about it, and what the project hides."""

    level: str
    workflow: Workflow | None
    note: str
    hides: Hides


class Out(NamedTuple):
    """Where it goes: the trace document (its timeline excepted) first, each entry as it comes,
    the run's outcome at its end (trace's hidden-level fields, and its sub-runs at full), and
    a line for stderr."""

    head: Callable[[dict[str, Any]], None]
    entry: Callable[[dict[str, Any]], None]
    end: Callable[[dict[str, Any]], None]
    warn: Callable[[str], None]


def follow(ledger: Ledger, run: Run, view: View, since: str | None, out: Out) -> None:
    """Show `run`'s history after `since` (all of it: None), then each new entry, until the run
    ends. Returns then; a KeyboardInterrupt is the caller's."""
    follower = _Follower(ledger, run.id, out.warn, since)

    def show(entry: dict[str, Any]) -> None:
        out.entry(entry)
        follower.shown = entry["id"]

    try:
        rows = follower.first()
        doc = trace(ledger, run, view.level, view.workflow, view.note, view.hides, since, rows)
        out.head({k: v for k, v in doc.items() if k not in ("timeline", "sub_runs")})
        for entry in doc.get("timeline", []):
            show(entry)
        while not rows.ended:
            rows = follower.next()
            for entry in shown(timeline(rows, view.workflow, view.hides), view.level):
                show(entry)
        out.end(_outcome(follower.ledger, run.id, view.level))
    finally:
        follower.close()


def _outcome(ledger: Ledger, run_id: str, level: str) -> dict[str, Any]:
    """The ended run as trace's hidden level shows it, with its sub-runs at full."""
    final = ledger.run(run_id)
    assert final is not None  # runs are never deleted
    return outcome(ledger, final, level)


class _Follower:
    """A position in one run's history, read forward; reopens a lost PostgreSQL ledger."""

    def __init__(self, ledger: Ledger, run_id: str, warn: Callable[[str], None],
                 since: str | None) -> None:
        self.ledger, self.run, self.warn = ledger, run_id, warn
        self.at = START
        #: The id of the last entry shown (`--since`'s before the first), None before any.
        self.shown = since
        self.waiter: Waiter | None = None
        self.opened = ExitStack()  # what this follower opened, and closes

    def first(self) -> Rows:
        """Every row of the run (the wake-ups are listened for first)."""
        self.waiter = self.opened.enter_context(_closing(waiter(self.ledger, self.run)))
        return self._read()

    def next(self) -> Rows:
        """The rows after the position, once the run may have changed (at once after a
        reconnection: what was recorded meanwhile sent no notice this follower heard)."""
        reopened = False
        while True:
            try:
                assert self.waiter is not None
                if not reopened:
                    self.waiter.wait()
                return self._read()
            except LedgerError as exc:
                if not self.ledger.shared:
                    raise
                self.warn(f"{exc.what}; reconnecting, to go on {self._where()}")
                self._reopen()
                self.warn(f"reconnected; going on {self._where()}")
                reopened = True

    def _where(self) -> str:
        """Where the follower goes on from, in the ids it prints: the position itself is the
        last move and event read, which a summary or hidden level may not have shown."""
        return "from the start" if self.shown is None else f"after {self.shown}"

    def _read(self) -> Rows:
        rows = read(self.ledger, self.run, self.at)
        self.at = rows.position(self.at)
        return rows

    def _reopen(self) -> None:
        """Open the ledger and the wake-ups again, trying until both are open."""
        for attempt in itertools.count():
            self.close()
            time.sleep(BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS) - 1)])
            try:
                self.ledger = self.opened.enter_context(Ledger(busy_ms=self.ledger.busy_ms))
                self.waiter = self.opened.enter_context(_closing(waiter(self.ledger, self.run)))
                return
            except LedgerError:
                continue

    def close(self) -> None:
        """Close what this follower opened, a connection already lost included (the caller's
        ledger is the caller's to close)."""
        with suppress(Exception):
            self.opened.close()
        self.opened, self.waiter = ExitStack(), None


@contextmanager
def _closing(found: Waiter) -> Iterator[Waiter]:
    try:
        yield found
    finally:
        found.close()
