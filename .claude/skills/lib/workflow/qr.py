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

from collections.abc import Mapping

from .core import StepContext, StepDef, render_text
from .errors import UsageError
from .types import Action, Arg, AskUser, ConventionRef, QRRole, Rework, decides

VERDICT, FINDINGS, DECISION = "QR_VERDICT", "QR_FINDINGS", "QR_USER_DECISION"
#: Extra rounds the user may grant after the loop's passes are used up, per option.
EXTRA_ROUNDS = 2


def qr_loop(checkpoint: str, *, work: StepDef, review: StepDef, on_pass: str,
            limit: int = 5) -> tuple[StepDef, ...]:
    """The steps of one QR loop named `checkpoint`: `work`, `review` (their `next` is set
    here), then `<checkpoint>-gate`, `<checkpoint>-escalate` and `<checkpoint>-abort`. A pass
    leads to `on_pass`."""
    gate, escalate, abort = f"{checkpoint}-gate", f"{checkpoint}-escalate", f"{checkpoint}-abort"
    counter = f"{gate}:fail"
    extra = (f"{escalate}:continue", f"{escalate}:fix-blocking")
    role = QRRole(checkpoint, "work", counter, limit, extra)
    return (
        work._replace(next={"ok": review.id}, qr=role, actions=(Action(_fix_pass), *work.actions),
                      optional_reads=(*work.optional_reads, FINDINGS, DECISION)),
        _review(review, gate, role._replace(role="review")),
        StepDef(gate, f"Gate of review loop '{checkpoint}'", handler=_gate, reads=(VERDICT,),
                actions=["The script has read the review's verdict and chosen the way on. "
                         "Run the command below."],
                next={"pass": on_pass, "fail": Rework(work.id, limit, escalate)},
                qr=role._replace(role="gate")),
        _escalation(checkpoint, escalate, work.id, on_pass, abort, limit,
                    role._replace(role="escalate")),
        StepDef(abort, f"Stop: review loop '{checkpoint}' did not pass", reads=(FINDINGS,),
                actions=[Action("Tell the user the work stopped because review loop "
                                f"'{checkpoint}' did not pass, and list the open findings shown "
                                "above with their severities.", out="reply")],
                forbidden=["Do not continue the work or fix findings now."],
                next={"ok": None},
                complete="The workflow stopped. Give the user the list you wrote."),
    )


def review_pass(ctx: StepContext) -> int:
    """The 1-based review pass the run is in: failed gates plus extra rounds granted, plus one."""
    role = ctx.step.qr
    assert role is not None
    return 1 + ctx.passes(role.counter) + sum(ctx.passes(c) for c in role.extra)


def iteration_flags(step: StepDef, counts: Mapping[str, int]) -> tuple[list[str], dict[str, int]]:
    """A stateless command into a step of a review loop carries the loop's pass as the original
    protocol did: `--qr-iteration N`, and `--qr-fail` on a fix pass of the work step. Returns
    those flags and the counters still to carry as --loop."""
    role = step.qr
    assert role is not None
    rest = dict(counts)
    iteration = 1 + rest.pop(role.counter, 0) + sum(rest.get(c, 0) for c in role.extra)
    fix = ["--qr-fail"] if role.role == "work" and iteration > 1 else []
    return [f"--qr-iteration={iteration}", *fix], rest


def counts_from_flags(step: StepDef, counts: Mapping[str, int], iteration: int | None,
                      fix: bool) -> dict[str, int]:
    """The loop counters a stateless invocation's --qr-iteration and --qr-fail stand for."""
    where = f"step '{step.id}'"
    role = step.qr
    if role is None:
        raise UsageError("--qr-iteration and --qr-fail belong to the steps of a review loop",
                         where, "Run the printed command unchanged")
    if iteration is None:
        raise UsageError("--qr-fail needs --qr-iteration", where,
                         "Run the printed command unchanged")
    if role.counter in counts:
        raise UsageError(f"--qr-iteration and --loop {role.counter} both give the loop's pass",
                         where, "Give one of them")
    fails = iteration - 1 - sum(counts.get(c, 0) for c in role.extra)
    if fails < 0:
        raise UsageError(f"--qr-iteration {iteration} is below the passes the run has made",
                         where, "Run the printed command unchanged")
    if fix and (role.role != "work" or iteration < 2):
        raise UsageError("--qr-fail marks a fix pass: the work step of a review loop, with "
                         "--qr-iteration 2 or more", where, "Run the printed command unchanged")
    return {**counts, role.counter: fails} if fails else dict(counts)


def blocking(ctx: StepContext) -> tuple[str, ...]:
    """The severities that fail the gate this pass (conventions/severity.md): MUST and SHOULD on
    the first two passes, MUST alone from the third, or when the user asked for blocking
    issues only."""
    role = ctx.step.qr
    assert role is not None
    if review_pass(ctx) >= 3 or ctx.passes(role.extra[1]) > 0:
        return ("MUST",)
    return ("MUST", "SHOULD")


def _fix_pass(ctx: StepContext) -> str:
    """Heads the work step's actions on a fix pass (nothing on the first pass)."""
    if review_pass(ctx) == 1:
        return ""
    only = " (MUST)" if blocking(ctx) == ("MUST",) else ""
    return (f"This is a fix pass: fix the blocking{only} findings of the last review "
            "(QR_FINDINGS), and nothing else, in the work you already produced. The "
            "instructions below say what that work must meet; do not redo it from scratch.")


def _severities(ctx: StepContext) -> str:
    return (f"This is review pass {review_pass(ctx)}. Blocking this pass: "
            f"{' and '.join(blocking(ctx))}; report the other findings too, marked "
            "non-blocking. Review the work as it is now, as if for the first time.")


def _review(review: StepDef, gate: str, role: QRRole) -> StepDef:
    def verdict(ctx: StepContext) -> str:
        return (f"Set the verdict: fail if any finding of a blocking severity "
                f"({' or '.join(blocking(ctx))}) is open, otherwise pass.")

    actions: tuple[Action | str, ...] = (Action(_severities), *review.actions)
    conventions = (*review.conventions, ConventionRef("severity", "Grade every finding with it."))
    dispatch = review.dispatch
    if dispatch is not None:
        # A sub-agent reviews: the pass, its blocking severities and the grading convention go
        # into its verbatim prompt, since the orchestrator passes the prompt on unchanged.
        from .conventions import convention_path

        brief, grading = dispatch.prompt, convention_path("severity")

        def prompt(ctx: StepContext) -> str:
            return (f"{_severities(ctx)} Grade every finding MUST, SHOULD or COULD as {grading} "
                    f"defines them.\n\n{render_text(brief, ctx)}")

        dispatch, actions, conventions = (dispatch._replace(prompt=prompt), review.actions,
                                          review.conventions)
    return review._replace(
        actions=(*actions, Action(verdict, out=VERDICT),
                 Action("List every open finding: id, severity, location, problem, fix.",
                        out=FINDINGS)),
        dispatch=dispatch, conventions=conventions,
        args=(*review.args,
              Arg(VERDICT, "pass or fail, by the blocking severities of this pass",
                  choices=("pass", "fail")),
              Arg(FINDINGS, "each open finding: id, severity, location, problem, fix; or "
                            "none")),
        next={"ok": gate}, qr=role)


@decides("pass", "fail")
def _gate(ctx: StepContext) -> str:
    return "pass" if ctx.values.get(VERDICT, "").strip() == "pass" else "fail"


def _escalation(checkpoint: str, step_id: str, work: str, on_pass: str, abort: str,
                limit: int, role: QRRole) -> StepDef:
    question = (f"Review loop '{checkpoint}' still fails after {limit} passes. How should I go "
                "on?")
    return StepDef(
        step_id, f"Ask the user how to go on with review loop '{checkpoint}'",
        reads=(FINDINGS,),
        actions=["Show the user the open findings of the last review (QR_FINDINGS), blocking "
                 "ones first, in a few lines each. Then put the question below to the user and "
                 "wait for the answer. If the answer fits none of the options, ask again.",
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
              "accept": on_pass, "abort": abort},
        qr=role)
