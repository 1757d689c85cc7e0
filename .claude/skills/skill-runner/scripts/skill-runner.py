#!/usr/bin/env python3
"""Skill runner: follow an instructions-only skill (a SKILL.md of prose steps) under the
framework's discipline, as the skill's SKILL.md settings ask (lib/workflow/authoring/execution.py).

mode (the script: the skill's execution_mode) -> simple: its own steps once, in order (run-steps.py)
  -> autonomous: read the skill (instructions made concrete, files, tools, what earlier runs
  taught) -> write a plan (checked when reported: a bad plan never moves the run) -> the user
  approves, revises or aborts -> the user allows, on their own, the plan's checks outside the
  project's command policy (asked only when it has some) -> the plan is sealed with the
  skill's settings, and run-plan.py runs it as a generated workflow: here, or, with
  `context: fork`, in a sub-agent.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.runner.fork import fork_step, forked_step
from skills.lib.runner.simple import start_command
from skills.lib.runner.steps import (
    approvable,
    approval_question,
    check_plan,
    commands_question,
    commands_to_allow,
    plan_file,
    prepare_commands,
    read_skill,
    run_command,
    sample_plan,
    seal_plan,
    steps_problem,
)
from skills.lib.runner.target import execution_mode, skill_problem
from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Param,
    Resource,
    Rework,
    StepDef,
    Workflow,
    decides,
    main,
    register_workflow,
)

RESOURCES = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                         "resources")
# The example skills, one per way a skill may ask to run (simulation walks each).
EXAMPLE, SIMPLE_EXAMPLE, FORK_EXAMPLE = (os.path.join(RESOURCES, name) for name in (
    "example-skill", "example-simple", "example-fork"))
FORMAT = Resource("plan-format", "resources/plan-format.md",
                  "The plan's JSON format, its rules and an example: read it before you write.")
REVISIONS = 3  # plans the user may send back before planning stops
RUN_STEPS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "run-steps.py")

mode = StepDef(
    "mode", "See how the skill asks to be run", handler=decides("simple", "autonomous")(
        execution_mode), actions=[Action(lambda ctx: "The skill's execution_mode is "
                                         f"{execution_mode(ctx)}: " + (
                                             "its steps run as written, with no plan."
                                             if execution_mode(ctx) == "simple" else
                                             "you plan its steps, the user approves the plan, "
                                             "and each step is checked."))],
    next={"simple": "simple", "autonomous": "read"})

simple = StepDef(
    "simple", "Run the skill's own steps", actions=[
        Action(lambda ctx: "The skill's SKILL.md sets execution_mode: simple: its steps run "
                           "once each, in order, as written, with no plan and no approval. Run "
                           f"this command now and follow the steps it prints: "
                           f"{start_command(ctx, RUN_STEPS)}", out="reply")],
    next={"ok": None}, complete="The skill is not run yet: run the command in the action above "
                                "now, and follow its steps to their end.")

read = StepDef(
    "read", "Read the skill you will run", actions=[
        Action(read_skill),
        "If the instructions need something the user has not given (an input, a choice, a "
        "path), ask the user now and wait for the answer.",
        Action("Write the skill's primary directive in one line: what the user has when the "
               "skill has succeeded, for this request.", out="DIRECTIVE")],
    args=[Arg("DIRECTIVE", "the skill's primary directive for this run, one line")],
    forbidden=["Do not start the skill's work yet: the plan comes first, then the user "
               "approves it."],
    next={"ok": "plan"})

plan = StepDef(
    "plan", "Write the plan", resources=[FORMAT], reads=("DIRECTIVE",),
    optional_reads=("REVISION",), actions=[
        Action(lambda ctx: f"Write the plan to {plan_file(ctx.params)} as the plan format "
                           "says: the skill's instructions in order, one action per step (one "
                           "tool call, or one text task), each with how to do it, how to "
                           "check it, the key outputs later steps need, and a verify command "
                           "where a command can tell success from failure."),
        "If the user sent the last plan back (REVISION), change exactly what they asked.",
        Action(lambda ctx: f"The folder {os.path.dirname(plan_file(ctx.params))} holds this "
                           "runner's files: leave it out of the skill's work (searches, "
                           "listings, edits)."),
        Action(lambda ctx: f"Report the plan file: {plan_file(ctx.params)}. The command "
                           "checks it; if it refuses, fix what it names and run it again.",
               out="PLAN_FILE")],
    args=[Arg("PLAN_FILE", "the plan file's path", check=check_plan, sample=sample_plan)],
    forbidden=["Do not do any step of the plan yet."],
    next={"ok": "approve"})

approve = StepDef(
    "approve", "Have the plan approved", reads=("PLAN_FILE",),
    ask_user=AskUser(approval_question, {
        "approve": "Yes, run it", "revise": "No, change it (say what)",
        "abort": "No, stop here"}, in_advance=approvable, kind="plan"),
    args=[Arg("REVISION", "what the user wants changed, in their words",
              outcomes=("revise",))],
    next={"approve": "commands", "revise": Rework("plan", REVISIONS, "stopped"),
          "abort": "stopped"})

commands = StepDef(
    "commands", "Find the checks outside the policy",
    handler=decides("ask", "none")(commands_to_allow), prepare=prepare_commands,
    actions=["The script compared the plan's checks with the project's command policy."],
    next={"ask": "allow", "none": "seal"})

allow = StepDef(
    "allow", "Have the commands allowed", reads=("PLAN_FILE",),
    ask_user=AskUser(commands_question, {
        "allow": "Yes, let this run run them", "revise": "No, change the plan (say what)",
        "abort": "No, stop here"}),
    args=[Arg("REVISION", "what the user wants changed, in their words",
              outcomes=("revise",))],
    next={"allow": "seal", "revise": Rework("plan", REVISIONS, "stopped"),
          "abort": "stopped"})

seal = StepDef(
    "seal", "Seal the approved plan", handler=decides("inline", "fork")(seal_plan),
    actions=["The script sealed the approved plan with the skill's settings: any later change "
             "to it is refused."],
    next={"inline": "start", "fork": "fork"})

start = StepDef(
    "start", "Run the plan", actions=[
        Action(lambda ctx: f"Run this command now and follow the steps it prints: "
                           f"{run_command(ctx)}", out="reply")],
    next={"ok": None}, complete="Planning is done, the skill is not: run the command in the "
                                "action above now, and follow its steps to their end.")

stopped = StepDef(
    "stopped", "Stop without running the skill", actions=[
        Action("Tell the user the skill was not run, and why: they stopped it, or the plan "
               "went back too often without being approved.", out="reply")],
    next={"ok": None}, complete="The run ended without running the skill.")

WORKFLOW = register_workflow(Workflow(
    "skill-runner", [mode, simple, read, plan, approve, commands, allow, seal, start, fork_step(),
                     forked_step(), stopped],
    description="It runs an instructions-only skill as a planned, approved and checked "
                "workflow that learns from earlier runs.",
    params=[Param("skill", "the skill to run: its folder, or its name under .claude/skills",
                  required=True, check=skill_problem, sample=EXAMPLE,
                  samples=(SIMPLE_EXAMPLE, FORK_EXAMPLE)),
            Param("args", "what the user asked the skill to do (its $ARGUMENTS)", default=""),
            Param("max-steps", "the most steps a plan may have", default="12",
                  check=steps_problem, sample="12"),
            Param("dir", "the folder for the plan file", default=".skill-runner")]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
