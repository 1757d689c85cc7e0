"""The ask_user gate: an answer to an `<ask_user>` step counts only if the user spoke after the
question was put to them. Its evidence lives where the agent cannot write it (evidence.py).

Whether a run's questions bind is decided once and then holds for the run's life; nothing the
agent can change afterwards (a settings file, `CLAUDE_CODE_SESSION_ID`, the working folder, the
ledger row) makes it advisory again. A run binds when any of these holds:

- skillrail's hooks saw one of its steps (printed, or named by a step command): the evidence
  store says so, and only the hooks write there;
- it started where a Claude Code settings file installed skillrail's hooks (its ledger row
  keeps that file's name, `gate`);
- skillrail's hooks are installed for the folder the run lives in and the step does not run at
  a person's terminal (no TTY on stdin): an agent's shell has none, with or without a session
  id.

Elsewhere (no hooks, or a person at a terminal) the gate is advisory, and the step says so.
Where it binds:

- the question's time is when the hooks first saw the step script print it (PostToolUse on the
  step command), not when the run ledger says the run got there: the agent's Bash can write the
  ledger;
- the user's turns come from the evidence store too (the UserPromptSubmit hook), from every
  session that saw the run's questions or its steps, and the run's own;
- a run whose ledger history passes a question without such a turn, or is no chain of the
  workflow's moves, was changed outside skillrail (`audit`): its next step is refused.

An approval the user gave in advance (standing.py) answers a question in place of a turn: one
typed in their prompt as the hooks recorded it, or given at their terminal; where the gate is
advisory, one relayed by the agent counts too, and says so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..base.errors import LedgerError

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:  # the store loads only where one exists
    from typing import NamedTuple, Protocol, TypeVar

    from .evidence import Evidence
    from .standing import Approval

    T = TypeVar("T")

    class Run(Protocol):
        """What the gate reads of a run (the ledger's Run has it)."""

        @property
        def id(self) -> str: ...
        @property
        def session(self) -> str | None: ...
        @property
        def step(self) -> str: ...
        @property
        def hops(self) -> int: ...
        @property
        def gate(self) -> str | None: ...
        @property
        def skill(self) -> str: ...
else:
    from ..base.records import NamedTuple


class Asked(NamedTuple):
    """The question at a run's step, as the gate needs it: its kind (AskUser.kind), and the
    option an approval given in advance chooses ('*': whichever the step script allows at
    this visit; None: the question is always asked)."""

    kind: str
    advance: str | None


#: (seq, source, outcome, target, at) of a move, as the ledger keeps it.
Move = tuple[int, str, str, str, float]


class Verdict(NamedTuple):
    """Whether the gate binds, and why, in one line for a person (`skillrail doctor`)."""

    binding: bool
    why: str


def interactive() -> bool:
    """Whether this process runs at a person's terminal: an agent's shell has no TTY."""
    try:
        return os.isatty(sys.stdin.fileno())
    except (ValueError, OSError, AttributeError):
        return False


def verdict(folder: str | None, run: Run | None = None, *, agent: bool | None = None) -> Verdict:
    """Whether the questions of `run` (None: a run started now) living in `folder` bind.
    `agent`: whether the step runs in an agent's shell (default: no TTY on stdin)."""
    if run is not None:
        first = seen(run.id)
        if first is not None:
            return Verdict(True, f"skillrail's hooks saw run {run.id} in session {first[0]}")
        if run.gate:
            return Verdict(True, f"run {run.id} started with skillrail's hooks installed "
                                 f"({run.gate})")
    from .claudesettings import hook_settings  # here: a move needing no verdict reads no settings

    installed = hook_settings(folder) if folder else None
    if installed is None:
        where = folder or "this run's project"
        return Verdict(False, f"no Claude Code settings file installs skillrail's hooks for "
                              f"{where} (`skillrail hooks install`)")
    if not (not interactive() if agent is None else agent):
        return Verdict(False, f"skillrail's hooks are installed ({installed}), but this step "
                              "runs at a person's terminal")
    return Verdict(True, f"skillrail's hooks are installed ({installed})")


def unattended() -> bool:
    """Whether nobody is there to answer a question: a run in CI (`CI` set, as CI services
    do) or one started with SKILLRAIL_UNATTENDED=1 (=0: attended, in CI too). Such a run stops
    at a question no approval given in advance answers, rather than wait or be answered by the
    agent. Setting it only makes a run stop sooner: it needs no protection from the agent."""
    said = os.environ.get("SKILLRAIL_UNATTENDED")  # set, it decides (0: attended, in CI too)
    if said is None:
        said = os.environ.get("CI", "")
    return said.strip().lower() not in ("", "0", "false", "no")


def gate_at_start(folder: str) -> str | None:
    """The settings file a run starting now records as its `gate` (binding for life), or None
    where a run starting now is advisory."""
    if interactive():
        return None
    from .claudesettings import hook_settings

    return hook_settings(folder)


def unanswered(run: Run, folder: str | None, asked: Asked | None = None,
               outcome: str | None = None, given: Iterable[str] = ()) -> tuple[str, str] | None:
    """(what is wrong, how to go on) when the run may not leave its ask_user step yet; None
    when it may: the user spoke after the question, or approved `outcome` in advance (`asked`:
    the question; with the user's condition, CONDITION_MET among the values `given`), or the
    gate is advisory here."""
    held = _held(run, folder)
    if held is None or asked is None or outcome is None or asked.advance not in (outcome, "*"):
        return held
    ahead = standing_approval(run, asked.kind, True)
    if ahead is None:
        return held
    from .standing import CONDITION_MET

    if ahead.condition and CONDITION_MET not in set(given):
        return (f"the user approved step '{run.step}' in advance on a condition "
                f"({ahead.quoted()}), and the command does not say how it holds",
                f"Run it again with --set {CONDITION_MET}='how the condition holds'; if it "
                "does not hold, ask the user the question and end your turn")
    return None


def _held(run: Run, folder: str | None) -> tuple[str, str] | None:
    """`unanswered`, by the user's turns alone."""
    found = verdict(folder, run)
    if not found.binding:
        return None
    questions, spoke, sessions, problem = _evidence(run)
    if problem is not None:
        return problem, ("The run is unchanged. Tell the user: the ask_user gate holds every "
                         "answer until the evidence store can be believed again")
    seen = [at for hops, step, at in questions if hops == run.hops and step == run.step]
    if not seen:
        return (f"skillrail's hooks did not see step '{run.step}' put its question (run "
                f"{run.id}; {found.why})", "Show the step again with its resume command, ask "
                "the user its question and end your turn" + _silent(sessions))
    if spoke is None or spoke <= seen[0]:
        return (f"no user turn was recorded since step '{run.step}' put its question",
                "The run is unchanged. Ask the user the question of the step and end your "
                "turn; once they have answered, run the command of the option they chose")
    return None


def audit(run: Run, moves: Sequence[Move], entry: str, asks: Iterable[str],
          edges: set[tuple[str, str, str]], folder: str | None,
          asked: Mapping[str, Asked] | None = None) -> str | None:
    """Why `run`'s ledger history cannot be skillrail's own doing, or None: its moves are no
    chain of the workflow's edges from `entry` to where the run stands (`edges`: every
    (source, outcome, target) the workflow allows), or, where the gate binds, one of them
    leaves an ask_user step (`asks`; `asked`: what each is) at a position whose question the
    hooks never saw put, or saw put with no user turn after it, and no approval the user gave
    in advance covers it."""
    at = entry
    for n, (seq, source, outcome, target, _) in enumerate(moves, start=1):
        if seq != n or source != at or (source, outcome, target) not in edges:
            return (f"move {seq} of run {run.id} ({source} -{outcome}-> {target}) does not "
                    "follow from the moves before it in the workflow")
        at = target
    if moves and (at != run.step or run.hops != len(moves) + 1):
        return (f"run {run.id} stands at step '{run.step}' (position {run.hops}), which its "
                "recorded moves do not lead to")
    asking = set(asks)
    passed = [(seq, source, outcome, at) for seq, source, outcome, _, at in moves
              if source in asking]
    if not passed or not verdict(folder, run).binding:
        return None
    questions, spoke, sessions, _ = _evidence(run)
    put = {(hops, step): at for hops, step, at in questions}
    ahead = _approvals(run, sessions)
    for seq, source, outcome, moved in passed:
        question = (asked or {}).get(source)
        if question is not None and question.advance in (outcome, "*") and \
                _covered(ahead, run, source, question.kind, moved):
            continue
        when = put.get((seq, source))
        if when is None:
            return (f"run {run.id} moved past step '{source}' (move {seq}) though skillrail's "
                    "hooks never saw its question put")
        if spoke is None or spoke <= when:
            return (f"run {run.id} moved past step '{source}' (move {seq}) without the user's "
                    "answer to its question")
    return None


def standing_approval(run: Run, kind: str, binding: bool) -> Approval | None:
    """The approval given in advance that answers the question at `run`'s step now, or None
    (only the user's own, where the gate binds)."""
    import time

    from .standing import covering

    def read(store: Evidence) -> Approval | None:
        found, sessions = _run_approvals(store, run, set())
        last = {s: t for s in sessions if (t := store.last_turn(s)) is not None}
        return covering(found, run=run.id, skill=run.skill, step=run.step, kind=kind,
                        sessions=sessions, binding=binding, now=time.time(), last_turns=last)

    return _looked_up(read)


def _approvals(run: Run, sessions: set[str]) -> tuple[list[Approval], set[str]]:
    """The approvals typed in the run's sessions or given for it, and those sessions."""
    return _looked_up(lambda store: _run_approvals(store, run, sessions)) or ([], sessions)


def _run_approvals(store: Evidence, run: Run, sessions: set[str]
                   ) -> tuple[list[Approval], set[str]]:
    """(the approvals typed in the run's sessions or given for it, those sessions): `sessions`,
    the ones its questions were put in, its own and the one the hooks first saw it in."""
    first = store.seen_run(run.id)
    named = sessions | {s for _, _, s, _ in store.questions(run.id)}
    named |= {s for s in (run.session, first[0] if first else None) if s}
    return store.approvals(named, [run.id]), named


def _covered(ahead: tuple[list[Approval], set[str]], run: Run, step: str, kind: str,
             moved: float) -> bool:
    """Whether an approval the user gave in advance covers the move out of `step` made at
    `moved` (the ledger's time: a later turn of the user does not undo a move made before)."""
    from .standing import covering

    return covering(ahead[0], run=run.id, skill=run.skill, step=step, kind=kind,
                    sessions=ahead[1], binding=True, now=moved) is not None


def unanswered_stateless(workflow: str, step: str, folder: str) -> tuple[str, str] | None:
    """`unanswered` for a stateless run, which has no id: the question is the latest the
    hooks saw this session's workflow put at `step`."""
    from .evidence import read_only, stateless_key

    found = verdict(folder)
    if not found.binding:
        return None
    session = os.environ.get("CLAUDE_CODE_SESSION_ID") or ""
    seen, spoke = None, None
    try:
        store = read_only()
        if store is not None and session:
            with store:
                rows = store.questions(stateless_key(session, workflow))
                seen = next((t for _, s, _, t in rows if s == step), None)
                spoke = store.last_turn(session)
    except LedgerError:
        pass
    if seen is None:
        return (f"skillrail's hooks did not see step '{step}' put its question in this "
                f"session ({found.why})", "Show the step again (run the command that printed "
                "it), ask the user its question and end your turn")
    if spoke is None or spoke <= seen:
        return (f"no user turn was recorded since step '{step}' put its question",
                "Ask the user the question of the step and end your turn; once they have "
                "answered, run the command of the option they chose")
    return None


def _no_store() -> bool:
    """Whether no evidence store exists here (no hook and no `skillrail trust` ever wrote one):
    the common case of a step without hooks, answered without opening anything."""
    from ..base.paths import evidence_dir

    return not os.path.exists(os.path.join(evidence_dir(), "evidence.sqlite3"))


def tampered(run_id: str) -> str | None:
    """Why the hooks found run `run_id` tampered with, or None."""
    return _looked_up(lambda store: store.tampered(run_id))


def seen(run_id: str) -> tuple[str, str, str, str] | None:
    """What the hooks recorded when they first saw run `run_id` (evidence.seen_run), or
    None."""
    return _looked_up(lambda store: store.seen_run(run_id))


def _looked_up(read: Callable[[Evidence], T]) -> T | None:
    """`read` of the evidence store opened read-only; None where there is none, or it cannot
    be read (the gate's own reads treat that as no evidence: shut)."""
    if _no_store():
        return None
    from .evidence import read_only

    try:
        store = read_only()
        if store is None:
            return None
        with store:
            return read(store)
    except LedgerError:
        return None


def _evidence(run: Run) -> tuple[list[tuple[int, str, float]], float | None, set[str],
                                 str | None]:
    """(the run's questions the hooks saw, as (position, step, when); the user's last turn in
    any session that counts; those sessions; why the evidence store is not believed, if it is
    not). Unreadable evidence proves nothing: no questions, no turn: the gate stays shut."""
    from .evidence import Evidence, default_path

    questions: list[tuple[int, str, str, float]] = []
    turns: list[float | None] = []
    sessions: set[str] = set()
    if not os.path.exists(default_path()):
        return [], None, set(), None
    try:
        with Evidence(default_path(), writable=False) as store:
            questions = store.questions(run.id)
            first = store.seen_run(run.id)
            named = [s for _, _, s, _ in questions] + [run.session, first[0] if first else None]
            sessions = {s for s in named if s}
            turns = [store.last_turn(s) for s in sessions]
    except LedgerError as exc:
        return [], None, set(), exc.summary()
    spoke = max((t for t in turns if t is not None), default=None)
    return [(h, st, t) for h, st, _, t in questions], spoke, sessions, None


def _silent(sessions: set[str]) -> str:
    """A hint when the hooks recorded nothing at all for the run's sessions: they do not run
    (skillrail's hook command is not on the PATH Claude Code gives them, say)."""
    from .evidence import read_only

    try:
        store = read_only()
        if store is not None:
            with store:
                if any(store.last_turn(s) is not None for s in sessions):
                    return ""
    except LedgerError:
        pass
    return ("; if this repeats, skillrail's hooks may not run in this session: the user runs "
            "`skillrail doctor`")
