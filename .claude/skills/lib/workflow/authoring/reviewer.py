"""The workflow of a reviewer sub-agent in a report-gated review loop (`qr_loop(report=...)`):
read what the brief names and the checklist, review, write the report the gate reads. Skills
give what is theirs (what to read, how to check, what not to accept); the report step, which
the gate depends on, is the same everywhere."""

from ..graph.model import RUN_BY, Action, Resource, StepContext, StepDef, Workflow


def review_workflow(name: str, skill: str, description: str, checklist: Resource, *,
                    read: list[str], review: list[str], forbidden: tuple[str, ...] = ()
                    ) -> Workflow:
    """The reviewer sub-agent's workflow for a report-gated review loop
    (`qr_loop(..., report=PATH)`), for the sub-agent script a review step's
    `Dispatch(script=...)` names: `name` and `skill` as a `Workflow` takes them, `description`
    its one sentence, `checklist` the resource the reviewer checks against. Three steps:
    `read` (the `read` actions, with the checklist listed), `review` (the `review` actions:
    the skill's checks; fixing is forbidden, and `forbidden` adds the skill's own
    prohibitions), and `report`, the same in every skill: the report file the gate reads, in
    the format the brief names, marked "reviewer": "independent", or "self" when the
    orchestrator did the review itself (`--self`), then its path as the reply. Register the
    result and call `main` on it, as for any workflow."""
    return Workflow(name, description=description, skill=skill, steps=[
        StepDef("read", "Read what you review", resources=[checklist], actions=read,
                forbidden=["Do not edit any file you review."], next={"ok": "review"}),
        StepDef("review", "Review against the checklist", actions=review,
                forbidden=["Do not fix anything: your job is to find and grade.", *forbidden],
                next={"ok": "report"}),
        StepDef("report", "Write the report", actions=[
            Action(_write_report),
            Action("One line: the report's path.", out="reply")],
            next={"ok": None}, complete="Your review is done. Reply with the report's path."),
    ])


def _write_report(ctx: StepContext) -> str:
    """Who reviewed comes from the run, not from memory: `--self` marked a sub-run the
    orchestrator does itself."""
    who = "self" if ctx.values.get(RUN_BY) == "self" else "independent"
    return ("Write the report file where your brief says, in the format it names, with every "
            f'finding, blocking or not, and "reviewer": "{who}". An empty items list means you '
            "found nothing.")
