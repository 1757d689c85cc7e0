"""A run's history as the ledger holds it, row by row, each row with an id that never changes
(`skillrail trace`, and `trace --follow`, which reads what came after a position again and
again):

- `e<N>`: an event (start, pause, completed, ...): N is its row in the events table, numbered
  in the order rows are committed, because every writer holds the ledger's write lock (SQLite's
  BEGIN IMMEDIATE, PostgreSQL's advisory lock, pgstore.py);
- `t<N>`: the run's move number N (transitions.seq: 1, 2, ...);
- `t<N>.<KEY>`: the value KEY that move N recorded (an `--set` value, a check's output).

A value a script records for the move its step will make (a check's output, settle.py) joins
the history with that move, or with the run's end when no move follows: until then it is not
read (a follower shows each value once, with its move).

Everything after a position is read in one statement, so in one snapshot: the run's status and
every row committed with it, never half of a write."""

from __future__ import annotations

import re
from typing import NamedTuple

from ..base.errors import UsageError
from .store import Ledger

#: What an entry id looks like (module docstring).
_ID = re.compile(r"(e|t)([0-9]+)(?:\.(.+))?\Z")


class Position(NamedTuple):
    """How far a reader has read: the last move (seq) and the last event (row) it holds."""

    seq: int = 0
    event: int = 0


class Row(NamedTuple):
    """One event, move or value. `at`: when it happened (a value: when its move was made; one
    recorded for a move never made: when the run ended)."""

    id: str
    kind: str  # 'event', 'transition' or 'memory', as the trace document names them
    at: float
    number: int  # the event's row, or the move's seq
    texts: tuple[str, ...]  # event: kind, detail; move: source, outcome, target;
    # value: key, step, value
    row: int = 0  # a value's row in the memory table (its order among its move's values)


class Rows(NamedTuple):
    """The run's rows after a position, and its state in the same snapshot."""

    rows: list[Row]
    status: str  # active, completed or abandoned
    updated: float

    @property
    def ended(self) -> bool:
        return self.status != "active"

    def position(self, before: Position) -> Position:
        """`before` moved past every row read."""
        seqs = [r.number for r in self.rows if r.kind == "transition"]
        events = [r.number for r in self.rows if r.kind == "event"]
        return Position(max([before.seq, *seqs]), max([before.event, *events]))


#: One statement (one snapshot): the run, then its events, moves and values after a position.
#: Columns: what, number, row, at, three texts.
_AFTER = """
SELECT 'run', hops, 0, updated, status, '', '' FROM runs WHERE id = :run
UNION ALL
SELECT 'event', rowid, 0, at, kind, detail, '' FROM events WHERE run = :run AND rowid > :event
UNION ALL
SELECT 'transition', seq, 0, at, source, outcome, target FROM transitions
    WHERE run = :run AND seq > :seq
UNION ALL
SELECT 'memory', m.seq, m.rowid, COALESCE(t.at, r.updated), m.key, m.step, m.value
    FROM memory m JOIN runs r ON r.id = m.run
    LEFT JOIN transitions t ON t.run = m.run AND t.seq = m.seq
    WHERE m.run = :run AND m.seq > :seq AND (t.seq IS NOT NULL OR r.status <> 'active')
"""


#: Before the first row.
START = Position()


def read(ledger: Ledger, run_id: str, after: Position = START) -> Rows:
    """The rows of run `run_id` after `after` (everything by default), in no set order. A
    run the ledger does not hold reads as an ended one with no rows."""
    found = ledger.query(_AFTER, {"run": run_id, "seq": after.seq, "event": after.event})
    rows, status, updated = [], "abandoned", 0.0
    for what, number, row, at, *texts in found:
        if what == "run":
            status, updated = str(texts[0]), float(at)
            continue
        rows.append(Row(entry_id(what, int(number), str(texts[0])), str(what), float(at),
                        int(number), tuple(str(t) for t in texts), int(row)))
    return Rows(rows, status, updated)


def entry_id(kind: str, number: int, key: str = "") -> str:
    """The id of an event (its row), a move (its seq) or a value (its move's seq and key)."""
    if kind == "event":
        return f"e{number}"
    return f"t{number}" if kind == "transition" else f"t{number}.{key}"


def check_id(text: str) -> str:
    """`text`, when it has the shape of an entry id; else a UsageError saying the shapes."""
    if not _ID.match(text):
        raise UsageError(f"'{text}' is not an entry id", fix=ID_SHAPES)
    return text


#: The shapes of an entry id, for help texts and errors.
ID_SHAPES = ("An entry id is e<N> (an event), t<N> (move N) or t<N>.<KEY> (a value move N "
             "recorded), as `skillrail trace RUN` prints them")
