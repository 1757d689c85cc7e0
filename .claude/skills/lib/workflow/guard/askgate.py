"""The ask_user gate: an answer to an `<ask_user>` step counts only if the user spoke after the
question was put to them. Its evidence lives where the agent cannot write it.

The gate is binding when skillrail's hooks are installed for the run's workspace (a Claude Code
settings file names them: a file the agent cannot quietly edit, and which deleting evidence
cannot undo) and the run belongs to a Claude Code session. Then:

- the question's time is when the hooks first saw the step script print it (PostToolUse on the
  step command, recorded in the evidence store with the session it was printed in), not when
  the run ledger says the run got there: the agent's Bash can write the ledger;
- the user's last turn comes from the evidence store too (the UserPromptSubmit hook);
- the sessions that count are the run's own and every session the hooks saw print its
  questions, so a run started under a made-up `CLAUDE_CODE_SESSION_ID` still needs the real
  user to speak.

Elsewhere (no hooks, or a run outside any session: a person at a terminal) it is advisory, and
the step says so.
"""

from __future__ import annotations

import os
from typing import Protocol

from ..base.paths import project_root
from .claudesettings import hook_settings


class Run(Protocol):
    """What the gate reads of a run (the ledger's Run has it)."""

    @property
    def id(self) -> str: ...
    @property
    def session(self) -> str | None: ...
    @property
    def workspace(self) -> str: ...
    @property
    def step(self) -> str: ...
    @property
    def hops(self) -> int: ...

def unanswered(run: Run) -> tuple[str, str] | None:
    """(what is wrong, how to go on) when the run may not leave its ask_user step yet; None
    when it may (the user spoke after the question, or the gate is advisory here)."""
    found = _evidence(run)
    if found is None:
        return None
    installed, questions, spoke = found
    seen = [at for hops, step, at in questions if hops == run.hops and step == run.step]
    if not seen:
        return (f"the hooks ({installed}) did not see step '{run.step}' put its question in "
                "this session", "Show the step again with its resume command, ask the user "
                "its question and end your turn; if this repeats, the user runs `skillrail "
                "hooks install` again (the hooks may predate this check)")
    if spoke is None or spoke <= seen[0]:
        return (f"no user turn was recorded since step '{run.step}' put its question",
                "The run is unchanged. Ask the user the question of the step and end your "
                "turn; once they have answered, run the command of the option they chose")
    return None


def unanswered_stateless(workflow: str, step: str) -> tuple[str, str] | None:
    """`unanswered` for a stateless run, which has no id: the question is the latest the
    hooks saw this session's workflow put at `step`. Binding where the hooks are installed and
    the step runs in a Claude Code session."""
    from ..base.errors import LedgerError
    from .evidence import read_only, stateless_key

    session = os.environ.get("CLAUDE_CODE_SESSION_ID")
    installed = hook_settings(project_root())
    if installed is None or not session:
        return None
    seen, spoke = None, None
    try:
        store = read_only()
        if store is not None:
            with store:
                rows = store.questions(stateless_key(session, workflow))
                seen = next((t for _, s, _, t in rows if s == step), None)
                spoke = store.last_turn(session)
    except LedgerError:
        pass
    if seen is None:
        return (f"the hooks ({installed}) did not see step '{step}' put its question in this "
                "session", "Show the step again (run the command that printed it), ask the "
                "user its question and end your turn")
    if spoke is None or spoke <= seen:
        return (f"no user turn was recorded since step '{step}' put its question",
                "Ask the user the question of the step and end your turn; once they have "
                "answered, run the command of the option they chose")
    return None


def skipped(run: Run) -> tuple[str, str] | None:
    """(what is wrong, how to go on) when the run has moved past a question the hooks saw put
    to the user although the user has not spoken since (only a hand-made change to the run
    ledger moves it so); None otherwise."""
    found = _evidence(run)
    if found is None:
        return None
    _, questions, spoke = found
    for hops, step, at in questions:
        if hops < run.hops and (spoke is None or spoke <= at):
            return (f"run {run.id} moved past step '{step}' without the user's answer to its "
                    "question: the run ledger was changed outside skillrail",
                    f"Abandon the run (`skillrail abandon {run.id}`) and start again; the "
                    f"trace shows what happened (`skillrail trace {run.id}`)")
    return None


def _evidence(run: Run) -> tuple[str, list[tuple[int, str, float]], float | None] | None:
    """(the settings file that installs the hooks, the run's questions the hooks saw as
    (position, step, when), the user's last turn in any session that counts) where the gate is
    binding; None where it is advisory."""
    installed = hook_settings(run.workspace)
    if installed is None:
        return None
    from ..base.errors import LedgerError
    from .evidence import read_only

    questions: list[tuple[int, str, str, float]] = []
    turns: list[float | None] = []
    try:
        store = read_only()
        if store is not None:
            with store:
                questions = store.questions(run.id)
                sessions = {s for _, _, s, _ in questions} | {run.session} - {None}
                turns = [store.last_turn(s) for s in sessions if s]
    except LedgerError:
        pass  # unreadable evidence proves nothing: the gate stays shut
    if not questions and not run.session:
        return None  # no session ever saw this run: a person ran it, not an agent
    spoke = max((t for t in turns if t is not None), default=None)
    return installed, [(h, st, t) for h, st, _, t in questions], spoke
