"""Where an invocation comes to rest: the step it prints. A script-decided step is not printed
on its way (PROTOCOL.md section 3): the runner records its decision, follows the edge the script
chose, and goes on until a step needs the agent or the user, or the run ends. The printed step
names each step passed through in a `<decided>` element, with the step's own actions as a note
(what the script found: a script-decided step's actions are written as such a note); the ledger
keeps every transition, so a run's history is the same as if the agent had run each command
itself.

A chain of such steps is bounded by the workflow's static bound on a run's length, like every
other move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..base.errors import ProtocolViolation
from ..graph.analysis import worst_case_steps
from ..graph.model import (
    FIX_BRIEF,
    STEP_STATE,
    VERIFY_OUTPUT,
    Action,
    StepContext,
    Workflow,
    render_text,
)
from ..protocol.view import DispatchView, StepView, Viewer
from .decision import decision
from .routing import Leg, leg

if TYPE_CHECKING:  # a stateless step never opens the ledger, and need not import sqlite3
    from ..guard.standing import Approval
    from ..ledger.store import Ledger, Run

#: The ledger event of a question an approval given in advance answered.
APPROVED_AHEAD = "approved-in-advance"
#: The ledger event, and the outcome a run nobody attends stops with at a question.
NEEDS_USER = "needs-user"


def passes_through(ctx: StepContext, decided: str | None) -> Leg | None:
    """The edge a script-decided step takes without being printed; None when the step is
    printed: the agent or the user decides, or the decided outcome ends the run (its closing
    text is the agent's to pass on)."""
    if decided is None:
        return None
    went = leg(ctx.step, decided, dict(ctx.counts))
    return went if went.target is not None else None


def check_bound(workflow: Workflow, hops: int, where: str) -> None:
    """Refuse a move past the workflow's static bound (a bug in skillrail if it ever fires)."""
    bound = worst_case_steps(workflow)
    if bound is not None and hops >= bound:
        raise ProtocolViolation(f"{where} has taken {hops} steps, the most this workflow "
                                "allows", f"skill '{workflow.skill}'",
                                "This is a bug in skillrail; abandon the run and report it")


def stateless_settle(ctx: StepContext, view: Viewer) -> StepView:
    """Without a ledger: pass through script-decided steps, the loop counters and values
    travelling on to the step printed (its commands carry them)."""
    folded: list[tuple[str, str, str]] = []
    decided, state = decision(ctx)
    while (went := passes_through(ctx, decided)) is not None:
        assert decided is not None and went.target is not None
        check_bound(ctx.workflow, len(folded) + 1, "this invocation")
        folded.append((ctx.step.id, decided, note(ctx)))
        values = _with_check(ctx, ctx.values)
        if state is not None:  # kept while this invocation passes through steps itself
            values = {**values, STEP_STATE + ctx.step.id: state}
        ctx = ctx._replace(step=ctx.workflow.by_id[went.target], counts=went.counts,
                           values=values, arrived=f"{ctx.step.id}:{decided}")
        decided, state = decision(ctx)
    return view(ctx, decided)._replace(decided=tuple(folded))


def settle(ledger: Ledger, workflow: Workflow, run: Run, view: Viewer, *, full: bool,
           fresh: frozenset[str] = frozenset()) -> StepView:
    """The view of the step the run comes to rest at. Handlers run outside any transaction
    (one may run a slow check; other runs must not wait); each decision is recorded, and its
    edge taken, in a transaction of its own, unless the run moved meanwhile. A run that ends
    at the printed step is marked completed."""
    folded: list[tuple[str, str, str]] = []
    while True:
        ctx = context(workflow, run, ledger.last_move(run.id), fresh, full)
        # A decision already recorded is not made again (its handler ran, its state is kept).
        decided, state = (run.decided, None) if run.decided else decision(ctx)
        ahead = None
        if decided is None and run.status == "active" and ctx.step.ask_user is not None:
            decided, ahead = approved_ahead(ctx, run) or (None, None)
        went = passes_through(ctx, decided) if run.status == "active" else None
        if went is None or decided is None:
            break
        moved = _pass(ledger, workflow, run, ctx, decided, went, state, ahead)
        if moved is None:  # another invocation moved the run: show the step as it was
            break
        folded.append((run.step, decided, note(ctx) if ahead is None else ahead.decided()))
        run = moved
    shown = view(ctx, decided)._replace(decided=tuple(folded))
    _record(ledger, run, ctx, decided if run.decided is None else None, state,
            finish=shown.complete is not None and run.status == "active")
    _hand_fix_on(ledger, run, shown)
    if shown.complete is not None:
        shown = shown._replace(complete=shown.complete + _answered_ahead_note(ledger, run.id))
    if decided is None and run.status == "active" and ctx.step.ask_user is not None:
        shown = _asking(ledger, workflow, run, ctx, shown)  # its <complete> ends no run
    return shown


def note(ctx: StepContext) -> str:
    """What a step passed through says of its decision: its actions, as one line; a `verify=`
    step's also says how its check ended (`[exit 1]`), and only that when the check did not
    run (the skill untrusted, the command refused), since the author's note would not hold."""
    texts = [render_text(a.text if isinstance(a, Action) else a, ctx) for a in ctx.step.actions]
    if ctx.step.verify:
        from .verify import ended

        ran, line = ended(ctx)
        texts = [*texts, line] if ran else [line]
    return " ".join(t.strip() for t in texts if t.strip())


def context(workflow: Workflow, run: Run, arrived: str | None = None,
            fresh: frozenset[str] = frozenset(), full: bool = True) -> StepContext:
    return StepContext(workflow, workflow.by_id[run.step], run.params, run.memory, run.counts,
                       run.id, run.hops, arrived, fresh, full)


def _pass(ledger: Ledger, workflow: Workflow, run: Run, ctx: StepContext, decided: str,
          went: Leg, state: str | None, ahead: Approval | None = None) -> Run | None:
    """Take the decided edge of a step passed through (`ahead`: the approval given in advance
    that answered its question); the run as it is afterwards."""
    assert went.target is not None
    check_bound(workflow, run.hops, f"run {run.id}")
    with ledger.transaction():
        now = ledger.run(run.id)
        if now is None or (now.step, now.hops, now.status) != (run.step, run.hops, "active"):
            return None
        _remember_decision(ledger, ctx, state)
        ledger.advance(now, decided, went.target, {}, went.counts)
        if ahead is not None:
            answered_ahead(ledger, now, decided, ahead)
    return ledger.run(run.id)


def _asking(ledger: Ledger, workflow: Workflow, run: Run, ctx: StepContext,
            shown: StepView) -> StepView:
    """The view of a question the run comes to rest at: approved in advance on a condition,
    the agent checks it; in a run nobody attends, the run stops and says it needs the user."""
    from ..guard.askgate import unattended
    from .render import approved_on_condition, asked_anyway, needs_user, relayed

    on_condition = approved_ahead(ctx, run, conditional=True)
    if on_condition is not None:
        return approved_on_condition(shown, *on_condition)
    if not unattended():
        ask = ctx.step.ask_user
        outcome = ask.advance(ctx) if ask is not None else None
        if outcome is None:  # approvable at other visits, not at this one: say so
            return shown if ask is None or ask.in_advance is None else asked_anyway(shown)
        return shown if _binding(run) else relayed(shown, outcome)
    from ..ledger.sessions import paused, set_paused
    from .routing import resume_command

    with ledger.transaction():
        now = ledger.run(run.id)
        if now is not None and not paused(ledger, now):
            ledger.event(run.id, NEEDS_USER, f"step '{run.step}' waits for the user's answer")
            set_paused(ledger, run.id, True, f"{NEEDS_USER} at {run.step}")
    return needs_user(shown, run.id, run.step, resume_command(workflow, run.id))


def _answered_ahead_note(ledger: Ledger, run_id: str) -> str:
    """For the run's last step: each question an approval the user gave in advance answered,
    for the agent to tell the user (nothing when there was none)."""
    rows = ledger.query("SELECT detail FROM events WHERE run = ? AND kind = ? ORDER BY at",
                        (run_id, APPROVED_AHEAD))
    if not rows:  # the common case, read without more: a run's last step is every run's
        return ""
    import json

    said = []
    for (detail,) in rows:
        try:
            answer = json.loads(detail)
            said.append(f"'{answer['step']}' ({answer['outcome']}: “{answer['words']}”)")
        except (ValueError, KeyError, TypeError):
            continue
    if not said:
        return ""
    return (" Tell the user which questions their approval given in advance answered: "
            + "; ".join(said) + ".")


def approved_ahead(ctx: StepContext, run: Run, conditional: bool = False
                   ) -> tuple[str, Approval] | None:
    """(the option, the approval) when an approval the user gave in advance answers the
    question at `ctx.step` now: without a condition (`conditional`: only with one, which the
    agent must say holds); None when the question is to be asked."""
    ask = ctx.step.ask_user
    if ask is None or ask.in_advance is None or run.id is None:
        return None
    outcome = ask.advance(ctx)
    if outcome is None:
        return None
    from ..guard.askgate import standing_approval

    found = standing_approval(run, ask.kind, _binding(run))
    if found is None or bool(found.condition) != conditional:
        return None
    return outcome, found


def _binding(run: Run) -> bool:
    from ..guard.askgate import verdict
    from ..ledger.workspace import folder_of

    return verdict(folder_of(run.workspace, run.folder), run).binding


def answered_ahead(ledger: Ledger, run: Run, outcome: str, ahead: Approval) -> None:
    """Put in the run's history that an approval given in advance answered its question at
    step `run.step` (the trace, `stats` and the report list these)."""
    import json

    ledger.event(run.id, APPROVED_AHEAD, json.dumps(
        {"step": run.step, "outcome": outcome, "words": ahead.words,
         "condition": ahead.condition, "source": ahead.source}, ensure_ascii=False))


def _record(ledger: Ledger, run: Run, ctx: StepContext, decided: str | None,
            state: str | None, finish: bool) -> None:
    """Record the printed step's decision (its command must take it) and the end of a
    finished run, unless the run moved meanwhile."""
    if decided is None and not finish:
        return
    with ledger.transaction():
        now = ledger.run(run.id)
        if now is None or (now.step, now.hops) != (run.step, run.hops):
            return
        if decided is not None and now.decided is None:
            ledger.decide(run.id, decided)
            _remember_decision(ledger, ctx, state)
        if finish and now.status == "active":
            result = ctx.workflow.result(ctx) if ctx.workflow.result is not None else "success"
            ledger.set_status(run.id, "completed", f"ended at {run.step}", result)


def _hand_fix_on(ledger: Ledger, run: Run, shown: StepView) -> None:
    """A dispatch whose sub-run does a fix pass: what to fix is written at the printed step's
    position, where the sub-run started with --fix takes it (runs.py). Printed again, the step
    writes the same value again."""
    fixes = [item.fix for item in shown.do if isinstance(item, DispatchView) and item.fix]
    if not fixes or run.status != "active":
        return
    with ledger.transaction():
        now = ledger.run(run.id)
        if now is not None and (now.step, now.hops) == (run.step, run.hops):
            ledger.remember(run.id, run.hops, run.step, FIX_BRIEF, fixes[0])


def _remember_decision(ledger: Ledger, ctx: StepContext, state: str | None) -> None:
    """What the script found when it decided, written at the position of the move that leaves
    the step: a verify step's check output (for the fix step), a handler's step state (for its
    next call)."""
    from .verify import output_to_remember

    if ctx.run is None:
        return
    output = output_to_remember(ctx)
    if output is not None:
        ledger.remember(ctx.run, ctx.hops, ctx.step.id, VERIFY_OUTPUT, output)
    if state is not None:
        ledger.remember(ctx.run, ctx.hops, ctx.step.id, STEP_STATE + ctx.step.id, state)


def _with_check(ctx: StepContext, values: Mapping[str, str]) -> Mapping[str, str]:
    """Stateless: the values with a verify step's check output added, for the fix step."""
    from .verify import output_to_remember

    output = output_to_remember(ctx)
    return values if output is None else {**values, VERIFY_OUTPUT: output}
