#!/usr/bin/env python3
"""Executor: carry out an approved plan, milestone by milestone, with independent review.

load (script check: the plan is valid and approved) -> survey the working tree -> reconcile
what is already done (a reviewer sub-agent) -> implement the next wave of milestones through
parallel developer sub-agents, until every milestone is marked done -> a code review loop -> a
documentation pass and its review loop -> a summary of what changed, what was verified and what
was accepted as risk.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (
    Action,
    Arg,
    Dispatch,
    Param,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    decides,
    main,
    qr_loop,
    register_workflow,
)
from skills.planner.planlib.checks import approved_for_run, check_steps
from skills.planner.planlib.steps import (
    DIR_HELP,
    done_ids,
    next_wave,
    plan_check,
    plan_file,
    progress_dir,
    report_file,
    sample_plan,
)

MAX_WAVES = 20  # implementation rounds (a chain of dependent milestones is one per wave)


survey = StepDef(
    "survey", "Survey the working tree", actions=[
        "The working tree: !`git status --short`; its last commit: !`git log -1 --format=%H`.",
        "Leave the planning folder out of account (it holds the plan and the reports). If the "
        "tree has other changes that no milestone of the plan explains, stop and ask the user "
        "whether to commit or stash them first; do not discard anything. Outside a git "
        "repository, tell the user the work cannot be tracked and ask whether to go on.",
        Action("Record the commit the work starts from.", out="BASE")],
    args=[Arg("BASE", "the commit hash the work starts from")], next={"ok": "reconcile"})

reconcile = StepDef(
    "reconcile", "Find the milestones already done",
    dispatch=Dispatch("quality-reviewer", "Find which milestones of the approved plan the "
                      "working tree already satisfies. For each one that is fully done, "
                      "create the empty file PROGRESS_DIR/<id>.done (for example M1.done).",
                      "one line: the ids of the milestones done, or none",
                      script="scripts/qr/reconciliation.py",
                      vars={"PLAN_FILE": plan_file, "PROGRESS_DIR": progress_dir}),
    forbidden=["Do not mark milestones done yourself."], next={"ok": "first-wave"})


@decides("more", "done")
def _wave(ctx: StepContext) -> str:
    return "more" if next_wave(ctx) else "done"


def _wave_said(ctx: StepContext) -> str:
    wave, done = next_wave(ctx), sorted(done_ids(ctx))
    marked = f"Marked done: {', '.join(done)}." if done else "No milestone is marked done yet."
    return f"{marked} " + (f"Next wave: {', '.join(wave)}." if wave else
                           "Every milestone is done.")


def _prepare_wave(ctx: StepContext, outcome: str) -> None:
    """For simulation: an approved plan, with every milestone marked done or none."""
    import json

    os.makedirs(progress_dir(ctx), exist_ok=True)
    with open(plan_file(ctx), "w", encoding="utf-8") as handle:
        json.dump(sample_plan(approved=True), handle)
    for milestone in ("M1", "M2"):
        marker = os.path.join(progress_dir(ctx), f"{milestone}.done")
        if outcome == "done":
            open(marker, "w").close()
        elif os.path.exists(marker):
            os.remove(marker)


wave = StepDef(
    "wave", "Pick the next wave of milestones", handler=_wave, actions=[Action(_wave_said)],
    next={"more": Rework("implement", MAX_WAVES, "stuck"), "done": "has-check"},
    prepare=_prepare_wave)
# The first wave enters the loop by a plain edge: the implement step's first pass is pass 1,
# and each wave after it (the counted edge back) is pass 2, 3, ... of MAX_WAVES.
first_wave = wave._replace(id="first-wave", title="Pick the first wave of milestones",
                           next={"more": "implement", "done": "has-check"})

implement = StepDef(
    "implement", "Implement the wave",
    dispatch=Dispatch("developer", "Implement your milestone of the approved plan. When every "
                      "acceptance criterion holds, create the empty file "
                      "PROGRESS_DIR/<your milestone id>.done; if it fails, do not create it.",
                      "one line: DONE or FAILED, the milestone id, and what failed",
                      script="scripts/dev/implement-milestone.py", items=next_wave,
                      vars={"PLAN_FILE": plan_file, "PROGRESS_DIR": progress_dir}),
    actions=[Action("Record every FAILED reply with its reason (the next wave tries the "
                    "milestone again).", out="FAILURES")],
    args=[Arg("FAILURES", "each FAILED milestone id with its reason, or none")],
    forbidden=["Do not implement milestones yourself.",
               "Do not create or delete the .done files yourself."],
    next={"ok": "wave"})

verify = StepDef(
    "verify", "Run the checks", reads=("BASE",), actions=[
        "Run the project's test suite and the linters and type checkers its CI runs. Fix what "
        "fails, in the files of the plan.",
        "Review `git diff` from BASE yourself once: remove debug output and stray changes."])

write_docs = StepDef(
    "write-docs", "Have the docs brought up to date",
    dispatch=Dispatch("technical-writer", "Bring the docs and comments in line with the "
                      "implemented change.", "one line per file changed and why",
                      script="scripts/tw/post-impl.py", vars={"PLAN_FILE": plan_file}),
    forbidden=["Do not write the docs yourself."])


def reviewer(script: str, what: str) -> StepDef:
    return StepDef(f"review-{script.rsplit('/', 1)[1][10:-3]}", f"Review the {what}",
                   dispatch=Dispatch("quality-reviewer", f"Review the {what} as a fresh reader.",
                                     "one line: the path of the report you wrote",
                                     script=script, vars={"PLAN_FILE": plan_file}),
                   forbidden=["Do not edit the report."])


summary = StepDef(
    "summary", "Summarise the work", reads=("BASE",),
    optional_reads=("QR_USER_DECISION", "FAILURES"),
    actions=[Action("Write the user a summary: what changed per milestone (files), what was "
                    "verified (tests, checks, the two reviews), and what was accepted as risk "
                    "(QR_USER_DECISION, when shown, and non-blocking findings left open).",
                    out="reply")],
    next={"ok": None}, complete="The plan is implemented. Give the user your summary.")

not_ready = StepDef(
    "not-ready", "Stop: no approved plan",
    actions=[Action(lambda ctx: f"Tell the user there is no approved plan at {plan_file(ctx)} "
                                "(the check above says why) and that the planner skill makes "
                                "one.", out="reply")],
    next={"ok": None}, complete="Execution did not start. Give the user your message.")

stuck = StepDef(
    "stuck", "Stop: milestones keep failing",
    optional_reads=("FAILURES",),
    actions=[Action(f"Tell the user that after {MAX_WAVES} waves some milestones are still not "
                    "done, which ones, and what the developers reported (FAILURES).",
                    out="reply")],
    next={"ok": None}, complete="Execution stopped. Give the user your message.")

WORKFLOW = register_workflow(Workflow(
    "executor", skill="planner", approved_commands=approved_for_run,
    description="It implements an approved plan milestone by milestone, with review.",
    params=[Param("dir", DIR_HELP, default=".planner")],
    steps=[
        plan_check("load", "Load the approved plan", {"valid": "survey", "invalid": "not-ready"},
                   need_diffs=True, need_approval=True),
        survey, reconcile, first_wave, wave, implement, *check_steps("verify", 3),
        *qr_loop("post-impl-code", work=verify, limit=4,
                 review=reviewer("scripts/qr/post-impl-code.py", "implemented code"),
                 on_pass="write-docs", report=report_file("post-impl-code")),
        *qr_loop("post-impl-docs", work=write_docs, limit=3,
                 review=reviewer("scripts/qr/post-impl-docs.py", "updated docs"),
                 on_pass="summary", report=report_file("post-impl-docs")),
        summary, not_ready, stuck,
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
