#!/usr/bin/env python3
"""Refactor: a refactoring analysis of a codebase or a change, ending in a prioritised plan.

scope and mode -> the mode decides the dimensions (design, code, both, or custom: named, each
name refused unless the code-quality convention set has it) -> one explore sub-agent per
dimension, in parallel -> triage: merge duplicates, rank by severity x effort -> the plan -> a
fresh critique that fails only on MUST or SHOULD problems (one revision at most; problems still
open then are written into the plan) -> offer to continue in the planner skill.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import shlex

from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Param,
    Resource,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    main,
    register_workflow,
    value_of,
)
from skills.lib.workflow.step.routing import interpreter
from skills.refactor.scripts._dimensions import (
    MODES,
    chosen,
    listing,
    mode_line,
    names_of,
    names_problem,
)

FORMAT = Resource("plan-format", "resources/plan-format.md",
                  "The effort scale, the priority table and the plan's format.")
SEVERITY = ConventionRef("severity", "Grade every finding with it.")
SKILLS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def no_checks(ctx: StepContext) -> bool:
    """CHECKS reported as none found: nothing pins the behaviour yet."""
    return ctx.values.get("CHECKS", "").strip().lower().startswith(("none", "n/a"))


def open_points(ctx: StepContext) -> bool:
    """The revision passes ran out with problems left: only `open-points` reports OPEN_POINTS,
    and only that path reaches it."""
    return bool(ctx.values.get("OPEN_POINTS", "").strip())


def plan_file(ctx: StepContext) -> str:
    """Absolute, so the agent, its sub-agents and the planner name the same file."""
    return os.path.join(os.path.abspath(ctx.params["dir"]), "refactor-plan.md")


def planner_command(ctx: StepContext) -> str:
    """The planner's entry command, with the plan file as the request."""
    script = os.path.join(SKILLS, "planner", "scripts", "planner.py")
    request = (f"Carry out the refactoring plan in {plan_file(ctx)}: its refactorings, their "
               "order, risks and checks are the request; behaviour must not change."
               + (" First settle the open critique points listed at its end." if open_points(ctx)
                  else ""))
    return shlex.join([interpreter(), script, "--step", "1", "--request", request])


def _scope_text(ctx: StepContext) -> str:
    return (f"The scope: {ctx.params['scope']}. Pin it down: the paths in scope, or for a "
            "change (a branch, a git range, staged work) the range and the files it touches "
            "(git diff --stat); what is out (generated, vendored, third-party code).")


def _modes_text(ctx: StepContext) -> str:
    return ("Choose the mode from the user's request; each of its dimensions gets its own "
            f"explorer. design: how the code is divided and connected ({names_of('design')}). "
            f"code: the code inside files ({names_of('code')}). both: all of them. custom: "
            "the dimensions the request names; the plan lists the others as not explored.")


scope = StepDef(
    "scope", "Set the scope", actions=[
        Action(_scope_text, out="SCOPE"),
        Action("Find the commands that run the tests, linters and type checks (README, CI "
               "config, package scripts): they will show that behaviour is preserved. When the "
               "project has none, report CHECKS as the words none found: the plan then starts "
               "by adding characterisation tests.", out="CHECKS")],
    args=[Arg("SCOPE", "in: paths or the change and its files; out: what is excluded"),
          Arg("CHECKS", "one command per line; or the words none found")],
    forbidden=["Do not look for smells yet: explorers do that, one per dimension."],
    next={"ok": "mode"})

choose_mode = StepDef(
    "mode", "Choose the mode", reads=("SCOPE",), actions=[Action(_modes_text)],
    args=[Arg("MODE", "the mode you chose: the outcome's name", choices=(mode,),
              outcomes=(mode,)) for mode in MODES],
    forbidden=["Do not narrow the mode to save work: custom is for concerns the user named."],
    when={"design": "the request is about how the code is divided and connected as a whole, "
                    "naming no single dimension",
          "code": "the request is about the code inside files as a whole, naming no single "
                  "dimension",
          "both": "the request asks for a full review, or does not say what to look at",
          "custom": "the request names particular concerns, even hedged ('mostly naming and "
                    "repetition': those two; the others are noted as not explored), or mixes a "
                    "whole mode with single dimensions (all of them); you name them next"},
    next={"design": "explore-design", "code": "explore-code", "both": "explore-both",
          "custom": "name-dimensions"})

name_dimensions = StepDef(
    "name-dimensions", "Name the dimensions", reads=("SCOPE",),
    actions=[Action(lambda ctx: "Name the dimensions the request asks for, exactly as the "
                                "convention set names them, one per line: for 'mostly naming "
                                "and repetition', those two (the plan notes the others as not "
                                "explored); for a whole mode named beside them, its "
                                f"dimensions too. The set: {listing()}. The command refuses a "
                                "name the set does not have and says what to fix.",
                    out="DIMENSIONS")],
    args=[Arg("DIMENSIONS", "dimension names from the set, one per line", check=names_problem,
              sample=lambda ctx: "naming\nrepetition")],
    next={"ok": "explore-custom"})


def explore_step(mode: str, title: str) -> StepDef:
    """The dispatch of one explorer per dimension of `mode`: one step per mode, so the list
    each mode explores is fixed by the branch taken, not by a value reported later."""
    return StepDef(
        f"explore-{mode}", title,
        dispatch=Dispatch("explore", "Find refactoring opportunities in SCOPE along one "
                          "code-quality dimension.",
                          "your findings as your last step shows, or none",
                          script="scripts/explore-dimension.py",
                          items=lambda ctx: [d.name for d in chosen(mode, ctx)],
                          vars={"SCOPE": value_of("SCOPE"), "CHECKS": value_of("CHECKS")}),
        actions=[Action("Record every reply as it came, headed by its dimension.", out="RAW")],
        args=[Arg("RAW", "every reply, headed by its dimension")], next={"ok": "triage"})


triage = StepDef(
    "triage", "Triage the findings", reads=("SCOPE", "CHECKS", "RAW"), resources=[FORMAT],
    conventions=[SEVERITY], actions=[
        "Merge findings that are one smell in the same code seen from two dimensions (a copied "
        "block that repetition and structure both report): keep one, naming both dimensions.",
        "Set a finding aside for one of these reasons: no path:line evidence; outside SCOPE; a "
        "behaviour change (a bug fix or a feature, not a refactoring); not worth doing (the "
        "gain does not pay for the effort and risk). A finding that is both (copies that "
        "drifted apart) splits: the refactoring keeps today's behaviour, the bug is set aside.",
        "Check each finding's severity against the convention (by consequence, not by effort) "
        "and its effort against the plan format's scale: S only where tests that CHECKS runs "
        "cover the code, so nothing is S when CHECKS is none found. Correct what is wrong.",
        Action("Rank by the priority table and number the findings R1, R2, ... in that order. "
               "One paragraph per finding: R1 | SHOULD | S | priority 6 | its dimensions | "
               "files with path:line, then the smell and the target shape in a sentence each; a "
               "blank line between findings.", out="FINDINGS"),
        Action("List what you set aside, each with its reason from the list above.",
               out="SET_ASIDE")],
    args=[Arg("FINDINGS", "the ranked findings, a blank line between them; or none"),
          Arg("SET_ASIDE", "each finding set aside with its reason; or none")],
    forbidden=["Do not read the code for new smells: rank what the explorers found."],
    next={"ok": "plan"})


def _write_plan(ctx: StepContext) -> str:
    if "CRITIQUE" in ctx.values:  # back from a failed critique: a fix pass, not a rewrite
        return (f"The critique (CRITIQUE) found MUST or SHOULD problems in the plan at "
                f"{plan_file(ctx)}: fix exactly those in the file, and leave its COULD notes. "
                "Where a fix changes a refactoring's id, rank, order or dependencies, update the "
                "Order and Findings sections to match; change nothing else.")
    baseline = ("CHECKS is none found, so nothing pins the behaviour yet: make RF1 'Pin the "
                "current behaviour' (characterisation tests for the code the other refactorings "
                "change, and the command that runs them), make every other refactoring depend "
                "on it, and write 'Baseline: none before RF1; then <that command>'."
                if no_checks(ctx) else "The Baseline line names the commands in CHECKS.")
    return (f"Create the folder {os.path.dirname(plan_file(ctx))} if it is missing, and write "
            f"the plan to {plan_file(ctx)} in the plan format. Below its title, write "
            f"'{mode_line(ctx)}'. {baseline} Then the order, one section per refactoring with "
            "its findings, files, smell, target shape, risk, how to verify behaviour is "
            "preserved and what it depends on; then what was set aside, and the findings as "
            "ranked.")


plan = StepDef(
    "plan", "Write the refactoring plan", resources=[FORMAT],
    reads=("SCOPE", "MODE", "CHECKS", "FINDINGS", "SET_ASIDE"), optional_reads=("CRITIQUE",),
    actions=[Action(_write_plan)],
    forbidden=["Do not change any code: this step plans only.",
               "Do not plan a behaviour change as a refactoring: it goes under Set aside."],
    next={"ok": "critique"})

critique = StepDef(
    "critique", "Have the plan critiqued",
    dispatch=Dispatch("quality-reviewer", lambda ctx: f"Critique the refactoring plan at "
                      f"{plan_file(ctx)} against the code, as a fresh reader.",
                      "PASS or FAIL, then the numbered problems, each with its severity",
                      script="scripts/critique-plan.py",
                      vars={"SCOPE": value_of("SCOPE"), "CHECKS": value_of("CHECKS")}),
    actions=[Action("Record the reviewer's reply as it came.", out="CRITIQUE")],
    args=[Arg("CRITIQUE", "the reviewer's reply")],
    forbidden=["Do not critique the plan yourself, and do not edit it in this step."],
    when={"revise": "the reviewer replied FAIL: a MUST or SHOULD problem is open",
          "accept": "the reviewer replied PASS, or listed COULD problems only (polish, not "
                    "worth a revision pass)"},
    next={"revise": Rework("plan", 2, "open-points"), "accept": "handoff"})

open_points_step = StepDef(
    "open-points", "Record the open critique points", reads=("CRITIQUE",), resources=[FORMAT],
    actions=[Action(lambda ctx: "The critique (CRITIQUE) still fails after the last revision, and "
                                "no pass is left. Add its MUST and SHOULD problems to the end of "
                                f"{plan_file(ctx)} as the section '## Open critique points' "
                                "(rule 7 of the plan format): one line each, with its severity "
                                "and the refactoring it concerns; leave out COULD notes. The "
                                "next step shows the plan and asks the user how to go on.",
                    out="OPEN_POINTS")],
    args=[Arg("OPEN_POINTS", "the lines of '## Open critique points', as written in the plan")],
    forbidden=["Do not fix the plan or the code in this step: the user decides next."],
    next={"ok": "handoff"})


def _show_plan(ctx: StepContext) -> str:
    shown = (f"Show the user the plan at {plan_file(ctx)} in at most 25 lines: its Mode line, "
             "the refactorings in order with priority and risk, and what was set aside.")
    return shown + (" Then list the open critique points (OPEN_POINTS), numbered."
                    if open_points(ctx) else "")


def _ask(ctx: StepContext) -> str:
    if not open_points(ctx):
        return ("Continue in the planner skill, which turns this plan into reviewed changes "
                "and can carry them out?")
    return ("The plan still has the open critique points listed above. How do you want to go "
            "on: continue in the planner skill anyway (it reviews the plan again and can "
            "settle them), or stop here with the plan as it is?")


handoff = StepDef(
    "handoff", "Offer to continue in the planner", optional_reads=("OPEN_POINTS",),
    actions=[Action(_show_plan, out="reply")],
    ask_user=AskUser(_ask, {"planner": "Yes, continue in the planner with this plan",
                            "done": "No, stop here with the plan as it is"}),
    forbidden=["Do not answer for the user.", "Do not start changing code."],
    next={"planner": "to-planner", "done": "summary"})

to_planner = StepDef(
    "to-planner", "Continue in the planner", actions=[Action(
        lambda ctx: "Tell the user planning continues in the planner skill, then run this "
                    f"command and follow the steps it prints: {planner_command(ctx)}",
        out="reply")],
    next={"ok": None}, complete="The refactoring analysis is done; follow the planner now.")

summary = StepDef(
    "summary", "Summarise", actions=[Action(
        lambda ctx: f"Give the user the plan's path ({plan_file(ctx)}), its refactorings in "
                    "order with priority and risk, "
                    + ("the open critique points at its end, " if open_points(ctx) else "")
                    + "and this command to continue in the planner later: "
                    f"{planner_command(ctx)}", out="reply")],
    next={"ok": None}, complete="The refactoring analysis is done. Give the user your summary.")

WORKFLOW = register_workflow(Workflow(
    "refactor", description="It analyses a codebase or a change dimension by dimension and "
                            "writes a prioritised refactoring plan.",
    params=[Param("scope", "what to analyse: paths, a module, or a change such as a git range",
                  default="the whole repository"),
            Param("dir", "the folder for refactor-plan.md", default=".refactor")],
    steps=[scope, choose_mode, explore_step("design", "Explore the design dimensions"),
           explore_step("code", "Explore the code dimensions"),
           explore_step("both", "Explore every dimension"), name_dimensions,
           explore_step("custom", "Explore the named dimensions"), triage, plan, critique,
           open_points_step, handoff, to_planner, summary]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
