"""What the ledger knows about agent sessions (a Claude Code session id, `CLAUDE_CODE_SESSION_ID`,
set in Bash and hook processes alike): which run a session or sub-agent is in, when the user last
spoke, and whether a run is paused. The hooks (hooks/) write and read these; the ask_user gate of
`runs.py` reads them.

Decisions kept here, so hooks and step scripts agree:
- The run of a session's main agent is its newest active run without a parent.
- A sub-agent (`agent_id` in a hook payload) works in the sub-run it was bound to (the hook binds
  it when the sub-agent runs a step command carrying `--run`); before that, in the newest active
  sub-run of the session that no other sub-agent is bound to. Parallel sub-agents can be
  mistaken for one another only until their first `--run` command.
- The user's turns are evidence for the ask_user gate, so they are kept in the evidence store
  (evidence.py), which the agent cannot write; the ledger keeps their text as `user-turn`
  events of the session's active runs, for the audit.
- A run is paused when its latest pause event is newer than its latest move and any unpause:
  its next step command ends the pause without writing anything.
"""

from __future__ import annotations

from collections.abc import Iterable

from .store import Ledger, Run

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Protocol

    class Started(Protocol):
        """What `arrived` reads of a run (a Run, or a listing's row)."""

        @property
        def id(self) -> str: ...
        @property
        def started(self) -> float: ...


def main_run(ledger: Ledger, session: str) -> Run | None:
    """The session's newest active run without a parent."""
    rows = ledger.query("SELECT id FROM runs WHERE session = ? AND status = 'active' AND "
                        "parent IS NULL ORDER BY started DESC LIMIT 1", (session,))
    return ledger.run(rows[0][0]) if rows else None


def agent_run(ledger: Ledger, session: str, agent: str) -> Run | None:
    """The active sub-run sub-agent `agent` works in (see the module's docstring)."""
    bound = ledger.query("SELECT run FROM agents WHERE session = ? AND agent = ?",
                         (session, agent))
    if bound:
        run = ledger.run(bound[0][0])
        return run if run is not None and run.status == "active" else None
    rows = ledger.query(
        "SELECT id FROM runs WHERE session = ? AND status = 'active' AND parent IS NOT NULL "
        "AND id NOT IN (SELECT run FROM agents WHERE session = ?) ORDER BY started DESC LIMIT 1",
        (session, session))
    return ledger.run(rows[0][0]) if rows else None


def bind_agent(ledger: Ledger, session: str, agent: str, run_id: str) -> bool:
    """Bind sub-agent `agent` to its sub-run `run_id` when that is an active sub-run of the
    session; True when it is (bound now or before)."""
    rows = ledger.query("SELECT 1 FROM runs WHERE id = ? AND session = ? AND status = 'active' "
                        "AND parent IS NOT NULL", (run_id, session))
    if not rows:
        return False
    if ledger.query("SELECT 1 FROM agents WHERE session = ? AND agent = ? AND run = ?",
                    (session, agent, run_id)):
        return True
    with ledger.transaction() as db:
        db.execute("INSERT OR REPLACE INTO agents VALUES (?,?,?)", (session, agent, run_id))
    return True


def audit(ledger: Ledger, session: str, kind: str, text: str,
          seen: Iterable[str] = ()) -> None:
    """An event of every active run of `session` (a user turn's text, a refused attempt), and
    of the active runs of `seen` that name no session (the runs the hooks saw in it, where the
    client names no session to the agent's shell: Codex, Gemini CLI)."""
    seen = list(seen)
    with ledger.transaction() as db:
        rows = db.execute("SELECT id FROM runs WHERE session = ? AND status = 'active'",
                          (session,)).fetchall()
        if seen:
            marks = ",".join("?" * len(seen))
            rows += db.execute(f"SELECT id FROM runs WHERE id IN ({marks}) AND session IS NULL "
                               "AND status = 'active'", tuple(seen)).fetchall()
        for (run_id,) in rows:
            ledger.event(run_id, kind, text)


def arrived(ledger: Ledger, run: Started) -> float:
    """When `run` reached its current step: the time of its last move, else its start. The
    invocation that made the move printed the step, so for an ask_user step this is when the
    question was put."""
    rows = ledger.query("SELECT MAX(at) FROM transitions WHERE run = ?", (run.id,))
    return float(rows[0][0]) if rows and rows[0][0] is not None else run.started


def paused(ledger: Ledger, run: Run) -> bool:
    """Whether `run` is paused (see the module's docstring)."""
    return pause_reason(ledger, run) is not None


def pause_reason(ledger: Ledger, run: Started) -> str | None:
    """Why `run` is paused ('needs-user at STEP': a run nobody attends stopped at a question),
    or None when it is not."""
    rows = ledger.query("SELECT kind, at, detail FROM events WHERE run = ? AND kind IN ("
                        "'pause', 'unpause') ORDER BY at DESC, rowid DESC LIMIT 1", (run.id,))
    if rows and rows[0][0] == "pause" and rows[0][1] > arrived(ledger, run):
        return str(rows[0][2])
    return None


def set_paused(ledger: Ledger, run_id: str, pause: bool, why: str) -> None:
    """Record a pause or its end (inside the caller's transaction)."""
    ledger.event(run_id, "pause" if pause else "unpause", why)
