"""What the hooks record as evidence for the ask_user gate (askgate.py), in the evidence store
the agent cannot write: the user's turns (UserPromptSubmit, and an answer the user gave in
AskUserQuestion); what step commands printed is watch.py's. A prompt Claude Code makes up
itself (a background sub-agent's `<task-notification>`) is no user turn; it goes into the trace
as such."""

from __future__ import annotations

from ..ledger.sessions import audit
from .payload import Payload
from .state import open_ledger, seen_in

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import Any

    from ..guard.standing import Approval

    #: A hook's answer: its JSON object, or None to say nothing.
    Output = dict[str, Any] | None

#: How much of a user's prompt the run's audit keeps.
MAX_TURN_TEXT = 2_000


def user_turn(p: Payload) -> Output:
    if p.prompt.lstrip().startswith("<task-notification>"):
        # Claude Code's own message that a background sub-agent finished: no user spoke.
        ledger = open_ledger()
        if ledger is not None:
            with ledger:
                audit(ledger, p.session, "not-a-user-turn", p.prompt[:200], seen_in(p.session))
        return None
    from ..guard.evidence import Evidence
    from ..guard.standing import in_prompt

    # Only a prompt the user typed approves: an AskUserQuestion answer comes here too, with
    # its question, which the model wrote.
    said = p.event in ("UserPromptSubmit", "UserPromptExpansion")
    typed = said and "--approve" in p.prompt
    approvals, problems = in_prompt(p.prompt) if typed else ([], [])
    with Evidence() as store:  # the gate's evidence first: the audit below is only a copy
        store.record_turn(p.session, approvals, p.prompt[:MAX_TURN_TEXT] if said else None)
    ledger = open_ledger(create=True)  # the first prompt may come before the first run
    if ledger is not None:
        with ledger:
            audit(ledger, p.session, "user-turn", p.prompt[:MAX_TURN_TEXT], seen_in(p.session))
    return _approvals_told(approvals, problems)


def _approvals_told(approvals: list[Approval], problems: list[str]) -> Output:
    """What the user is told (systemMessage) of the approvals given in advance a prompt holds;
    None when it holds none. The agent learns of one at the step it answers."""
    if not approvals and not problems:
        return None
    import time

    said = []
    for a in approvals:
        scope = "every question it lets be approved" if a.scope == "all" else f"'{a.scope}'"
        said.append(f"approved in advance {scope}" + (f" of /{a.skill}" if a.skill else "")
                    + (f", if {a.condition}" if a.condition else "")
                    + (f", until {time.strftime('%Y-%m-%d %H:%M', time.localtime(a.until))}"
                       if a.until else ", until your next message"))
    told = "; ".join(["skillrail: " + s for s in said]
                     + [f"skillrail could not read {p}" for p in problems])
    return {"systemMessage": told}


def after_tool(p: Payload) -> Output:
    """PostToolUse: an answer the user gave in AskUserQuestion, or the step documents a Bash
    command printed (watch.py)."""
    if p.tool == "AskUserQuestion":
        return _answered(p)
    if p.tool == "Bash":
        from .watch import step_printed

        step_printed(p)
    return None


def _answered(p: Payload) -> Output:
    """The user answered an AskUserQuestion: a user turn as well. Only the answers Claude Code
    reports in the tool's response count: the tool's input is the model's own writing, and
    may carry `answers` of its making. An empty or '.' answer comes from a call nobody
    answered."""
    source = p.tool_response
    answers = source.get("answers") if isinstance(source, dict) else None
    pairs = [(str(q), a) for q, a in (answers.items() if isinstance(answers, dict) else ())
             if isinstance(a, str) and a.strip() not in ("", ".")]
    if pairs:
        text = "answered in AskUserQuestion: " + "; ".join(f"{q} -> {a}" for q, a in pairs)
        user_turn(p._replace(prompt=text))
    return None
