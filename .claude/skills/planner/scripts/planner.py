#!/usr/bin/env python3
"""Planner: turn a change request into a reviewed, approved plan with concrete diffs.

draft (explore with a sub-agent, weigh the approaches, write the plan) -> three review loops,
each work -> schema check -> fresh sub-agent review whose report file decides the gate: plan
completeness, the plan's code (a developer fills in the diffs), the plan's docs (a technical
writer scrubs them) -> the user approves -> the user allows, on its own, a check outside the
project's command policy (asked only when the plan has one) -> the plan is sealed for the
executor.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Dispatch,
    Param,
    Resource,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    decides,
    main,
    qr_loop,
    register_workflow,
)
from skills.lib.workflow.graph.model import USER_WORDS
from skills.planner.planlib.checks import checks_to_approve, plan_command
from skills.planner.planlib.steps import (
    DIR_HELP,
    plan_check,
    plan_file,
    planning_dir,
    report_file,
    schema_problems,
)

FORMAT = Resource("plan-format", "resources/plan-format.md",
                  "The plan's JSON format with an example; read it before writing the plan.")
TRIES = 4  # schema-check failures in a row before planning stops


def joined(*texts: str) -> str:
    return " ".join(text for text in texts if text)


def request(ctx: StepContext) -> str:
    return ctx.values.get("REQUEST", ctx.params["request"])


def users_words(ctx: StepContext) -> str | None:
    """The request in the user's own words: as they typed it (the hooks recorded it), else as
    the run was started with it (--request, the user's terms); None (no variable) where that
    says what the agent's restatement (REQUEST) says."""
    given = ctx.values.get(USER_WORDS) or ctx.params["request"]
    return None if given.strip() == request(ctx).strip() else given


def reviewer(name: str, script: str, what: str, *, with_request: bool = False) -> Dispatch:
    # The reviewer judges the plan against the user's words as well as the agent's
    # restatement of them: a restatement that drifted would otherwise pass unseen.
    words = {"REQUEST": request, "USER_REQUEST": users_words} if with_request else {}
    return Dispatch("quality-reviewer", f"Review {what} as a fresh reader.",
                    "one line: the path of the report you wrote", script=script,
                    vars={"PLAN_FILE": plan_file, **words})


def review_step(step_id: str, title: str, dispatch: Dispatch) -> StepDef:
    return StepDef(step_id, title, dispatch=dispatch, forbidden=[
        "Do not edit the report."])


draft = StepDef(
    "draft", "Understand the request and draft the plan", resources=[FORMAT],
    dispatch=Dispatch("explore", "Map the parts of this repository that the request touches.",
                      "a summary in at most 40 lines with file:line references",
                      script="scripts/explore.py", vars={"REQUEST": request}),
    actions=[
        Action("Restate the request in two to four sentences: what changes for whom, and why.",
               out="REQUEST"),
        "List the constraints: compatibility, dependencies, performance, deadlines, and what "
        "must not change, from the request and the repository (README, CONTRIBUTING, CI "
        "config); mark the ones you inferred. If one question to the user would change the "
        "plan's direction, ask it now and wait; otherwise do not ask.",
        "With the explorer's map, weigh at least two ways to make the change: what each costs, "
        "risks and which constraint it strains. Choose one.",
        Action(lambda ctx: f"Write the plan to {plan_file(ctx)} in the plan format: status "
                           "draft, the request, the constraints, each decision with its reason "
                           "and the options it beat, milestones with files, dependencies and "
                           "checkable acceptance criteria, risks and invisible knowledge. "
                           "Leave the diffs empty: they come later.")],
    args=[Arg("REQUEST")],
    forbidden=["Do not write code, and change no file other than the plan."],
    next={"ok": "check-plan"})

write_plan = StepDef(
    "write-plan", "Revise the plan", optional_reads=("FEEDBACK",), resources=[FORMAT],
    actions=[Action(schema_problems("check-plan", need_diffs=False)),
             Action(lambda ctx: f"Revise the plan at {plan_file(ctx)}; keep it in the plan "
                                "format, and keep the diffs of a milestone you do not change."),
             lambda ctx: ("The user asked for the changes in FEEDBACK: make them."
                          if "FEEDBACK" in ctx.values else "")],
    forbidden=["Do not change any file other than the plan."])

fill_diffs = StepDef(
    "fill-diffs", "Have the diffs written",
    dispatch=Dispatch("developer", lambda ctx: joined(
                      "Write the concrete diffs of every milestone into the plan.",
                      schema_problems("check-diffs", need_diffs=True)(ctx)),
                      "one line per milestone: its id and the files its diffs change",
                      script="scripts/dev/fill-diffs.py", vars={"PLAN_FILE": plan_file}),
    forbidden=["Do not write the diffs yourself."])

scrub_docs = StepDef(
    "scrub-docs", "Have the comments and docs scrubbed",
    dispatch=Dispatch("technical-writer", lambda ctx: joined(
                      "Edit the comments and docs in the plan's diffs.",
                      schema_problems("check-docs", need_diffs=True)(ctx)),
                      "one line per milestone you edited", script="scripts/tw/plan-scrub.py",
                      vars={"PLAN_FILE": plan_file}),
    forbidden=["Do not edit the plan yourself."])

approve = StepDef(
    "approve", "Ask the user to approve the plan", actions=[
        Action(lambda ctx: f"Summarise {os.path.splitext(plan_file(ctx))[0]}.md for the user "
                           "in at most 40 lines: the milestones with goals and acceptance "
                           "criteria, the decisions, the risks; give the file's path."),
        Action(lambda ctx: "List the review findings still open (non-blocking, or accepted "
                           f"by the user) from the qr-*.json reports in {planning_dir(ctx)}."),
        Action("After the user answers: if they asked for changes, record them in their "
               "words.", out="FEEDBACK")],
    ask_user=AskUser(lambda ctx: "The plan is ready. Approve it for execution?" + (
        " Its check is a command outside the project's command policy: the next question "
        "asks about it, on its own." if _outside_check(ctx) else ""), {
        "approve": "Approve: the plan is ready to execute", "revise":
        "Revise it (say what to change)", "abort": "Stop here"},
        in_advance="approve", kind="plan"),
    args=[Arg("FEEDBACK", outcomes=("revise",))],
    forbidden=["Do not start implementing."],
    next={"approve": "check", "revise": Rework("write-plan", 3, "stopped"), "abort": "stopped"})


def _outside_check(ctx: StepContext) -> str:
    """The plan's check when the project's policy does not allow it (the user allows it on
    its own, word for word, for the executor's run of this plan), else ''."""
    check = plan_command(ctx)
    outside = checks_to_approve([check] if check else [])
    return outside[0] if outside else ""


def _tests_hint() -> str:
    """Where the project's policy names its tests: that a plan's check can be them."""
    from skills.lib.workflow.base.paths import project_root
    from skills.lib.workflow.guard.gatepolicy import project_tests

    return (" (The project's own tests need no such exception: a plan's check can be "
            "${PROJECT_TESTS}.)" if project_tests(project_root()) else "")


def _prepare_check(ctx: StepContext, outcome: str) -> None:
    """For simulation: the plan's check outside the policy ('ask'), or none."""
    import json

    with open(plan_file(ctx), encoding="utf-8") as handle:
        data = json.load(handle)
    data.pop("check", None)
    if outcome == "ask":
        data["check"] = "python3 -m pytest -q"
    with open(plan_file(ctx), "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)


check_step = StepDef(
    "check", "Find a check outside the policy",
    handler=decides("ask", "none")(lambda ctx: "ask" if _outside_check(ctx) else "none"),
    prepare=_prepare_check,
    actions=["The script compared the plan's check with the project's command policy."],
    next={"ask": "allow-check", "none": "seal"})

allow_check = StepDef(
    "allow-check", "Have the check allowed",
    ask_user=AskUser(lambda ctx: "The plan's check is a command the project's command policy "
                     f"does not allow: `{_outside_check(ctx)}`. Let the executor run exactly "
                     "it, for this plan alone, through the gateway and its sandbox?"
                     + _tests_hint(), {
                         "allow": "Yes, allow it for this plan",
                         "revise": "No, change the plan (say what)", "abort": "Stop here"}),
    args=[Arg("FEEDBACK", "what the user wants changed, in their words",
              outcomes=("revise",))],
    next={"allow": "seal", "revise": Rework("write-plan", 3, "stopped"), "abort": "stopped"})


@decides("ok")
def _seal(ctx: StepContext) -> tuple[str, dict[str, object]]:
    """Mark the checked plan approved: the executor runs only an approved plan. plan.md, for
    people, is written again so that it says so too. The checks the user approved beyond the
    policy are kept in this run's ledger as well (the step state), where the executor reads
    them: the plan file alone cannot grant a command."""
    import json

    from skills.planner.planlib.model import load_plan, to_markdown

    path = plan_file(ctx)
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    data["status"] = "approved"
    check = data.get("check", "")
    approved = checks_to_approve([check] if isinstance(check, str) and check else [])
    data.update(approved_commands=approved, approved_by=ctx.run or "")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    plan, _ = load_plan(path, need_diffs=True, need_approval=True)
    if plan is not None:
        with open(os.path.splitext(path)[0] + ".md", "w", encoding="utf-8") as out:
            out.write(to_markdown(plan))
    return "ok", {"approved_commands": approved}


def _executor_command(ctx: StepContext) -> str:
    import shlex

    from skills.lib.workflow.step.routing import interpreter

    script = os.path.join(os.path.dirname(os.path.realpath(__file__)), "executor.py")
    return shlex.join([interpreter(), script, "--step", "1",
                       f"--dir={planning_dir(ctx)}"])


seal = StepDef(
    "seal", "Seal the approved plan", handler=_seal,
    actions=[Action(lambda ctx: f"The script marked {plan_file(ctx)} approved. If the user "
                                "asked you to carry the change out, run this command now and "
                                "follow it; otherwise tell the user the plan is approved and "
                                f"that this command executes it: {_executor_command(ctx)}",
                    out="reply")],
    next={"ok": None}, complete="Planning is done. Give the user your message.")

plan_invalid = StepDef(
    "plan-invalid", "Stop: the plan does not pass its schema check",
    actions=[Action("Tell the user planning stopped because the plan file still fails its "
                    "schema check after several fixes, and list the last problems the check "
                    "reported.", out="reply")],
    next={"ok": None}, complete="Planning stopped. Give the user your message.")

stopped = StepDef(
    "stopped", "Stop planning",
    actions=[Action(lambda ctx: f"Tell the user planning stopped at their request; the draft "
                                f"stays at {plan_file(ctx)}.", out="reply")],
    next={"ok": None}, complete="Planning stopped. Give the user your message.")

WORKFLOW = register_workflow(Workflow(
    "planner", description="It turns a change request into a reviewed plan with concrete diffs, "
                           "approved by the user.",
    params=[Param("request", "the change request, in one line", required=True),
            Param("dir", DIR_HELP, default=".planner")],
    steps=[
        draft,
        *qr_loop("plan-completeness", work=write_plan, limit=4,
                 check=plan_check("check-plan", "Check the plan's format", {
                     "valid": "review-plan", "invalid": Rework("write-plan", TRIES,
                                                               "plan-invalid")}),
                 review=review_step("review-plan", "Review the plan's completeness", reviewer(
                     "plan-completeness", "scripts/qr/plan-completeness.py",
                     "the plan at PLAN_FILE for completeness against REQUEST and, where it "
                     "is given, USER_REQUEST (the user's own words; they win over REQUEST)",
                     with_request=True)),
                 on_pass="fill-diffs", report=report_file("plan-completeness")),
        *qr_loop("plan-code", work=fill_diffs, limit=4,
                 check=plan_check("check-diffs", "Check the diffs are in the plan", {
                     "valid": "review-code", "invalid": Rework("fill-diffs", TRIES,
                                                               "plan-invalid")},
                     need_diffs=True),
                 review=review_step("review-code", "Review the plan's diffs", reviewer(
                     "plan-code", "scripts/qr/plan-code.py",
                     "the diffs of the plan at PLAN_FILE against the real code")),
                 on_pass="scrub-docs", report=report_file("plan-code")),
        *qr_loop("plan-docs", work=scrub_docs, limit=3,
                 check=plan_check("check-docs", "Check the plan after the docs pass", {
                     "valid": "review-docs", "invalid": Rework("scrub-docs", TRIES,
                                                               "plan-invalid")},
                     need_diffs=True),
                 review=review_step("review-docs", "Review the plan's comments and docs", reviewer(
                     "plan-docs", "scripts/qr/plan-docs.py",
                     "the comments and docs in the diffs of the plan at PLAN_FILE")),
                 on_pass="approve", report=report_file("plan-docs")),
        approve, check_step, allow_check, seal, plan_invalid, stopped,
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
