"""What the target's copy of a run lacks of the source's (run/ledgercopy.py): the rows to add,
or None when the target's copy is no earlier state of this run."""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from .copysource import RunRows

#: The columns of a run its later steps change (ledger.advance, decide, set_status).
MOVING = ("step", "decided", "hops", "updated")


class Delta(NamedTuple):
    """What the target's copy of a run lacks of it."""

    memory: list[tuple[Any, ...]]  # rows to add
    rewritten: list[tuple[Any, ...]]  # values of the pending move recorded again since
    transitions: list[tuple[Any, ...]]
    loops: dict[str, int]  # counts to set
    events: list[tuple[Any, ...]]
    cases: list[tuple[Any, ...]]
    agents: list[tuple[Any, ...]]  # bindings whose (session, agent) the target has free
    run: dict[str, Any]  # the runs columns to bring up to the source's

    def empty(self) -> bool:
        return not any(self)


def whole(mine: RunRows) -> Delta:
    """All of a run, for a target without it (its runs row aside: _insert_run)."""
    ended = {} if mine.run["status"] == "active" else {"status": mine.run["status"]}
    return Delta(mine.memory, [], mine.transitions, mine.loops, mine.events, mine.cases,
                 mine.agents, ended)


def delta(mine: RunRows, theirs: RunRows) -> Delta | None:
    """What `theirs` (the target's copy) lacks of `mine`, its agents aside (_free_agents);
    None when it holds something `mine` does not, so that it is no earlier state of this run."""
    if not _behind(theirs.run, mine.run) or sorted(theirs.params) != sorted(mine.params):
        return None
    if mine.transitions[:len(theirs.transitions)] != theirs.transitions:
        return None
    if any(n > mine.loops.get(edge, -1) for edge, n in theirs.loops.items()):
        return None
    memory = _memory(mine.memory, theirs.memory, theirs.run["hops"])
    events, cases = _extra(mine.events, theirs.events), _extra(mine.cases, theirs.cases)
    if memory is None or events is None or cases is None:
        return None
    return Delta(memory[0], memory[1], mine.transitions[len(theirs.transitions):],
                 {edge: n for edge, n in mine.loops.items() if theirs.loops.get(edge) != n},
                 events, cases, [],
                 {c: mine.run[c] for c in (*MOVING, "status", "result")
                  if theirs.run[c] != mine.run[c]})


def _behind(theirs: dict[str, Any], mine: dict[str, Any]) -> bool:
    """Whether the target's run could be an earlier state of ours: not further on, and
    either still active or ended as ours did (an ended run never moves again)."""
    ended_alike = (theirs["status"], theirs["result"]) == (mine["status"], mine["result"])
    return bool(theirs["hops"] <= mine["hops"] and theirs["updated"] <= mine["updated"]
                and (theirs["status"] == "active" or ended_alike))


def _memory(mine: list[tuple[Any, ...]], theirs: list[tuple[Any, ...]],
            hops: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]] | None:
    """(values to add, values to rewrite), or None when the target holds one we do not. A
    value of a move made (seq below the run's hops) never changes; one of the move still to
    come may be recorded again (ledger.remember replaces it), so ours replaces it."""
    have = {(key, seq): (step, value) for key, seq, step, value in theirs}
    want = {(key, seq): (step, value) for key, seq, step, value in mine}
    if any(k not in want or (k[1] < hops and want[k] != v) for k, v in have.items()):
        return None
    added = [row for row in mine if (row[0], row[1]) not in have]
    rewritten = [row for row in mine if have.get((row[0], row[1]), (row[2], row[3]))
                 != (row[2], row[3])]
    return added, rewritten


def _extra(mine: list[tuple[Any, ...]],
           theirs: list[tuple[Any, ...]]) -> list[tuple[Any, ...]] | None:
    """Our rows the target lacks, in our order (rows may repeat: counted, not set-wise); None
    when it has one we do not."""
    left = Counter(theirs)
    if left - Counter(mine):
        return None
    lacking = []
    for row in mine:
        if left[row]:
            left[row] -= 1
        else:
            lacking.append(row)
    return lacking
