"""Steps inside a run: start one, check and advance it, reprint where it stands. The ledger
remembers; this module decides what an invocation may do to a run (PROTOCOL.md sections 2, 6).

Every check and the advance happen in one `BEGIN IMMEDIATE` transaction: a refused or failed
invocation leaves the run exactly as it was, and two agents racing on one run serialize. Where
the run comes to rest, and the script-decided steps it passes through on the way, are
`settle`'s: their handlers run after that transaction, outside any lock.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..base.errors import LedgerError, ProtocolViolation, UsageError
from ..base.paths import project_root
from ..graph.analysis import fingerprint
from ..graph.model import (
    FIX_BRIEF,
    FIX_FINDINGS,
    RUN_BY,
    SELF_DONE,
    USER_WORDS,
    VERIFY_OUTPUT,
    StepDef,
    Workflow,
)
from ..ledger.store import Ledger, Run, new_run_id
from ..ledger.workspace import folder_of, who, workspace_id
from ..protocol.view import StepView, Viewer
from .invocation import Invocation
from .routing import (
    PYTHON_EVENT,
    check_values,
    entry_command,
    invokes,
    leg,
    resume_command,
    script_path,
    skillrail_command,
)
from .settle import answered_ahead, check_bound, context, settle
from .shape import Shape, asked, forged
from .values import check_distinct

if TYPE_CHECKING:
    from ..guard.askgate import Asked
    from ..guard.standing import Approval


def start_run(ledger: Ledger, workflow: Workflow, inv: Invocation, view: Viewer) -> StepView:
    """A new run at the entry step."""
    from ..guard.askgate import gate_at_start

    step = workflow.by_id[workflow.entry]
    folder = project_root()
    gate = gate_at_start(folder)
    with ledger.transaction():
        if inv.parent is not None and not ledger.exists(inv.parent):
            raise UsageError(f"--parent {inv.parent} names no run in the ledger",
                             fix="Pass the run id of the orchestrator's run, or drop --parent")
        run_id = new_run_id(workflow.skill)
        while ledger.exists(run_id):
            run_id = new_run_id(workflow.skill)
        host, user = who()
        run = Run(
            id=run_id, skill=workflow.skill, workflow=workflow.name,
            script=script_path(workflow), fingerprint=fingerprint(workflow),
            workspace=workspace_id(folder),
            session=os.environ.get("CLAUDE_CODE_SESSION_ID"), params=dict(inv.params),
            status="active", parent=inv.parent, step=step.id, decided=None, hops=1,
            started=0.0, updated=0.0, counts={}, memory={},  # the ledger stamps the times
            host=host, who=user, folder=folder, gate=gate)
        ledger.create(run)
        ledger.event(run.id, PYTHON_EVENT, sys.executable)  # for status and resume
        if inv.by_self:
            _record_self_run(ledger, workflow, run)
        if inv.fix:
            _take_findings(ledger, run)
        words = _users_words(ledger, run)
        if words:
            ledger.remember(run.id, run.hops, run.step, USER_WORDS, words)
    if inv.by_self or inv.fix or words:  # the entry step reads what was remembered just now
        run = ledger.run(run.id) or run
    # A sub-run the orchestrator does itself: it has the rules in mind from its own run.
    return settle(ledger, workflow, run, view, full=not inv.by_self)


def _record_self_run(ledger: Ledger, workflow: Workflow, run: Run) -> None:
    """A sub-run the orchestrator does itself: marked in the sub-run (its steps can say so, a
    reviewer's report among them), and listed in the parent run for its final step."""
    parent = ledger.run(run.parent or "")
    assert parent is not None  # start_run checked it
    ledger.remember(run.id, run.hops, run.step, RUN_BY, "self")
    line = f"{workflow.name} (run {run.id})"
    done = parent.memory.get(SELF_DONE)
    ledger.remember(parent.id, parent.hops, parent.step, SELF_DONE,
                    f"{done}\n{line}" if done else line)
    ledger.event(parent.id, "self-run", f"{line}: done by the orchestrator itself")


def _users_words(ledger: Ledger, run: Run) -> str | None:
    """The request as the user typed it: a sub-run's parent's; else what the hooks recorded
    the user last typed in this session (None without hooks or a session)."""
    if run.parent is not None:
        parent = ledger.run(run.parent)
        return parent.memory.get(USER_WORDS) if parent is not None else None
    if not run.session:
        return None
    from ..guard.evidence import read_only

    store = read_only()
    if store is None:
        return None
    try:
        with store:
            return store.prompt(run.session)
    except LedgerError:  # an unreadable store: the run goes on without the user's words
        return None


def _take_findings(ledger: Ledger, run: Run) -> None:
    """A fix pass's sub-run holds the findings its parent's step has it fix (FIX_FINDINGS),
    which that step wrote when it was printed (settle.py); none when the parent has moved on."""
    parent = ledger.run(run.parent or "")
    assert parent is not None  # start_run checked it
    written = [value for seq, key, step, value in ledger.memory_writes(parent.id)
               if key == FIX_BRIEF and (seq, step) == (parent.hops, parent.step)]
    if written:
        ledger.remember(run.id, run.hops, run.step, FIX_FINDINGS, written[-1])


def continue_run(ledger: Ledger, workflow: Workflow, inv: Invocation, view: Viewer) -> StepView:
    """Reprint the run's step, or follow one edge from it; refuse anything else."""
    assert inv.run is not None
    run = _load(ledger, workflow, inv.run)
    _check_params(run, inv)
    _check_untampered(ledger, workflow, run)
    if _is_reprint(workflow, run, inv):  # the agent lost its place: the rules in full
        if run.status == "abandoned":  # its step's commands would all be refused
            raise ProtocolViolation(
                f"run {run.id} was abandoned at step '{run.step}': it takes no more steps",
                f"skill '{workflow.skill}'", f"`{skillrail_command('trace', run.id)}` shows "
                "its history. To begin again, start a new run with:",
                [entry_command(workflow, run.params, inv.format)])
        return settle(ledger, workflow, run, view, full=True)
    with ledger.transaction():
        run = _load(ledger, workflow, inv.run)  # again, under the lock: it may have moved
        # The very command that led here, run again (its output lost, or a second agent
        # racing with the same values): show where it led and change nothing.
        repeat = _is_repeat(ledger, workflow, run, inv)
        refusal = None if repeat else _move(ledger, workflow, run, inv)
    if refusal is not None:  # outside the transaction: the event stays, the run does not move
        with ledger.transaction():
            ledger.event(run.id, "refused", f"an answer to '{run.step}': {refusal[0]}")
        raise ProtocolViolation(refusal[0], f"run {run.id}", refusal[1], _legal(workflow, run))
    return settle(ledger, workflow, _load(ledger, workflow, run.id), view, full=repeat,
                  fresh=frozenset(inv.values))


def _move(ledger: Ledger, workflow: Workflow, run: Run,
          inv: Invocation) -> tuple[str, str] | None:
    """Follow the invocation's edge (inside the caller's transaction); the ask_user gate's
    refusal instead, when it holds the run back."""
    if run.status != "active":
        raise ProtocolViolation(f"run {run.id} is {run.status}", f"skill '{workflow.skill}'",
                                "Start a new run with:",
                                [entry_command(workflow, run.params, inv.format)])
    target, outcome = _check_transition(workflow, run, inv)
    check_distinct(workflow.by_id[run.step].args_for(outcome), inv.values,
                   lambda key: ledger.recorded(run.id, key))
    refusal, ahead = _unanswered(workflow, run, outcome, inv.values)
    if refusal is None:
        counts = leg(workflow.by_id[run.step], outcome, run.counts).counts
        ledger.advance(run, outcome, target, dict(inv.values), counts)
        if ahead is not None:
            answered_ahead(ledger, run, outcome, ahead)
    return refusal


def _load(ledger: Ledger, workflow: Workflow, run_id: str) -> Run:
    run = ledger.run(run_id)
    if run is None:
        raise UsageError(f"no run '{run_id}' in the ledger {ledger.path}",
                         fix=f"`{skillrail_command('runs')}` lists the runs; start a new one "
                             f"with --step {workflow.entry}")
    if run.workflow != workflow.name:
        raise UsageError(f"run {run_id} belongs to workflow '{run.workflow}', not "
                         f"'{workflow.name}'",
                         fix=f"Resume it with `{skillrail_command('resume', run_id)}`")
    if run.fingerprint != fingerprint(workflow):
        changed = f"workflow '{workflow.name}' changed since run {run_id} began"
        if run.status != "active":  # nothing to end: abandon would refuse it
            raise ProtocolViolation(
                f"{changed}, and the run is {run.status}", f"run {run_id}",
                f"Nothing is left to do with it (`{skillrail_command('trace', run_id)}` shows "
                "its history). To begin again, start a new run with:",
                [entry_command(workflow, run.params, "xml")])
        raise ProtocolViolation(
            changed, f"run {run_id}",
            f"Abandon it ({skillrail_command('abandon', run_id)}) and start a new run with:",
            [entry_command(workflow, run.params, "xml")])
    return run


def _check_params(run: Run, inv: Invocation) -> None:
    """A param given again must repeat the run's value (a default is not given)."""
    for name in inv.given_params:
        if run.params.get(name) != inv.params[name]:
            raise UsageError(f"--{name} differs from the value run {run.id} started with",
                             fix="Params are fixed for a run; drop the flag, or start a new run")


def _is_reprint(workflow: Workflow, run: Run, inv: Invocation) -> bool:
    """--resume, or the current step named without an outcome or values: reprint, change
    nothing. A command that led here, run again, is not taken for a retry: on a loop it is a
    new pass, and a guess either way would make an agent's loop ambiguous."""
    if inv.resume:
        return True
    return (inv.step is not None and workflow.step(inv.step).id == run.step
            and inv.outcome is None and not inv.values)


def _is_repeat(ledger: Ledger, workflow: Workflow, run: Run, inv: Invocation) -> bool:
    """Whether `inv` (printed at run position --at) is the command that made the run's last
    move, with the same values. A command from any other earlier position is stale: refused."""
    if inv.at is None or inv.at == run.hops:
        return False
    # The move the command made, and the script-decided steps the run passed through after it.
    moves = [m for m in ledger.transitions(run.id) if m[0] >= inv.at]
    if (moves and moves[0][0] == inv.at and inv.step is not None
            and all(_scripted(workflow, m[1]) for m in moves[1:])):
        seq, _, outcome, target, _ = moves[0]
        written = ledger.memory_at(run.id, seq)
        written.pop(VERIFY_OUTPUT, None)  # the script's, not the command's
        if (workflow.step(inv.step).id == target and inv.outcome in (None, outcome)
                and written == dict(inv.values)):
            return True
    raise _stale(workflow, run, inv.at, inv.format)


def _stale(workflow: Workflow, run: Run, at: int, fmt: str) -> ProtocolViolation:
    """The refusal of a command printed at another position of the run than its last: one
    from before (stale), or one no position of the run printed (an --at past its moves)."""
    moves = f"{run.hops} move{'s' * (run.hops != 1)}"
    if at > run.hops:
        what = (f"this command was not printed by run {run.id}: its --at {at} is past the "
                f"{moves} the run has made (a wrong or edited --at)")
    else:
        what = (f"this command was printed earlier in run {run.id}, after move {at} of the "
                f"{moves} it has made: another command (yours or a teammate's) moved it on")
    if run.status != "active":
        return ProtocolViolation(
            f"{what}, and the run is {run.status} (at step '{run.step}'): it takes no more "
            "moves", f"skill '{workflow.skill}'",
            "The run is unchanged. To begin again, start a new run with:",
            [entry_command(workflow, run.params, fmt)])
    return ProtocolViolation(
        f"{what}; the run is at step '{run.step}'", f"skill '{workflow.skill}'",
        "The run is unchanged. Run commands as they were printed; to see the step the run is "
        "at and its next commands, run:", [resume_command(workflow, run.id)])


def _scripted(workflow: Workflow, step_id: str) -> bool:
    step = workflow.by_id.get(step_id)
    return step is not None and step.decided_by == "script"


def _check_transition(workflow: Workflow, run: Run, inv: Invocation) -> tuple[str, str]:
    """The (target, outcome) of a legal edge from the run's step, or ProtocolViolation."""
    source = workflow.by_id[run.step]
    target = workflow.step(inv.step or "")
    if source.decided_by == "script" and run.decided is None:
        raise ProtocolViolation(f"step '{source.id}' has not recorded its decision yet",
                                f"run {run.id}", "Run this to see the step and its command:",
                                [resume_command(workflow, run.id)])
    outcome = inv.outcome
    if outcome is None and len(source.next) == 1:
        outcome = next(iter(source.next))
    legal = (outcome is not None and outcome in source.next
             and leg(source, outcome, run.counts).target == target.id
             and run.decided in (None, outcome))
    if not legal or outcome is None:
        if target.id == source.id:  # most likely the command that led here, run again
            raise ProtocolViolation(
                f"run {run.id} is already at step '{target.id}'", f"skill '{workflow.skill}'",
                "The run is unchanged. To see the step again, run:",
                [resume_command(workflow, run.id)])
        raise ProtocolViolation(
            _why_illegal(source, target, outcome, run), f"run {run.id}",
            "The run is unchanged. The first command below shows the step it is at and what "
            "each next command needs; the others are those next commands",
            [resume_command(workflow, run.id), *_legal(workflow, run)])
    check_values(source, outcome, _without_condition(source, outcome, inv.values),
                 run.params)
    check_bound(workflow, run.hops, f"run {run.id}")
    return target.id, outcome


def _check_untampered(ledger: Ledger, workflow: Workflow, run: Run) -> None:
    """Refuse every step of a run whose ledger was changed outside skillrail, a reprint of a
    completed one included (its answer rests on the forged moves)."""
    if run.status == "abandoned":
        return
    found = forged(ledger, Shape.of(workflow), run)
    if found is not None:
        with ledger.transaction():
            ledger.event(run.id, "tampered", found)
        raise ProtocolViolation(f"{found}: the run ledger was changed outside skillrail",
                                f"skill '{workflow.skill}'", f"Tell the user. The run takes no "
                                f"more steps: `{skillrail_command('trace', run.id)}` shows "
                                f"what happened; `{skillrail_command('abandon', run.id)}` ends "
                                "it, and a new run starts afresh")


def _unanswered(workflow: Workflow, run: Run, outcome: str, values: Mapping[str, str]
                ) -> tuple[tuple[str, str] | None, Approval | None]:
    """At an ask_user step: why the answer may not count yet (askgate.py), or None; and the
    approval the user gave in advance that answers it, when one does rather than a turn."""
    step = workflow.by_id[run.step]
    if step.ask_user is None:
        return None, None
    from ..guard.askgate import unanswered, verdict

    folder = folder_of(run.workspace, run.folder)
    held = unanswered(run, folder)
    question = asked(step)
    if question.advance not in (outcome, "*") or (
            question.advance == "*" and step.ask_user.advance(context(workflow, run)) != outcome):
        return held, None
    if held is None:  # a turn answered it, or the gate is advisory: an approval may be relayed
        if verdict(folder, run).binding:
            return None, None
        return None, _ahead(run, question, False, values) or _relayed(run, question, values)
    refusal = unanswered(run, folder, question, outcome, values)
    return refusal, None if refusal is not None else _ahead(run, question, True, values)


def _relayed(run: Run, question: Asked, values: Mapping[str, str]) -> Approval | None:
    """The user's words the agent relayed (`USER_SAID`), where no hook could see them; refused
    when they approve another question, or set a condition the command does not answer."""
    from ..guard.standing import CONDITION_MET, USER_SAID, relayed

    said = values.get(USER_SAID, "").strip()
    if not said:
        return None
    where = f"step '{run.step}'"
    try:
        found = relayed(said, run.id, run.step, question.kind)
    except ValueError as exc:
        raise UsageError(f"--set {USER_SAID} is refused: {exc}", where,
                         "Quote the user's --approve words exactly, or ask the user") from None
    if found.condition and not values.get(CONDITION_MET, "").strip():
        raise UsageError(f"the user approved it on a condition ({found.condition})", where,
                         f"Add --set {CONDITION_MET}='how it holds'; if it does not, ask the "
                         "user")
    return found


def _ahead(run: Run, question: Asked, binding: bool, values: Mapping[str, str]
           ) -> Approval | None:
    from ..guard.askgate import standing_approval
    from ..guard.standing import CONDITION_MET

    found = standing_approval(run, question.kind, binding)
    if found is None or (found.condition and CONDITION_MET not in values):
        return None
    return found


def _without_condition(step: StepDef, outcome: str, values: Mapping[str, str]
                       ) -> Mapping[str, str]:
    """The values but CONDITION_MET and USER_SAID, which the option an approval given in
    advance chooses takes beside the step's args (the gate judges what they are worth)."""
    from ..guard.standing import CONDITION_MET, USER_SAID

    ask = step.ask_user
    if ask is None or ask.in_advance is None or (
            not callable(ask.in_advance) and ask.in_advance != outcome):
        return values
    return {k: v for k, v in values.items() if k not in (CONDITION_MET, USER_SAID)}


def _why_illegal(source: StepDef, target: StepDef, outcome: str | None, run: Run) -> str:
    if run.decided is not None and outcome != run.decided:
        return (f"step '{source.id}' was decided by the script as '{run.decided}'; "
                f"outcome '{outcome}' is not yours to choose")
    if outcome is not None and outcome not in source.next:
        return f"step '{source.id}' has no outcome '{outcome}'"
    return f"run {run.id} is at step '{source.id}'; '{target.id}' does not follow it here"


def run_python(ledger: Ledger, run_id: str) -> str | None:
    """The interpreter the run was started with (None for a run from before it was kept)."""
    return next((detail for _, kind, detail in ledger.events(run_id) if kind == PYTHON_EVENT),
                None)


def next_commands(workflow: Workflow, run: Run) -> list[str]:
    """The commands that move `run` on from its step, as the step prints them (for a run
    whose workflow's fingerprint is the run's); none while a script-decided step has not
    recorded its decision: its resume command decides."""
    if workflow.by_id[run.step].decided_by == "script" and run.decided is None:
        return []
    return _legal(workflow, run)


def _legal(workflow: Workflow, run: Run) -> list[str]:
    ctx = context(workflow, run)
    only = run.decided
    return [i.cmd for i in invokes(workflow, ctx, "xml", only)]


def open_ledger_or_warn(for_new_run: bool) -> Ledger | None:
    """The ledger; for a new run, None with a warning when it cannot be opened read-write (the
    step then runs stateless); for an existing run the error stands."""
    try:
        return Ledger()
    except LedgerError as exc:
        if not for_new_run:
            raise
        sys.stderr.write(f"warning: {exc.summary()}. Running stateless: state travels in the "
                         "printed commands.\n")
        return None
