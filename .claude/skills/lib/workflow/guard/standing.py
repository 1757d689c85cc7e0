"""Approvals given in advance: the user answers an `<ask_user>` question before it is put, so a
run they will not be there for goes on without waiting, and stays honest: the answer is theirs,
in their words, and each one is on the record.

Where one comes from, and what it is worth:

- typed in the user's own prompt, `--approve SCOPE [--if "CONDITION"] [--until TIME]` (the
  slash command's arguments, or any line of the prompt): skillrail's UserPromptSubmit hook
  records it with that turn in the evidence store, which only the hooks write. It covers the
  questions of runs in that session (of the skill a leading `/skill` names), and ends at the
  user's next turn, or, with `--until`, at that time;
- `skillrail approve RUN [SCOPE] ...`, run by the user at their terminal: it covers that run's
  questions until the run ends (or `--until`);
- where no hook is installed, nothing can tell the user's words from the agent's: the
  question's step asks the agent to relay them (`--set USER_SAID`) with the approved option,
  and they are recorded as advisory, as the gate is there anyway.

SCOPE is a step's id, a question's kind (`AskUser.kind`), or `all`. A question whose `AskUser`
names no `in_advance` option is always asked, whatever the user approved. With a condition, the
agent must say how it holds (`--set CONDITION_MET`) before the approval answers; without one,
the run passes the question at once, its `<decided>` note quoting the user's words.

This module reads and matches approvals; askgate.py applies them with the evidence it reads.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from typing import NamedTuple

#: A scope that covers every question a skill lets be approved in advance.
ALL = "all"
#: The value the agent reports to say how the user's condition holds.
CONDITION_MET = "CONDITION_MET"
#: Where no hook is installed: the user's words approving a question in advance, as the agent
#: relays them with the approved option (recorded as advisory).
USER_SAID = "USER_SAID"
#: Where an approval came from: the user's prompt, as the hooks saw it; `skillrail approve` at
#: the user's terminal where the gate binds; anything else (no hook could tell who wrote it).
SOURCES = ("prompt", "terminal", "advisory")
#: How much of the user's words an approval keeps, and a step quotes.
MAX_WORDS = 300
GRAMMAR = '--approve SCOPE [--if "CONDITION"] [--until TIME]'


class Approval(NamedTuple):
    id: int
    scope: str
    condition: str
    until: float | None
    words: str
    source: str
    session: str | None
    run: str | None
    skill: str | None
    at: float

    @property
    def binding(self) -> bool:
        return self.source != "advisory"

    def decided(self) -> str:
        """The `<decided>` note of a question this approval answered."""
        return f"The user approved this in advance: {self.quoted()}."

    def quoted(self) -> str:
        """The user's words, for a step, a trace or a report."""
        said = f"“{self.words}”"
        if self.source == "advisory":
            said += " (advisory: no hook checked who gave it)"
        return said


def approval(scope: str, condition: str, until: float | None, words: str, source: str,
             run: str | None = None, skill: str | None = None) -> Approval:
    """A new approval (the store gives it its id, its time and, from a prompt, its session)."""
    return Approval(0, scope, condition.strip(), until, _cut(words), source, None, run, skill,
                    0.0)


def in_prompt(prompt: str) -> tuple[list[Approval], list[str]]:
    """The approvals a user's prompt gives (`--approve ...`, on any of its lines), and what
    could not be read, each as a sentence for the user."""
    import shlex

    skill = _slash_skill(prompt)
    found: list[Approval] = []
    problems: list[str] = []
    for line in prompt.splitlines():
        start = re.search(r"(?:^|\s)--approve(?=\s|=|$)", line)
        if start is None:
            continue
        try:
            words = shlex.split(line[start.start():])
            scope, condition, until = _read(words[1:] if words[0] == "--approve"
                                            else [words[0].partition("=")[2], *words[1:]])
        except ValueError as exc:
            problems.append(f"`{_cut(line.strip(), 80)}`: {exc}; write it as {GRAMMAR}")
            continue
        found.append(approval(scope, condition, until, line.strip(), "prompt", skill=skill))
    return found, problems


def _read(words: list[str]) -> tuple[str, str, float | None]:
    """(scope, condition, until) from the words after `--approve`."""
    scope = words[0].rstrip(".,;:") if words else ""
    if not scope or scope.startswith("-"):
        raise ValueError("--approve needs a scope: a step, a kind of question, or 'all'")
    condition, until = "", None
    rest = words[1:]
    while rest:
        flag, rest = rest[0], rest[1:]
        name, eq, value = flag.partition("=")
        if name not in ("--if", "--until"):
            raise ValueError(f"'{_cut(flag, 40)}' follows the scope; only --if and --until may")
        if not eq:
            if not rest:
                raise ValueError(f"{name} needs a value")
            value, rest = rest[0], rest[1:]
        if name == "--if":
            condition = value
        else:
            until = until_time(value)
    return scope, condition, until


def until_time(text: str, now: float | None = None) -> float:
    """When `--until TEXT` ends an approval: `HH:MM` (today, or tomorrow once it has passed),
    `YYYY-MM-DD HH:MM`, or a span from now (`90m`, `2h`, `1d`)."""
    now = time.time() if now is None else now
    text = text.strip()
    span = re.fullmatch(r"(\d+)\s*([mhd])", text)
    if span:
        return now + int(span.group(1)) * {"m": 60, "h": 3600, "d": 86400}[span.group(2)]
    clock = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", text)
    if clock:
        day = time.localtime(now)
        at = time.mktime((day.tm_year, day.tm_mon, day.tm_mday, int(clock.group(1)),
                          int(clock.group(2)), 0, 0, 0, -1))
        return at if at > now else at + 86400
    import datetime

    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise ValueError(f"--until '{_cut(text, 40)}' is no time: use HH:MM, YYYY-MM-DD "
                         "HH:MM, or a span such as 90m, 2h or 1d") from None


def covering(approvals: Iterable[Approval], *, run: str, skill: str, step: str, kind: str,
             sessions: set[str], binding: bool, now: float,
             last_turns: Mapping[str, float] | None = None) -> Approval | None:
    """The newest approval that answers question `step` of `run` at time `now`, or None.
    `last_turns`: the user's last turn in each session (None: no approval typed in a prompt
    ends at a later turn, as when judging a move already made)."""
    for a in approvals:
        if binding and not a.binding:
            continue
        if a.until is not None and now >= a.until:
            continue
        if a.scope not in (step, ALL) and not (kind and a.scope == kind):
            continue
        if a.session is not None:  # typed in a prompt
            if a.session not in sessions or (a.skill and a.skill != skill) or now < a.at:
                continue
            if a.until is None and last_turns is not None and \
                    last_turns.get(a.session, a.at) > a.at:
                continue  # the user spoke again: they are there to be asked
        elif a.run != run:
            continue
        return a
    return None


def condition_note(a: Approval, outcome: str) -> str:
    """What a step whose question an approval answers on a condition tells the agent."""
    return (f"The user approved this in advance, on a condition: {a.quoted()}. If the "
            f"condition holds, run the command of '{outcome}' with {CONDITION_MET} saying how; "
            "if it does not, put the question to the user, end your turn and wait.")


def relay_note(outcome: str) -> str:
    """What a question that may be approved in advance tells the agent where no hook can see
    the user's prompt (it comes before the note that says to ask)."""
    return (f"If the user's prompt approved this question in advance (--approve), do not ask: "
            f"run the command of '{outcome}' now, with {USER_SAID} quoting their --approve "
            f"words exactly (and, for an --if condition, {CONDITION_MET} saying how it holds); "
            "they are recorded as advisory. Otherwise:")


def relayed(words: str, run: str, step: str, kind: str) -> Approval:
    """The approval the agent relays (`USER_SAID`) where no hook sees the user's prompt: read
    as a prompt is when it holds `--approve`, taken as plain words otherwise. ValueError when
    what it approves is not this question."""
    found, problems = in_prompt(words)
    if problems and not found:
        raise ValueError(problems[0])
    for a in found:
        if a.scope in (step, kind, ALL):
            return a._replace(source="advisory", run=run, skill=None)
    if found:
        raise ValueError(f"it approves '{found[0].scope}', not this question ('{step}'"
                         + (f", a {kind} question" if kind else "") + ")")
    return approval(step, "", None, words, "advisory", run=run)


def _slash_skill(prompt: str) -> str | None:
    """The skill a prompt's leading slash command names (`/planner ...`, `/plugin:planner`)."""
    found = re.match(r"\s*/([\w.:-]+)", prompt)
    return found.group(1).rpartition(":")[2] if found else None


def _cut(text: str, most: int = MAX_WORDS) -> str:
    return text if len(text) <= most else text[:most - 3].rstrip() + "..."
