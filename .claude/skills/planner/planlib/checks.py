"""The plan's check: the one command that shows the change works (the project's test suite),
which the executor runs itself, through the gateway, so "the tests pass" rests on the command's
exit status, not on an agent's word. A check the project's policy does not allow runs only when
the user approved the plan with it: the planner's seal step keeps the approval in its run's
ledger, and the executor reads it from there, never from the plan file alone."""

from __future__ import annotations

import json
import os

from skills.lib.workflow import Action, Rework, StepContext, StepDef, decides
from skills.lib.workflow.graph.model import STEP_STATE, VERIFY_OUTPUT
from skills.planner.planlib.steps import plan_file, sample_plan

#: The planner's skill folder: the checks run as its commands, under the project's policy.
SKILL_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def check_verdicts(checks: list[str]) -> list[tuple[str, str | None, bool]]:
    """Per check command: (command, why it can never run, whether the user must approve it)."""
    from skills.lib.workflow.authoring.substitution import variables
    from skills.lib.workflow.guard.approval import filler, verdict
    from skills.lib.workflow.guard.gatepolicy import load_policy

    policy = load_policy(SKILL_DIR, os.path.realpath(os.getcwd()))
    fill = filler(variables(SKILL_DIR, None))
    found = []
    for command in checks:
        refusal, approve = verdict(command, policy, fill)
        found.append((command, refusal.what if refusal else None, approve))
    return found


def check_problems(checks: list[str]) -> str:
    """What is wrong with the plan's checks ('' when nothing)."""
    return "; ".join(f"check '{c}': {why}" for c, why, _ in check_verdicts(checks) if why)


def checks_to_approve(checks: list[str]) -> list[str]:
    """The plan's checks that run only once the user approves them."""
    return [c for c, why, approve in check_verdicts(checks) if approve and why is None]


def plan_command(ctx: StepContext) -> str:
    """The approved plan's check, or '' when it names none."""
    try:
        with open(plan_file(ctx), encoding="utf-8") as handle:
            check = json.load(handle).get("check", "")
    except (OSError, ValueError, AttributeError):
        return ""
    return check if isinstance(check, str) else ""


def approved_for_run(ctx: StepContext) -> tuple[str, ...]:
    """The commands the user approved beyond the policy, as the approving run's ledger holds
    them, when the plan file says the same; otherwise none (the check is then refused)."""
    from skills.lib.workflow.ledger.store import Ledger

    try:
        with open(plan_file(ctx), encoding="utf-8") as handle:
            plan = json.load(handle)
        by, said = str(plan.get("approved_by") or ""), plan.get("approved_commands") or []
    except (OSError, ValueError, AttributeError):
        return ()
    with Ledger() as ledger:
        run = ledger.run(by) if by else None
    kept = json.loads(run.memory.get(STEP_STATE + "seal", "{}")) if run is not None else {}
    return tuple(said) if kept.get("approved_commands") == said else ()


@decides("run", "none")
def _has_check(ctx: StepContext) -> str:
    return "run" if plan_command(ctx) else "none"


def _prepare_check(ctx: StepContext, outcome: str) -> None:
    """For simulation: an approved plan whose check passes or fails, or names none."""
    plan = sample_plan(approved=True)
    script = "${SKILL_DIR}/scripts/explore.py"
    plan["check"] = {"run": f"python3 {script} --help", "ok": f"python3 {script} --help",
                     "fail": f"python3 {script} --step none"}.get(outcome, "")
    os.makedirs(os.path.dirname(plan_file(ctx)), exist_ok=True)
    with open(plan_file(ctx), "w", encoding="utf-8") as handle:
        json.dump(plan, handle)


def check_steps(then: str, tries: int) -> list[StepDef]:
    """has-check -> run-check (its exit status decides) -> fix-check, at most `tries` runs of
    the check, then on to `then` either way (the review that follows sees what failed)."""
    return [
        StepDef("has-check", "See whether the plan names a check", handler=_has_check,
                actions=[Action(lambda ctx: f"The plan's check: {plan_command(ctx)}"
                                if plan_command(ctx) else "The plan names no check.")],
                next={"run": "run-check", "none": then}, prepare=_prepare_check),
        StepDef("run-check", "Run the plan's check", verify=plan_command,
                next={"ok": then, "fail": "fix-check"}, prepare=_prepare_check),
        StepDef("fix-check", "Fix what the plan's check found", reads=(VERIFY_OUTPUT,),
                actions=["The plan's check failed; its output is above. Fix the cause in the "
                         "plan's files, as the milestones intended. Do not weaken the check or "
                         "its tests to make it pass."],
                next={"ok": Rework("run-check", tries, then)})]
