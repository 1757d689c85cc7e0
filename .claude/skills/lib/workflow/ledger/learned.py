"""What runs of a skill taught, kept per skill in the ledger (table `cases`): success cases (the
steps that passed and their key outputs), failure cases (the findings of checks that failed) and
the user's feedback. skill-runner records them at the end of a run and shows them, newest first
and capped, when the same skill is planned again; `skillrail history` prints or exports them."""

from __future__ import annotations

import time
from typing import NamedTuple

from .store import Ledger

KINDS = ("success", "failure", "feedback")
#: What a planning step shows of a skill's history: enough to learn from, never a flood.
SHOWN_CASES, SHOWN_CHARS = 12, 3_000


class Case(NamedTuple):
    skill: str
    run: str
    kind: str
    at: float
    text: str


def record(ledger: Ledger, skill: str, run: str, kind: str, text: str) -> None:
    """Add one case (inside the caller's transaction)."""
    assert kind in KINDS, kind
    ledger.db.execute("INSERT INTO cases VALUES (?,?,?,?,?)",
                      (skill, run, kind, time.time(), text))


def cases(ledger: Ledger, skill: str, limit: int | None = None) -> list[Case]:
    """The skill's cases, newest first."""
    sql = ("SELECT skill, run, kind, at, text FROM cases WHERE skill = ? "
           "ORDER BY at DESC, rowid DESC")
    rows = ledger.query(sql + (f" LIMIT {int(limit)}" if limit else ""), (skill,))
    return [Case(*row) for row in rows]


def summary(found: list[Case], max_chars: int = SHOWN_CHARS) -> str:
    """One line per case, newest first, cut to `max_chars` (saying how many were left out)."""
    lines, used = [], 0
    for n, case in enumerate(found):
        line = f"- {time.strftime('%Y-%m-%d', time.localtime(case.at))} {case.kind} " \
               f"({case.run}): {' '.join(case.text.split())}"
        if used + len(line) > max_chars:
            lines.append(f"- ... {len(found) - n} older case(s) left out "
                         "(`skillrail history SKILL` shows them all)")
            break
        lines.append(line)
        used += len(line)
    return "\n".join(lines)


def export_markdown(skill: str, found: list[Case]) -> str:
    """A section a person can read and keep beside the skill: one list per kind."""
    out = [f"## What runs of {skill} taught", ""]
    if not found:
        return "\n".join(out + ["No runs recorded yet.", ""])
    titles = {"success": "What worked", "failure": "What failed", "feedback": "User feedback"}
    for kind in KINDS:
        mine = [c for c in found if c.kind == kind]
        if mine:
            out += [f"### {titles[kind]}", ""]
            out += [f"- {time.strftime('%Y-%m-%d', time.localtime(c.at))} ({c.run}): "
                    f"{' '.join(c.text.split())}" for c in mine] + [""]
    return "\n".join(out)
