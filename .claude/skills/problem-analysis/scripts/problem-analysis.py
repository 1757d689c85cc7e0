#!/usr/bin/env python3
"""Problem analysis: frame a bug or incident, test competing hypotheses, name the root cause."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Resource,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    main,
    register_workflow,
)

# The texts several steps share: the resources, the hypothesis ledger's line format, and the
# texts that depend on where the run stands (the investigation loop's last pass, and how sure
# the root cause may be called).

CAUSE_CATEGORIES = Resource(
    "cause-categories", "resources/cause-categories.md",
    "Often-overlooked causes: read before the hypotheses.")
TECHNIQUES = Resource(
    "investigation-techniques", "resources/investigation-techniques.md",
    "How to run a check: when unsure, or after a pass found nothing.")

CONFIDENCE_ARG = "confidence in the best-supported hypothesis"
#: One ledger format for every step that writes hypotheses, so entries can be compared.
LEDGER_LINE = "'H1 [open|supported|refuted] mechanism -- evidence, or what would tell it apart'"

#: Passes through the investigate step before the user is asked how to go on.
MAX_PASSES = 4


def last_pass(ctx: StepContext) -> bool:
    """Whether this investigate pass is the last one the loop allows."""
    return ctx.passes("investigate:iterate") + 1 >= MAX_PASSES


def next_focus(ctx: StepContext) -> str:
    if last_pass(ctx):
        return ("This is the last pass. Unless confidence is high, name the check you would run "
                "next if allowed, and what it needs (access, data, time): the user will be "
                "asked whether to allow it.")
    return ("Unless confidence is high, the most telling next check: what it needs, what each "
            "open hypothesis predicts.")


def cause_status(ctx: StepContext) -> str:
    """Confirmed only when the evidence ended at high confidence (recorded in run memory)."""
    if ctx.values.get("CONFIDENCE") == "high":
        return "Confidence ended high: call the cause confirmed."
    return ("Confidence did not end high: call the cause probable everywhere, and say what "
            "would confirm it.")


frame = StepDef(
    "frame", "Frame the problem, list hypotheses",
    resources=[CAUSE_CATEGORIES],
    actions=[
        Action("From report, code, logs and history: symptoms, quoted; expected vs actual "
               "(and why expected); where, since when, how often; one minimal reproduction try "
               "(or why not); constraints; what was tried.", out="PROBLEM"),
        Action("Facts known so far, each with its source (file:line, output, log), or none.",
               out="EVIDENCE"),
        Action("Only now: three or more rival, falsifiable mechanisms ('the cache key omits the "
               "locale', not 'caching'), one outside the suspect area, none against EVIDENCE, "
               f"all symptoms explained. Likeliest first, a line each: {LEDGER_LINE}.",
               out="HYPOTHESES"),
        Action("The first check: the cheapest that best separates the leaders; what each "
               "predicts.", out="NEXT_FOCUS"),
    ],
    forbidden=[
        "No check but the reproduction try, no fix, no change to code, configuration or data; "
        "ask the user only what you cannot read.",
    ],
    args=[Arg("PROBLEM"), Arg("EVIDENCE"), Arg("HYPOTHESES"), Arg("NEXT_FOCUS")],
    next={"ok": "investigate"},
)

investigate = StepDef(
    "investigate", "Investigate one focus",
    # The ledger carries the evidence forward (EVIDENCE is the frame's facts, which its
    # entries cite); the problem statement returns at the report.
    reads=("HYPOTHESES", "NEXT_FOCUS"),
    optional_reads=("FINDINGS",),
    resources=[TECHNIQUES],
    actions=[
        Action("Run NEXT_FOCUS's check (or a sharper one if its predictions look alike); record "
               "predictions and result, with sources.", out="FINDINGS"),
        Action("The ledger updated: each entry supported, refuted or open; H-numbers kept; best "
               "first.", out="HYPOTHESES"),
        Action("In the leader (for separate faults, the least sure): high if its defect is "
               "located, explains its symptoms, survived a check able to refute it, and "
               "rivals are refuted; medium if one is missing; else low.",
               out="CONFIDENCE"),
        Action(next_focus, out="NEXT_FOCUS"),
    ],
    forbidden=[
        "No fix (a probe you undo is fair); no production or shared data without the user's "
        "consent.",
    ],
    args=[
        Arg("CONFIDENCE", choices=("low", "medium"), outcomes=("iterate",)),
        Arg("CONFIDENCE", choices=("high",), outcomes=("ok",)),
        Arg("FINDINGS"),
        Arg("HYPOTHESES"),
        Arg("NEXT_FOCUS", outcomes=("iterate",)),
    ],
    when={
        "iterate": "confidence is low or medium",
        "ok": "confidence is high",
    },
    next={
        "iterate": Rework("investigate", max_iterations=MAX_PASSES, on_exhausted="escalate"),
        "ok": "root-cause",
    },
)

root_cause = StepDef(
    "root-cause", "Name the root cause and report",
    reads=("PROBLEM", "HYPOTHESES", "FINDINGS", "CONFIDENCE"),
    optional_reads=("USER_ANSWER",),
    actions=[
        cause_status,
        lambda ctx: ("Follow any hint or constraint in USER_ANSWER." if "USER_ANSWER" in
                     ctx.values else ""),
        "Trace the leader's causal chain to each symptom: trigger, defect (file:line), "
        "mechanism; ask why the defect exists until one change would end it for good.",
        "Weigh two or three fixes at different levels (symptom, origin, guard against "
        "recurrence): where, risk, effort, what stays unfixed; recommend one, with a test failing "
        "now and passing after.",
        Action("A few lines under each of: Problem; Root cause; Evidence (sourced); Ruled out "
               "(why); Fix options; Recommendation and its test; Open questions.",
               out="reply"),
    ],
    forbidden=[
        "No fix: the user chooses. A suppressor (catch-and-ignore, retry, longer timeout) is a "
        "workaround.",
    ],
    next={"ok": None},
    complete="Give the user the report; offer to implement the recommended fix.",
)

escalate = StepDef(
    "escalate", "Ask the user how to go on",
    reads=("PROBLEM", "EVIDENCE", "HYPOTHESES", "FINDINGS", "CONFIDENCE", "NEXT_FOCUS"),
    actions=[
        f"The investigation used all {MAX_PASSES} passes without reaching high confidence. "
        "Tell the user, in at most ten lines: the leading hypothesis and your confidence; the "
        "strongest evidence for and against it; the hypotheses still open; and the check in "
        "NEXT_FOCUS you would run next, with what it needs (access, data, time).",
        "Then put the question below to the user, with its three options, and wait for the "
        "answer.",
        Action("Once the user has answered, record their answer in their own words.",
               out="USER_ANSWER"),
    ],
    ask_user=AskUser(
        "Go on with the best-supported hypothesis (the root cause will be marked probable), "
        "allow one more check (say what access or data I may use), or stop and report what is "
        "known so far?",
        {"ok": "Go on with the best-supported hypothesis",
         "more": "Allow one more check, with the access or data given",
         "stop": "Stop and report what is known"}),
    forbidden=[
        "Do not answer the question yourself or pick an option for the user.",
        "Do not run more checks while you wait for the answer.",
    ],
    args=[
        Arg("USER_ANSWER", "the user's reply in their own words, keeping any hint, hypothesis, "
                           "access or constraint they gave"),
    ],
    next={"ok": "root-cause", "more": "extra-check", "stop": "report-open"},
)

extra_check = StepDef(
    "extra-check", "Run the one check the user allowed",
    reads=("USER_ANSWER", "HYPOTHESES", "FINDINGS", "NEXT_FOCUS"),
    resources=[TECHNIQUES],
    actions=[
        "Run the check in NEXT_FOCUS, using only the access or data the user granted in "
        "USER_ANSWER. If the answer does not grant what the check needs, ask the user for it "
        "first, or run the strongest check the granted access allows and say which you did. "
        "Before running it, write down what it should show if the leading hypothesis holds and "
        "if it does not.",
        Action("Record the two predictions, then what the check showed, with sources.",
               out="FINDINGS"),
        Action("Update the ledger, keeping every entry's H-number; order by support, best "
               "first.", out="HYPOTHESES"),
        Action("Rate confidence in the best-supported hypothesis with the same rule as before: "
               "high needs the defect located, every symptom explained, a refuting check "
               "passed, and its rivals refuted.", out="CONFIDENCE"),
    ],
    forbidden=[
        "Do not run more than this one check; the user allowed one.",
        "Do not go beyond the access the user granted.",
        "Do not fix the bug.",
    ],
    args=[
        Arg("FINDINGS", "the predictions, then what the check showed, with sources"),
        Arg("HYPOTHESES", f"the updated ledger, best-supported first: {LEDGER_LINE}"),
        Arg("CONFIDENCE", CONFIDENCE_ARG, choices=("medium", "high"), outcomes=("ok",)),
        Arg("CONFIDENCE", CONFIDENCE_ARG, choices=("low",), outcomes=("stop",)),
    ],
    when={
        "ok": "your confidence is medium or high: a probable or confirmed cause can be named",
        "stop": "your confidence is still low: report what is known instead",
    },
    next={"ok": "root-cause", "stop": "report-open"},
)

report_open = StepDef(
    "report-open", "Report what is known",
    reads=("USER_ANSWER", "PROBLEM", "HYPOTHESES", "FINDINGS", "NEXT_FOCUS"),
    actions=[
        Action("The root cause was not established (the user chose to stop, or the check they "
               "allowed left confidence low). Write the report "
               "under these headings, each a few lines: Problem; What was checked (each check "
               "and its result); Hypotheses (supported, refuted, open, with the evidence); Best "
               "current explanation, labelled unconfirmed; What would settle it (the next "
               "checks, and any access or information needed from the user).", out="reply"),
    ],
    forbidden=[
        "Do not run further checks.",
        "Do not present the leading hypothesis as the root cause.",
        "Do not apply a fix.",
    ],
    next={"ok": None},
    complete="The analysis stopped at the user's request. Give the user the report you wrote in "
             "this step as your answer.",
)

WORKFLOW = register_workflow(Workflow(
    name="problem-analysis",
    description=f"It frames a bug or incident, tests rival hypotheses in up to {MAX_PASSES} "
                "passes, and names the root cause and the fixes.",
    steps=[frame, investigate, root_cause, escalate, extra_check, report_open],
))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
