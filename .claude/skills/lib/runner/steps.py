"""What the skill-runner's planning steps show and check: the target skill as its agent would
see it, the plan file's check (run when the agent reports it, so a bad plan never moves the
run), the approval summary with what a run of the plan can take, and the seal."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from skills.lib.runner.target import (
    body,
    concrete_body,
    declared_tools,
    find_skill,
    skill_name,
    skill_retries,
    skill_settings,
    supporting_files,
    times,
)
from skills.lib.workflow.base.paths import project_root
from skills.lib.workflow.graph.model import StepContext

if TYPE_CHECKING:
    from skills.lib.workflow.authoring.execution import Settings

RUNNER_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
SKILL_DIR = os.path.join(RUNNER_DIR, "skill-runner")
RUN_PLAN = os.path.join(SKILL_DIR, "scripts", "run-plan.py")


def plan_file(params: Mapping[str, str]) -> str:
    return os.path.abspath(os.path.join(params.get("dir", ".skill-runner"), "plan.json"))


def max_steps(params: Mapping[str, str]) -> int:
    from skills.lib.runner.plan import DEFAULT_MAX_STEPS

    value = params.get("max-steps", "")
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_MAX_STEPS


def steps_problem(value: str) -> str | None:
    """The --max-steps check."""
    if value.isascii() and value.isdigit() and 1 <= int(value) <= 50:
        return None
    return f"'{value[:20]}' is not a whole number from 1 to 50"


def read_skill(ctx: StepContext) -> str:
    """The target skill: its concrete instructions, files, tools and learned history."""
    folder = find_skill(ctx.params["skill"]) or ctx.params["skill"]
    files = supporting_files(folder)
    tools = declared_tools(folder)
    return "\n\n".join([
        f"The skill to run: '{skill_name(folder)}' ({folder}). Its instructions, with the "
        "arguments and variables filled in and its commands' output shown:",
        "----- SKILL.md -----\n" + concrete_body(folder, ctx.params.get("args", ""), ctx.run)
        .strip() + "\n----- end of SKILL.md -----",
        *untrusted_note(folder),
        ("Its other files (read one when the instructions point to it): "
         + ", ".join(os.path.join(folder, f) for f in files)) if files
        else "It has no other files.",
        ("The tools it declares (allowed-tools): " + ", ".join(tools)) if tools
        else "It declares no allowed-tools: use what its instructions need." if tools == []
        else "Its allowed-tools could not be read (the Python package 'pyyaml' is missing).",
        history(skill_name(folder))])


def untrusted_note(folder: str) -> list[str]:
    """What to do when the skill's `` !`cmd` `` lines were not run because the user has not
    trusted it (nothing, when they ran or it has none)."""
    import re

    from skills.lib.workflow.authoring.substitution import INJECTION

    if not re.search(INJECTION, body(folder)):  # no command: trust is not asked (nor paid for)
        return []
    from skills.lib.workflow.guard.trust import untrusted

    if untrusted(folder) is None:
        return []
    return ["Its commands above were not run: the user has not trusted this skill. Do not run "
            "`skillrail trust` yourself. Where the instructions need a command's output, make "
            "running that command a step of your plan, so the user approves it with the plan, "
            "and tell the user they may instead read the skill and trust it themselves."]


def history(skill: str) -> str:
    """What earlier runs of `skill` taught, newest first and capped."""
    from skills.lib.workflow.base.errors import LedgerError
    from skills.lib.workflow.ledger.learned import SHOWN_CASES, cases, summary
    from skills.lib.workflow.ledger.store import Ledger

    try:
        with Ledger() as ledger:
            found = cases(ledger, skill, SHOWN_CASES + 1)
    except LedgerError as exc:
        return f"Its history could not be read ({exc.summary()})."
    if not found:
        return "No earlier run of this skill was recorded."
    return ("What earlier runs of this skill taught (newest first; plan with it: repeat what "
            "worked, avoid what failed, follow the feedback):\n" + summary(found))


def check_plan(value: str, params: Mapping[str, str]) -> str | None:
    """The PLAN_FILE check: every problem of the plan, or None."""
    from skills.lib.runner.plan import plan_problems

    expected = plan_file(params)
    if os.path.abspath(value) != expected:
        return f"the plan must be at {expected}, not {value}"
    folder = find_skill(params.get("skill", "")) or params.get("skill", "")
    problems = plan_problems(expected, max_steps(params), verify_problem,
                             budget(skill_settings(folder)[0]))
    return "; ".join(problems) if problems else None


def budget(settings: Settings) -> int:
    """The attempts a plan's run may make in all: the skill's max_iterations, half of it when
    the plan runs forked in a sub-agent (the rest is the parent's), never under 2."""
    return max(2, settings.max_iterations // 2 if settings.fork else settings.max_iterations)


def retries_of(folder: str, plan: Mapping[str, object]) -> int:
    """A plan step's retries: the skill's max_retries_per_tool when it sets it, else the
    plan's max_retries, else the skill's old `metadata: {max-retries: N}`, else 3."""
    from skills.lib.workflow.authoring.skillmd import read_frontmatter

    front = read_frontmatter(Path(folder, "SKILL.md")) or {}
    if "max_retries_per_tool" in front:
        return skill_settings(folder)[0].max_retries
    given = plan.get("max_retries")
    return given if isinstance(given, int) else (skill_retries(folder) or 3)


def verify_problem(command: str, earlier: set[str]) -> str | None:
    """What the gateway would refuse in a plan's verify command when it runs: the variables
    it may use are the known ones and the key outputs of earlier steps (a step's own are set
    only when it passes, after its check). A command only the policy's allow-list refuses is
    no problem: the approval lists it for the user (needs_approval)."""
    return _verdict(command, earlier)[0]


def needs_approval(command: str) -> bool:
    """Whether a (checked) verify command runs only once the user approves it."""
    return _verdict(command, set())[1]


def _verdict(command: str, earlier: set[str]) -> tuple[str | None, bool]:
    """(what is wrong with the command, whether it needs the user's approval)."""
    from skills.lib.workflow.authoring.substitution import variables
    from skills.lib.workflow.guard.approval import filler, verdict
    from skills.lib.workflow.guard.gatepolicy import load_policy

    # As at run time: the earlier steps' key outputs are set, any other name stays (refused).
    fill = filler({**variables(SKILL_DIR, None), **{k: "x" for k in earlier}})
    refusal, approve = verdict(command, load_policy(SKILL_DIR, project_root()),
                               fill)
    if refusal is not None and refusal.rule == "unknown-variable":
        return (f"{refusal.what}: a verify command may use ${{WORKSPACE}}, ${{SKILL_DIR}} and "
                "the key outputs of earlier steps"
                + (f" ({', '.join(sorted(earlier))})" if earlier else "")
                + "; a step's own key outputs are set only after its check"), False
    if refusal is not None and refusal.rule == "approval-not-literal":
        return (f"{refusal.what} (a check the user must approve is approved word for word, so "
                "it may use no run values, only ${WORKSPACE} and ${SKILL_DIR})"), False
    return (refusal.what if refusal is not None else None), approve


def approval_question(ctx: StepContext) -> str:
    """The plan in one line per step, and what a run of it can take: its plan steps, each
    attempted at most its retries before the user decides. (The static bound of the plan's
    workflow counts every path through the retry loops at once, far beyond any real run, so it
    stays the runtime's backstop and is not shown.)"""
    from skills.lib.runner.plan import read_json

    path = plan_file(ctx.params)
    plan, problem = read_json(path)
    if problem or not isinstance(plan, dict):  # the file changed since its check passed
        return (f"The plan cannot be shown ({problem or 'not a JSON object'}). Approve "
                "nothing: choose 'revise' and write the plan again.")
    folder = find_skill(ctx.params["skill"]) or ctx.params["skill"]
    lines = [f"Run the skill '{skill_name(folder)}' with this plan ({path})?",
             f"Directive: {plan['directive']}"]
    for n, step in enumerate(plan["steps"], 1):
        action = (f"tool call: {step['tool_call']}" if step.get("tool_call")
                  else f"text task: {step['text_task']}")
        must = "fail (its test is red)" if step.get("expect_failure") else "pass"
        check = f"; then `{_shown(step['verify'])}` must {must}" if step.get("verify") else ""
        lines.append(f"{n}. {step['title']} ({action}{check}). Passes when: "
                     f"{step['evaluator']}")
    settings = skill_settings(folder)[0]
    if plan.get("acceptance") and settings.early_termination:
        lines.append(f"After each step, `{_shown(plan['acceptance'])}` is run: once it passes, "
                     "the directive is met and the run ends.")
    if any(needs_approval(c) for c in checks(plan)):
        lines.append("Some of its checks are outside the project's command policy: the next "
                     "question asks about them, on their own.")
    lines.append(_bounds(len(plan["steps"]), retries_of(folder, plan), settings))
    return "\n".join(lines)


def approvable(ctx: StepContext) -> str | None:
    """The option an approval given in advance chooses at the plan's approval: 'approve', or
    None when the user must see the plan (it cannot be read). Checks outside the project's
    command policy are asked about on their own (commands_question), never in advance."""
    from skills.lib.runner.plan import read_json

    plan, problem = read_json(plan_file(ctx.params))
    return None if problem or not isinstance(plan, dict) else "approve"


def outside_policy(ctx: StepContext) -> list[str]:
    """The approved plan's checks that the project's command policy does not allow, as the
    user reads them."""
    from skills.lib.runner.plan import read_json

    plan, _ = read_json(plan_file(ctx.params))
    plan = plan if isinstance(plan, dict) else {}
    return sorted({_shown(c) for c in checks(plan) if needs_approval(c)})


def commands_to_allow(ctx: StepContext) -> str:
    """The commands step's handler: 'ask' when the plan has checks outside the policy (the user
    is asked to allow them, on their own), else 'none'."""
    return "ask" if outside_policy(ctx) else "none"


def commands_question(ctx: StepContext) -> str:
    """The question that widens the policy for one run, and nothing else: each command, word
    for word, and what allowing it means."""
    from skills.lib.workflow.guard.gatepolicy import project_tests

    listed = "; ".join(f"`{c}`" for c in outside_policy(ctx))
    hint = (" (The project's own tests need no such exception: a plan names them "
            "${PROJECT_TESTS}.)" if project_tests(project_root()) else "")
    return (f"The approved plan also runs commands the project's command policy does not "
            f"allow: {listed}. Let this run, and no other, run exactly these, each through "
            f"the gateway and its sandbox?{hint}")


def prepare_commands(ctx: StepContext, outcome: str) -> None:
    """For simulation: the plan with a check outside the policy ('ask'), or without one."""
    import json

    path = plan_file(ctx.params)
    with open(path, encoding="utf-8") as handle:
        plan = json.load(handle)
    steps = plan.get("steps") or [{}]
    steps[-1]["verify"] = ("python3 -m pytest -q" if outcome == "ask" else
                           "python3 ${SKILL_DIR}/scripts/_file_check.py TODO.md")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(plan, handle, indent=2)


def _bounds(steps: int, retries: int, settings: Settings) -> str:
    """What a run of the plan can take, in words the user can check: its plan steps, the
    retries of each, the attempts in all, and where it runs."""
    attempts = budget(settings)
    spare = attempts - steps
    said = (f"The run goes through these {times(steps, 'plan step')} in order, with at most "
            f"{times(attempts, 'attempt')} in all (a step's first try is one)")
    retried = times(min(spare, steps * retries), "retry", "retries")
    said += (": no step can be retried." if spare <= 0 else
             f", so at most {retried} in all; a step is retried up to "
             f"{times(retries, 'time')} before it is brought to you: try again with your "
             "guidance, skip it, or stop the run.")
    said += " A run that uses up its attempts ends with what it met and what not."
    if settings.fork:
        said += (f" It runs in a {settings.agent or 'general-purpose'} sub-agent"
                 + (f" ({settings.model})" if settings.model else "")
                 + ", with half the skill's attempts.")
    return said


def checks(plan: Mapping[str, object]) -> list[str]:
    """Every command the plan's run would run: each step's verify, and its acceptance check."""
    steps = plan.get("steps")
    found = [s["verify"] for s in steps if isinstance(s, dict) and isinstance(s.get("verify"),
                                                                              str)] \
        if isinstance(steps, list) else []
    accept = plan.get("acceptance")
    return found + ([accept] if isinstance(accept, str) else [])


def seal_plan(ctx: StepContext) -> tuple[str, dict[str, object]]:
    """The seal step's handler: the approved plan is sealed for its run. What the user
    approved beyond the policy is also kept in this run's ledger (the step state), out of the
    plan file's reach: the plan's run checks its approved commands against it."""
    from skills.lib.runner.plan import read_json
    from skills.lib.runner.sealed import seal

    folder = find_skill(ctx.params["skill"]) or ctx.params["skill"]
    path = plan_file(ctx.params)
    plan, _ = read_json(path)
    plan = plan if isinstance(plan, dict) else {}
    approved = sorted({c for c in checks(plan) if needs_approval(c)})
    settings = skill_settings(folder)[0]
    sealed = seal(path, skill_name(folder), folder, approved, ctx.run, {
        "max_retries": retries_of(folder, plan), "budget": budget(settings),
        "timeout": settings.timeout, "early_termination": settings.early_termination})
    return ("fork" if settings.fork else "inline"), {"seal": sealed,
                                                     "approved_commands": approved}


def run_command(ctx: StepContext) -> str:
    """The command that starts the plan's run."""
    from skills.lib.workflow.step.routing import interpreter

    return shlex.join([interpreter(), RUN_PLAN, "--step", "1", f"--plan={plan_file(ctx.params)}"])


def sample_plan(ctx: StepContext) -> str:
    """For simulation: the shipped sample plan, as a draft, at this run's plan path."""
    import json

    with open(os.path.join(SKILL_DIR, "resources", "sample-plan.json"), encoding="utf-8") as f:
        plan = json.load(f)
    for field in ("status", "skill", "target", "sealed"):
        plan.pop(field, None)
    path = plan_file(ctx.params)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(plan, handle, indent=2)
    return path


def _shown(command: str) -> str:
    """A verify command with the variables known before the run filled in, for the user; for
    the project's tests, the command the policy names for them (what will run)."""
    from skills.lib.workflow.authoring.substitution import Substituter, variables
    from skills.lib.workflow.guard.gateway import PROJECT_TESTS

    if command.strip() == PROJECT_TESTS:
        from skills.lib.workflow.guard.gatepolicy import project_tests

        tests = project_tests(project_root())
        return shlex.join(tests.argv) if tests else PROJECT_TESTS
    substitute = Substituter(variables(SKILL_DIR, None), "approval")
    substitute.warned.update(re.findall(r"\$\{(\w+)\}", command))  # memory keys: no warning
    return substitute(command)
