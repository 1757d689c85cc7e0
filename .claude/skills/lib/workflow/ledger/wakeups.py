"""Waiting for a run's next write, for `trace --follow` (tools/follow.py), which reads what came
after its position (entries.py) each time it wakes:

- SQLite: a short sleep (that read is one indexed statement);
- PostgreSQL: LISTEN on the channel schema 9's triggers notify with the run's id on each of
  its events and moves (pgschema.V9_POSTGRES), on a connection of its own, and a wake-up every
  few seconds all the same.

A notice is a wake-up, nothing more: the read from the position says what is new, so a notice
lost (a reconnection, the server's restart) or one for rows read already costs nothing. The
channel is listened to before the first read, so a write committed after it is never slept
through. psycopg is imported for a PostgreSQL ledger only."""

from __future__ import annotations

import time
from typing import Any, Protocol, cast

from ..base.errors import LedgerError, first_line
from .store import Ledger

#: How often SQLite is read again.
POLL_SECONDS = 0.5
#: The longest a PostgreSQL follower sleeps without a notice.
WAKE_SECONDS = 5.0
#: The channel of pgschema.V9_POSTGRES's notices.
CHANNEL = "skillrail_runs"


class Waiter(Protocol):
    def wait(self) -> None:
        """Return when the run may have changed."""

    def close(self) -> None: ...


class Sleep:
    """SQLite's: a pause between reads."""

    def wait(self) -> None:
        time.sleep(POLL_SECONDS)

    def close(self) -> None:
        pass


class Listen:
    """PostgreSQL's: until a notice names the run, or WAKE_SECONDS pass. A failure of the
    connection is the ledger's LedgerError (cannot be read), as a query's would be."""

    def __init__(self, ledger: Ledger, run_id: str) -> None:
        import psycopg

        self.psycopg, self.ledger, self.run = psycopg, ledger, run_id
        url = cast(Any, ledger.db).url  # pgstore.Connection's: the URL the ledger opened
        try:
            self.conn = psycopg.connect(url, autocommit=True,
                                        connect_timeout=max(2, ledger.busy_ms // 1000))
            self.conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            raise _failed(ledger, exc) from None

    def wait(self) -> None:
        deadline = time.monotonic() + WAKE_SECONDS
        try:
            while (left := deadline - time.monotonic()) > 0:
                for notice in self.conn.notifies(timeout=left, stop_after=1):
                    if notice.payload == self.run:
                        return
        except self.psycopg.Error as exc:
            raise _failed(self.ledger, exc) from None

    def close(self) -> None:
        self.conn.close()


def waiter(ledger: Ledger, run_id: str) -> Waiter:
    """What waits for run `run_id` of `ledger` to change. LedgerError when it cannot listen."""
    return Listen(ledger, run_id) if ledger.shared else Sleep()


def _failed(ledger: Ledger, exc: Exception) -> LedgerError:
    """The ledger's error for the listening connection's failure, in one line."""
    said = first_line(exc)
    # psycopg's "consuming input failed: " says nothing the reason after it does not.
    said = said.removeprefix("consuming input failed: ")
    return ledger.error("cannot be read", ConnectionError(said))
