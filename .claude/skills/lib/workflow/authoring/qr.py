"""Quality-review loops: `qr_loop` expands one work step and one review step into the triple
work -> review -> gate, bounded, escalating to the user (PROTOCOL.md sections 2 and 5).

- The review reports QR_VERDICT (pass or fail) and QR_FINDINGS; the gate is script-decided from
  that verdict, so the routing is the script's, not the orchestrator's say-so.
- A failed gate sends the run back to the work step in fix mode; the ledger counts each failed
  gate once, and the banners show the pass (fresh-review on the review, fix on the work step).
- Which severities block narrows as passes rise, as conventions/severity.md says.
- When the passes are used up, the user is asked: continue, fix blocking issues only, accept the
  risk and go on, or abort. The answer is recorded in run memory (QR_USER_DECISION).
"""

from ..graph.model import (
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    QRRole,
    Rework,
    StepContext,
    StepDef,
    Text,
    decides,
    marked,
    render_text,
)

VERDICT, FINDINGS, DECISION = "QR_VERDICT", "QR_FINDINGS", "QR_USER_DECISION"
#: Extra rounds the user may grant after the loop's passes are used up, per option.
EXTRA_ROUNDS = 2
#: Reviews redone for a missing or malformed report before the user is asked.
REDO_LIMIT = 3


def qr_loop(checkpoint: str, *, work: StepDef, review: StepDef, on_pass: str,
            limit: int = 5, check: StepDef | None = None,
            report: Text | None = None) -> tuple[StepDef, ...]:
    """The steps of one quality-review loop named `checkpoint`, to put among a workflow's steps
    (`steps=[..., *qr_loop("plan-review", work=..., review=..., on_pass="execute"), ...]`):
    `work`, `review` (their `next` is set here), then `<checkpoint>-gate`,
    `<checkpoint>-escalate` and `<checkpoint>-abort`. The review reports its verdict
    (`QR_VERDICT`, pass or fail) and findings (`QR_FINDINGS`); the gate, which the script
    decides, leads a pass to `on_pass` and a fail back to `work` in fix mode, for at most
    `limit` passes; after the last failed one the user chooses how to go on (more rounds,
    blocking findings only, accept the risk, or abort).

    `check`, given, sits between work and review (e.g. a script-decided schema check); the author
    sets its `next` (on to the review, or back to the work). `report`, given, is the path of the
    reviewer's report file (conventions/qr-report.md): the gate then decides from that file,
    not from a verdict the orchestrator reports, and a missing or malformed report redoes the
    review."""
    gate, escalate, abort = f"{checkpoint}-gate", f"{checkpoint}-escalate", f"{checkpoint}-abort"
    role = QRRole(checkpoint, "work", f"{gate}:fail", limit,
                  (f"{escalate}:continue", f"{escalate}:fix-blocking"))
    found = _Findings(report)
    steps = [marked(work._replace(next={"ok": check.id if check else review.id},
                                  actions=(Action(found.fix_pass), *work.actions),
                                  dispatch=found.briefed(work.dispatch),
                                  optional_reads=(*work.optional_reads, *found.reads, DECISION)),
                    qr=role)]
    steps += [check] if check is not None else []
    gate_step = marked(StepDef(gate, f"Gate of review loop '{checkpoint}'", handler=_gate,
                               reads=(VERDICT,), actions=["The review's verdict decided."],
                               next={"pass": on_pass, "fail": Rework(work.id, limit, escalate)}),
                       qr=role._replace(role="gate"))
    if report is not None:
        from .qrreport import report_gate, report_prepare, report_summary

        gate_step = gate_step._replace(
            handler=report_gate(report, blocking), reads=(),
            actions=(Action(report_summary(report, blocking)),),
            prepare=report_prepare(report),
            next={**gate_step.next, "redo": Rework(review.id, REDO_LIMIT, escalate)})
    return (*steps, _review(review, gate, role._replace(role="review"), report), gate_step,
            _escalation(checkpoint, escalate, work.id, on_pass, abort, limit,
                        role._replace(role="escalate"), found),
            StepDef(abort, f"Stop: review loop '{checkpoint}' did not pass", reads=found.reads,
                    actions=[Action(found.listed(f"Tell the user the work stopped because "
                                                 f"review loop '{checkpoint}' did not pass, "
                                                 "and list the open findings"), out="reply")],
                    forbidden=["Do not continue the work or fix findings now."],
                    next={"ok": None},
                    complete="The workflow stopped. Give the user the list you wrote."))


#: What a fix pass does, said in its prompt and in what its sub-run holds.
FIX_LEAD = ("fix the blocking findings of the last review, and nothing else, in the work "
            "already produced; do not redo it from scratch")


class _Findings:
    """Where a loop's findings are: run memory (QR_FINDINGS, reported by the orchestrator) or
    the reviewer's report file; the texts that point at them."""

    def __init__(self, report: Text | None) -> None:
        self.report = report
        self.reads: tuple[str, ...] = (FINDINGS,) if report is None else ()

    def where(self, ctx: StepContext) -> str:
        if self.report is None:
            return "(QR_FINDINGS, as you reported them with the review's verdict)"
        return f"(in the report at {render_text(self.report, ctx)})"

    def listed(self, lead: str) -> Text:
        """An instruction about the open findings, pointing at where they are."""
        return lambda ctx: f"{lead} {self.where(ctx)}, with their severities."

    def fix_pass(self, ctx: StepContext) -> str:
        """Heads the work step's actions on a fix pass (nothing on the first pass). When a
        sub-agent does the work, the findings go in its prompt (`briefed`), not to you."""
        if review_pass(ctx) == 1:
            return ""
        if ctx.step.dispatch is not None:
            if ctx.step.dispatch.script and ctx.run:  # the banner and the prompt say it
                return ""
            return ("This is a fix pass: the sub-agent's prompt below carries the findings of "
                    "the last review it must fix. Start it as the dispatch says.")
        only = " (MUST)" if blocking(ctx) == ("MUST",) else ""
        return (f"This is a fix pass: fix the blocking{only} findings of the last review "
                f"{self.where(ctx)}, and nothing else, in the work you already produced. The "
                "instructions below say what that work must meet; do not redo it from scratch.")

    def briefed(self, dispatch: Dispatch | None) -> Dispatch | None:
        """A work step's dispatch that, on a fix pass, hands the sub-agent the findings to fix
        (it sees nothing of the run but what it is given): a sub-run of this run holds them
        (`fix`: its first command carries --fix), and the prompt says so in one line; a
        sub-agent without one gets them in its prompt."""
        if dispatch is None:
            return None
        brief = dispatch.prompt
        in_sub_run = dispatch.script is not None

        def prompt(ctx: StepContext) -> str:
            text = render_text(brief, ctx)
            if review_pass(ctx) == 1:
                return text
            if in_sub_run and ctx.run is not None:
                return (f"This is a fix pass: {FIX_LEAD}; the sub-run the command below "
                        f"starts shows them (FIX_FINDINGS) where the work is. The work was: "
                        f"{text}")
            return f"{self.to_fix(ctx)}\n\n{text}"

        def fix(ctx: StepContext) -> str:
            return "" if review_pass(ctx) == 1 else self.listed_findings(ctx)

        return dispatch._replace(prompt=prompt, fix=fix)

    def to_fix(self, ctx: StepContext) -> str:
        """The fix pass's brief: what it is, then the blocking findings of the last review."""
        head = f"This is a fix pass: {FIX_LEAD}."
        if self.report is None:
            return f"{head} The findings, as the review reported them:\n{self.listed_findings(ctx)}"
        return f"{head}\n{self.listed_findings(ctx)}"

    def listed_findings(self, ctx: StepContext) -> str:
        """The blocking findings of the last review, one a line (and the report's path)."""
        if self.report is None:
            return ctx.values.get(FINDINGS, "").strip() or "(none were reported)"
        from .qrreport import blocking_findings

        where = render_text(self.report, ctx)
        return f"{blocking_findings(where, blocking(ctx))}\nThe whole report: {where}"


def review_pass(ctx: StepContext) -> int:
    """The 1-based review pass the run is in: failed gates plus extra rounds granted, plus one."""
    role = ctx.step.qr
    assert role is not None
    return 1 + ctx.passes(role.counter) + sum(ctx.passes(c) for c in role.extra)


def blocking(ctx: StepContext) -> tuple[str, ...]:
    """The severities that fail the gate this pass (conventions/severity.md): MUST and SHOULD on
    the first two passes, MUST alone from the third, or when the user asked for blocking
    issues only."""
    role = ctx.step.qr
    assert role is not None
    if review_pass(ctx) >= 3 or ctx.passes(role.extra[1]) > 0:
        return ("MUST",)
    return ("MUST", "SHOULD")


def _severities(ctx: StepContext) -> str:
    return (f"Review pass {review_pass(ctx)}: {' and '.join(blocking(ctx))} block; report "
            "the other findings too, as non-blocking. Review all of the work as it is now; an "
            "earlier finding keeps its id and severity.")


def _review(review: StepDef, gate: str, role: QRRole, report: Text | None) -> StepDef:
    from .conventions import convention_path

    actions: tuple[Action | str, ...] = (Action(_severities), *review.actions)
    conventions = (*review.conventions, ConventionRef("severity", "Grade every finding with it."))
    dispatch = review.dispatch
    if dispatch is not None:
        # A sub-agent reviews: the pass, its blocking severities, the grading convention and
        # where the report goes are in its verbatim prompt, which the orchestrator passes on.
        brief, grading = dispatch.prompt, convention_path("severity")

        def prompt(ctx: StepContext) -> str:
            return "\n\n".join([
                f"{_severities(ctx)} Grade each finding MUST, SHOULD or COULD by your "
                f"checklist's severity table, else by {grading}.", render_text(brief, ctx),
                *([_report_brief(report, ctx)] if report is not None else [])])

        dispatch, actions, conventions = (dispatch._replace(prompt=prompt), review.actions,
                                          review.conventions)
    elif report is not None:
        actions = (*actions, Action(lambda ctx: _report_brief(report, ctx)))
    if report is not None:
        # With a sub-agent reviewing, its reply (the report's path) is all the orchestrator
        # waits for, and NEXT asks it for nothing: there is no verdict to report.
        decides = () if dispatch is not None else (Action(
            "The report decides the gate, not you: once it is written, run the command below."),)
        return marked(review._replace(actions=(*actions, *decides), dispatch=dispatch,
                                      conventions=conventions, next={"ok": gate}), qr=role)
    return marked(review._replace(
        actions=(*actions, Action(_verdict, out=VERDICT),
                 Action("List every open finding: id, severity, location, problem, fix.",
                        out=FINDINGS)),
        dispatch=dispatch, conventions=conventions,
        args=(*review.args,
              Arg(VERDICT, "pass or fail, by the blocking severities of this pass",
                  choices=("pass", "fail")),
              Arg(FINDINGS, "each open finding: id, severity, location, problem, fix; or "
                            "none")),
        next={"ok": gate}), qr=role)


def _verdict(ctx: StepContext) -> str:
    return (f"Set the verdict: fail if any finding of a blocking severity "
            f"({' or '.join(blocking(ctx))}) is open, otherwise pass.")


def _report_brief(report: Text, ctx: StepContext) -> str:
    from .conventions import convention_path

    return (f"Write all findings as JSON to {render_text(report, ctx)} (format: "
            f"{convention_path('qr-report')}). If the file exists, rewrite it whole, keeping "
            "each earlier finding's id, marked resolved once the work no longer has it.")


@decides("pass", "fail")
def _gate(ctx: StepContext) -> str:
    return "pass" if ctx.values.get(VERDICT, "").strip() == "pass" else "fail"


def _escalation(checkpoint: str, step_id: str, work: str, on_pass: str, abort: str,
                limit: int, role: QRRole, found: _Findings) -> StepDef:
    question = (f"Review loop '{checkpoint}' still fails after {limit} passes. How should I go "
                "on?")
    return marked(StepDef(
        step_id, f"Ask the user how to go on with review loop '{checkpoint}'",
        reads=found.reads,
        actions=[Action(lambda ctx: (
                     f"Show the user the open findings of the last review {found.where(ctx)}, "
                     "blocking ones first, in a few lines each. Then put the question below to "
                     "the user and wait for the answer. If the answer fits none of the options, "
                     "ask again.")),
                 Action("Once the user has answered the question below, record the answer in "
                        "their own words.", out=DECISION)],
        ask_user=AskUser(question, {
            "continue": "Continue: one more round of fixes and a fresh review",
            "fix-blocking": "Treat SHOULD findings as non-blocking: fix the MUST findings only, "
                            "then review again",
            "accept": "Accept the risk of the open findings and go on",
            "abort": "Abort: stop here"}),
        forbidden=["Do not answer the question yourself or choose an option for the user.",
                   "Do not fix anything while you wait for the answer."],
        args=(Arg(DECISION, "the user's answer in their own words"),),
        next={"continue": Rework(work, EXTRA_ROUNDS, abort),
              "fix-blocking": Rework(work, EXTRA_ROUNDS, abort),
              "accept": on_pass, "abort": abort}), qr=role)
