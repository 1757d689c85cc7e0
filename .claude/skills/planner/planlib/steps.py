"""Step builders the planner, the executor and their sub-agent scripts share: where the files
of a planning run live, the script-decided plan check, and the shape of a reviewer sub-agent."""

from __future__ import annotations

import os
from collections.abc import Callable

from skills.lib.workflow import Action, Resource, StepContext, StepDef, Workflow, decides
from skills.lib.workflow.graph.model import FIX_FINDINGS, Target

#: The planning folder (param --dir): plan.json, plan.md and the reviewers' reports.
DIR_HELP = "the folder for plan.json, plan.md and review reports (default .planner)"


def planning_dir(ctx: StepContext) -> str:
    """Absolute, so the agent and its sub-agents name the same files whatever their folder."""
    return os.path.abspath(ctx.params.get("dir", ".planner"))


def plan_file(ctx: StepContext) -> str:
    return os.path.join(planning_dir(ctx), "plan.json")


def report_file(name: str) -> Callable[[StepContext], str]:
    """The path of review loop `name`'s report in the planning folder."""
    return lambda ctx: os.path.join(planning_dir(ctx), f"qr-{name}.json")


def schema_problems(check: str, need_diffs: bool) -> Callable[[StepContext], str]:
    """An instruction listing what the schema check `check` found wrong, on the step its
    `invalid` outcome returns to; nothing on any other arrival (a first pass of fill-diffs
    has no diffs yet, and is not a failure)."""
    def said(ctx: StepContext) -> str:
        from skills.planner.planlib.model import load_plan

        if ctx.arrived != f"{check}:invalid" or not os.path.exists(plan_file(ctx)):
            return ""
        plan, problem = load_plan(plan_file(ctx), need_diffs=need_diffs)
        return "" if plan is not None else (
            f"The plan at {plan_file(ctx)} fails its schema check: {problem}. Fix exactly these "
            "problems first.")

    return said


def plan_check(step_id: str, title: str, nxt: dict[str, Target], *,
               need_diffs: bool = False, need_approval: bool = False) -> StepDef:
    """A script-decided check of plan.json: `valid` or `invalid`, its note naming every problem.
    A valid plan is also rendered to plan.md beside it, for people."""
    from skills.planner.planlib.model import load_plan, to_markdown

    def verdict(ctx: StepContext) -> tuple[object, str]:
        plan, problem = load_plan(plan_file(ctx), need_diffs=need_diffs,
                                  need_approval=need_approval)
        from skills.planner.planlib.checks import check_problems

        check = getattr(plan, "check", "")
        wrong = check_problems([check] if check else [])
        return (plan, problem) if not wrong else (None, wrong)

    @decides("valid", "invalid")
    def decide(ctx: StepContext) -> str:
        plan, _ = verdict(ctx)
        if plan is None:
            return "invalid"
        with open(os.path.splitext(plan_file(ctx))[0] + ".md", "w", encoding="utf-8") as out:
            out.write(to_markdown(plan))
        return "valid"

    def said(ctx: StepContext) -> str:
        plan, problem = verdict(ctx)
        if plan is None:
            return f"The plan fails its schema check: {problem}."
        return "The plan passed its schema check; plan.md is regenerated from it."

    return StepDef(step_id, title, handler=decide, actions=[Action(said)], next=nxt,
                   prepare=_write_sample(need_approval))


def _write_sample(approved: bool) -> Callable[[StepContext, str], None]:
    """For simulation: write a plan that passes (or fails) the check."""
    def prepare(ctx: StepContext, outcome: str) -> None:
        import json

        path = plan_file(ctx)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps(sample_plan(approved)) if outcome == "valid"
                      else '{"request": ""}')

    return prepare


def sample_plan(approved: bool = False) -> dict[str, object]:
    """A small valid plan: two milestones, the second after the first."""
    def milestone(n: int, after: list[str]) -> dict[str, object]:
        return {"id": f"M{n}", "title": f"Step {n}", "goal": "Make the change.",
                "files": [f"src/part{n}.py"], "depends_on": after,
                "acceptance": ["the tests pass"],
                "diffs": [{"file": f"src/part{n}.py", "diff": "@@ -1 +1 @@\n-old\n+new"}]}

    return {"status": "approved" if approved else "draft", "request": "Add a feature.",
            "decisions": [{"decision": "Do it simply.", "why": "It is enough."}],
            "milestones": [milestone(1, []), milestone(2, ["M1"])]}


def reviewer(name: str, description: str, checklist: str, looks_at: str) -> Workflow:
    """A reviewer sub-agent that reads `looks_at` and checks it against the checklist in the
    real files, as a fresh reader."""
    from skills.lib.workflow.authoring.reviewer import review_workflow

    listed = Resource("checklist", f"resources/{checklist}",
                      "What to check, item by item; read it before you review.")
    return review_workflow(name, "planner", description, listed, read=[
        f"Read {looks_at}. The paths are in the variables of your brief.",
        "Read the checklist listed above."], review=[
        "Go through the checklist item by item. For each item, check the real files, not what "
        "the plan or a comment says about them: open them, run a search, run a read-only "
        "command.",
        "Note each problem with where it is, what is wrong, why it matters and the smallest "
        "fix, graded with the severities your brief names."],
        forbidden=("Do not accept an explanation in the work as a fix.",))


def worker(name: str, description: str, *, reads: str, does: list[str], checks: list[str],
           reply: str, resources: tuple[Resource, ...] = (), keep: tuple[str, ...] = ()
           ) -> Workflow:
    """The three steps of a working sub-agent (explore, developer, technical writer): read what
    the brief names, do the work, check it, and reply in the shape the orchestrator relays.
    On a review loop's fix pass (started with --fix: FIX_FINDINGS) the work is to fix those
    findings: `does` is the first pass's work, `keep` the rules that hold on every pass."""
    return Workflow(name, description=description, skill="planner", steps=[
        StepDef("read", "Read your brief's inputs", resources=resources, actions=[
            f"Read {reads}. Their paths (and the item you own, if any) are in your brief's "
            "variables.",
            *(["Read the files listed above before you start."] if resources else [])],
            next={"ok": "work"}),
        StepDef("work", "Do the work", optional_reads=(FIX_FINDINGS,), actions=[
            _fixing, *(_first_pass(text) for text in does), *keep], next={"ok": "check"}),
        StepDef("check", "Check your work", actions=[
            *checks, Action(reply[:1].upper() + reply[1:], out="reply")],
            next={"ok": None}, complete="Your part is done. Reply as the last action says."),
    ])


def _fixing(ctx: StepContext) -> str:
    if FIX_FINDINGS not in ctx.values:
        return ""
    return ("This is a fix pass: fix each finding in FIX_FINDINGS, and nothing else, in the work "
            "as it is; do not redo the rest.")


def _first_pass(text: str) -> Callable[[StepContext], str]:
    """An instruction of the first pass only: a fix pass fixes the findings instead."""
    return lambda ctx: "" if FIX_FINDINGS in ctx.values else text


def progress_dir(ctx: StepContext) -> str:
    """Where sub-agents mark milestones done: one file per milestone, `<id>.done`."""
    return os.path.join(planning_dir(ctx), "progress")


def done_ids(ctx: StepContext) -> set[str]:
    try:
        return {f[:-5] for f in os.listdir(progress_dir(ctx)) if f.endswith(".done")}
    except OSError:
        return set()


def next_wave(ctx: StepContext) -> list[str]:
    """The milestones to implement now: the first wave of those not yet marked done."""
    from skills.planner.planlib.model import load_plan, waves

    plan, _ = load_plan(plan_file(ctx), need_approval=True)
    if plan is None:
        return []
    left = waves(plan, done_ids(ctx))
    return left[0] if left else []

