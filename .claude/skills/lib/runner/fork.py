"""A forked plan run (`context: fork` in the skill's SKILL.md): the sealed plan runs in a
sub-agent of the type the skill names (`agent`, else general-purpose) on its model, as a sub-run
linked to the planning run, with half the skill's attempts (steps.budget). The sub-agent cannot
speak to the user, so it stops at the plan's first question and hands it back; the
orchestrator asks the user, goes on with that run itself, and reports the summary with the
command that traces the sub-run."""

from __future__ import annotations

from skills.lib.runner.build import NAME as PLAN_RUN
from skills.lib.runner.steps import plan_file
from skills.lib.runner.target import find_skill, skill_settings
from skills.lib.workflow import Action, Dispatch, StepDef
from skills.lib.workflow.graph.model import StepContext


def _settings(ctx: StepContext) -> tuple[str, str]:
    """(agent, model) the skill names for a forked run ('' for the model when it names none)."""
    settings = skill_settings(find_skill(ctx.params["skill"]) or ctx.params["skill"])[0]
    return settings.agent or "general-purpose", settings.model or ""


def fork_step() -> StepDef:
    return StepDef(
        "fork", "Run the plan in a sub-agent",
        dispatch=Dispatch(
            lambda ctx: _settings(ctx)[0], model=lambda ctx: _settings(ctx)[1],
            prompt="You run an approved plan of a skill. Follow the steps the command below "
                   "prints, to the end. When a step asks the user a question (an ask_user "
                   "element), stop there: you cannot reach the user. Reply with that question, "
                   "its options and the command for each, and the run id (the run attribute of "
                   "the step).",
            expect="the run id; then either the question the run stopped at, with its options "
                   "and their commands, or the last step's summary of what was met",
            script="scripts/run-plan.py", params={"plan": lambda ctx: plan_file(ctx.params)}),
        actions=["The approved plan runs in a sub-agent, as the skill's settings ask "
                 "(context: fork), in a run of its own linked to this one."],
        next={"ok": "forked"})


def forked_step() -> StepDef:
    return StepDef(
        "forked", "Finish the forked run", actions=[Action(_report, out="reply")],
        next={"ok": None}, complete="Planning is done; the plan's run ends when its own last "
                                    "step says so. Then give the user its summary, with the "
                                    "command that shows its history.")


def _report(ctx: StepContext) -> str:
    """What the orchestrator does with the sub-agent's reply, and the command that traces the
    sub-run."""
    from skills.lib.workflow.step.routing import skillrail_command

    run = _sub_run(ctx)
    trace = (f"`{skillrail_command('trace', run)}` shows that run's history" if run else
             "no sub-run of this run is in the ledger yet: "
             f"`{skillrail_command('status', '--all')}` lists the runs")
    return ("The plan's run is not over while it waits for the user: if the sub-agent stopped "
            "at a question (the plan's last question asks for feedback), ask the user exactly "
            "that question, wait for the answer, then run the command for their answer "
            "yourself and follow that run to its end. Then give the user the run's summary: "
            f"what was met and what not. Tell them {trace}.")


def _sub_run(ctx: StepContext) -> str | None:
    """The newest plan run started as a sub-run of this run, if any."""
    if ctx.run is None:
        return None
    from skills.lib.workflow.base.errors import LedgerError
    from skills.lib.workflow.ledger.store import Ledger

    try:
        with Ledger() as ledger:
            found = [r.id for r in ledger.sub_runs(ctx.run) if r.workflow == PLAN_RUN]
    except LedgerError:
        return None
    return found[-1] if found else None
