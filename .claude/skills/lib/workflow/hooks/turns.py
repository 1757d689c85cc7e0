"""What the hooks record as evidence for the ask_user gate (askgate.py), in the evidence store
the agent cannot write: the user's turns (UserPromptSubmit, and an answer given in
AskUserQuestion), and the moment a step command printed an `<ask_user>` step (PostToolUse on
Bash), with the session it was printed in. A prompt Claude Code makes up itself (a background
sub-agent's `<task-notification>`) is no user turn; it goes into the trace as such."""

from __future__ import annotations

from typing import Any

from ..run.sessions import audit
from .payload import Payload
from .state import open_ledger

Output = dict[str, Any] | None
#: How much of a user's prompt the run's audit keeps.
MAX_TURN_TEXT = 2_000


def user_turn(p: Payload) -> Output:
    if p.prompt.lstrip().startswith("<task-notification>"):
        # Claude Code's own message that a background sub-agent finished: no user spoke.
        ledger = open_ledger()
        if ledger is not None:
            with ledger:
                audit(ledger, p.session, "not-a-user-turn", p.prompt[:200])
        return None
    from ..guard.evidence import Evidence

    with Evidence() as store:  # the gate's evidence first: the audit below is only a copy
        store.record_turn(p.session)
    ledger = open_ledger(create=True)  # the first prompt may come before the first run
    if ledger is not None:
        with ledger:
            audit(ledger, p.session, "user-turn", p.prompt[:MAX_TURN_TEXT])
    return None


def after_tool(p: Payload) -> Output:
    """PostToolUse: an answer the user gave in AskUserQuestion, or an ask_user step printed."""
    if p.tool == "AskUserQuestion":
        return _answered(p)
    if p.tool == "Bash":
        _question_put(p)
    return None


def _answered(p: Payload) -> Output:
    """The user answered an AskUserQuestion: a user turn as well. Only a real answer counts
    (an empty or '.' one comes from a tool call nobody answered)."""
    pairs = [(str(q), a) for source in (p.tool_response, p.tool_input)
             if isinstance(source, dict) and isinstance(source.get("answers"), dict)
             for q, a in source["answers"].items()
             if isinstance(a, str) and a.strip() not in ("", ".")]
    if pairs:
        text = "answered in AskUserQuestion: " + "; ".join(f"{q} -> {a}" for q, a in pairs)
        user_turn(p._replace(prompt=text))
    return None


def _question_put(p: Payload) -> None:
    """A step command printed an ask_user step: its question is before the user now. A run's
    question counts only where the ledger has the run at that step and position: text that
    merely looks like a step (an `echo`, a saved output) cannot put a question early."""
    from ..guard.evidence import Evidence

    out = p.tool_response.get("stdout") if isinstance(p.tool_response, dict) else None
    found = asked(out) if isinstance(out, str) else None
    if found is None:
        return
    run, hops, workflow, step = found
    if run is not None and (hops is None or not _at(run, hops, step)):
        return
    with Evidence() as store:
        if run is None:  # the latest sighting counts here: an early one cannot help
            store.saw_stateless_question(workflow, step, p.session)
        else:
            store.saw_question(run, hops or 0, step, p.session)


def _at(run_id: str, hops: int, step: str) -> bool:
    """Whether the ledger has run `run_id` active at `step`, position `hops`."""
    ledger = open_ledger()
    if ledger is None:
        return False
    with ledger:
        run = ledger.run(run_id)
    return run is not None and (run.status, run.step, run.hops) == ("active", step, hops)


def asked(output: str) -> tuple[str | None, int | None, str, str] | None:
    """(run, position, workflow, step) of a step document that asks the user, read from its
    text (it may be cut: the head holds what is needed); run and position are None for a
    stateless run. None when the text is no such document."""
    import re

    if "<ask_user" not in output:
        return None
    head = re.search(r"<step\s[^>]*>", output)
    if head is None:
        return None
    attrs = dict(re.findall(r'\b(\w+)="([^"]*)"', head.group()))
    if "id" not in attrs or "skill" not in attrs:
        return None
    at = re.search(r"--at(?:=|\s+)(\d+)", output)
    workflow: str = attrs.get("workflow") or attrs["skill"]
    return attrs.get("run"), int(at.group(1)) if at else None, workflow, attrs["id"]
