#!/usr/bin/env python3
"""Problem analysis: frame a bug or incident, test competing hypotheses, name the root cause."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from importlib import import_module

from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Rework,
    StepDef,
    Workflow,
    main,
    register_workflow,
)

_texts = import_module("skills.problem-analysis.scripts._texts")
MAX_PASSES, last_pass = _texts.MAX_PASSES, _texts.last_pass
next_focus, cause_status = _texts.next_focus, _texts.cause_status
CAUSE_CATEGORIES, TECHNIQUES = _texts.CAUSE_CATEGORIES, _texts.TECHNIQUES
CONFIDENCE_ARG, LEDGER_LINE = _texts.CONFIDENCE_ARG, _texts.LEDGER_LINE


frame = StepDef(
    "frame", "Frame the problem",
    actions=[
        "Start from the problem the user described when they asked for this analysis. Collect "
        "the symptoms verbatim: exact error messages, stack traces, log lines, wrong "
        "output. Quote them; a paraphrase loses the detail that identifies the cause.",
        "State expected versus actual behaviour, and where the expectation comes from (a test, "
        "the docs, a spec, an earlier version, or only the reporter's belief).",
        "Map the scope by contrast: where it fails and where it works (environments, inputs, "
        "users, versions, platforms), since when, and whether it fails always or intermittently. "
        "Write unknown for what you cannot find out from the code, logs or history.",
        "Try once to reproduce it with the smallest command or input you can. Record the result: "
        "reproduced (with the command), not reproduced, or not attempted and why.",
        "Note the constraints: what you must not touch (production systems, shared data), "
        "deadlines, and what the user has already tried.",
        Action("Write the problem statement: symptoms, expected vs actual, scope, reproduction, "
               "constraints.", out="PROBLEM"),
        Action("List the facts established so far, each with its source (file:line, command and "
               "output, log excerpt).", out="EVIDENCE"),
    ],
    forbidden=[
        "Do not guess at causes or propose fixes yet; a premature theory bends how you read "
        "the evidence.",
        "Do not change code, configuration or data.",
        "Do not ask the user for facts you can get by reading the code, logs or history.",
    ],
    args=[
        Arg("PROBLEM", "symptoms (quoted), expected vs actual, scope, reproduction status, "
                       "constraints"),
        Arg("EVIDENCE", "facts established so far, each with its source; write none if there "
                        "are none yet"),
    ],
    next={"ok": "hypothesize"},
)

hypothesize = StepDef(
    "hypothesize", "List competing hypotheses",
    reads=("PROBLEM", "EVIDENCE"),
    resources=[CAUSE_CATEGORIES],
    actions=[
        "Write at least three competing hypotheses. Each names a specific, falsifiable mechanism "
        "('the cache key omits the locale, so one user's page is served to another'), not a "
        "category ('a caching problem'). Include at least one from outside the area you "
        "suspect first.",
        "Check each against PROBLEM and EVIDENCE: it must explain every symptom, including why "
        "it fails where it fails and works where it works. Drop any that contradicts an "
        "established fact.",
        "For each, write the observation that would distinguish it from the others, and the "
        "cheapest check that produces that observation.",
        Action("Record the hypotheses as a ledger, most likely first, one line each: "
               f"{LEDGER_LINE}. Every status is open for now.", out="HYPOTHESES"),
        Action("Choose the first check: the one that best separates the top hypotheses at the "
               "lowest cost. Say what result each hypothesis predicts for it.", out="NEXT_FOCUS"),
    ],
    forbidden=[
        "Do not run checks or experiments yet; the next step does that, one focus at a time.",
        "Do not propose a fix.",
        "Do not settle on a single hypothesis; competing ones are what make a check informative.",
    ],
    args=[
        Arg("HYPOTHESES", f"the ledger, most likely first, one line each: {LEDGER_LINE}"),
        Arg("NEXT_FOCUS", "the first check: what to test, how, and what each hypothesis "
                          "predicts for it"),
    ],
    next={"ok": "investigate"},
)

investigate = StepDef(
    "investigate", "Investigate one focus",
    reads=("PROBLEM", "HYPOTHESES", "EVIDENCE", "NEXT_FOCUS"),
    optional_reads=("FINDINGS",),
    resources=[TECHNIQUES],
    actions=[
        "Take NEXT_FOCUS as this pass's check. Before running it, write down what it should "
        "show if the leading hypothesis (first in the ledger) holds and if it does not; if both "
        "look alike, pick a sharper check. Then run it.",
        Action("Record the two predictions, then what the check showed, with sources.",
               out="FINDINGS"),
        Action("Update the ledger: mark each entry supported (it predicted what you saw), "
               "refuted (it predicted what did not happen) or open; keep refuted entries and "
               "keep every entry's H-number; add one if none fits. Carry this pass's result, "
               "with its source, into every entry it bears on: the ledger is the record of all "
               "passes (FINDINGS keeps only the latest). Order by support, best first.",
               out="HYPOTHESES"),
        Action("Rate confidence in the best-supported hypothesis. High needs all four: you can "
               "point to the defect; you can explain how it causes every symptom; a check that "
               "could have refuted it did not; its rivals are refuted. Medium: one is missing. "
               "Low: more.", out="CONFIDENCE"),
        Action(next_focus, out="NEXT_FOCUS"),
    ],
    forbidden=[
        "Do not rate confidence on plausibility; only checks that could have failed count.",
        "Do not fix the bug. A throwaway change (extra logging, a one-line experiment) is a fair "
        "check in a scratch copy or branch; undo it before you leave this step.",
        "Do not experiment on production or shared data without the user's consent.",
    ],
    args=[
        Arg("CONFIDENCE", CONFIDENCE_ARG, choices=("low", "medium"), outcomes=("iterate",)),
        Arg("CONFIDENCE", CONFIDENCE_ARG, choices=("high",), outcomes=("ok",)),
        Arg("FINDINGS", "the predictions, then what this pass's check showed, with sources "
                        "(file:line, output)"),
        Arg("HYPOTHESES", f"the updated ledger, best-supported first: {LEDGER_LINE}"),
        Arg("NEXT_FOCUS", "the next check: what and how, what it needs (access, data, time), "
                          "and what each open hypothesis predicts", outcomes=("iterate",)),
    ],
    when={
        "iterate": "your confidence is low or medium",
        "ok": "your confidence is high",
    },
    next={
        "iterate": Rework("investigate", max_iterations=MAX_PASSES, on_exhausted="escalate"),
        "ok": "root-cause",
    },
)

root_cause = StepDef(
    "root-cause", "Formulate the root cause and fix options",
    reads=("PROBLEM", "HYPOTHESES", "EVIDENCE", "FINDINGS", "CONFIDENCE"),
    optional_reads=("USER_ANSWER",),
    actions=[
        cause_status,
        lambda ctx: ("Follow any hint or constraint in USER_ANSWER." if "USER_ANSWER" in
                     ctx.values else "Work from the ledger and the findings shown above."),
        "Trace the causal chain from the best-supported hypothesis: trigger, then the defect "
        "(file:line), then the mechanism, then the symptom. Keep asking why the defect exists "
        "until you reach a cause that one change would remove for good; stop there.",
        "Check the chain against PROBLEM: it must explain every symptom and the scope contrast "
        "(why here and not there).",
        Action("Write the causal chain, naming any symptom it leaves unexplained.",
               out="ROOT_CAUSE"),
        Action("Describe two or three fix options at different levels (e.g. patch at the "
               "symptom, fix at the origin, add a guard or a test that stops a recurrence). For "
               "each: what changes and where, risk, effort, and what it leaves unfixed.",
               out="FIX_OPTIONS"),
        Action("Recommend one option and say why. Name the check that proves it works: a test "
               "or reproduction that fails now and passes after the fix.", out="RECOMMENDATION"),
    ],
    forbidden=[
        "Do not apply a fix; the user chooses which one.",
        "Do not offer a symptom suppressor (catch and ignore, retry, a longer timeout) as a fix "
        "unless you label it a workaround.",
    ],
    args=[
        Arg("ROOT_CAUSE", "the causal chain from trigger to symptom, with file:line, and any "
                          "symptom it leaves unexplained (or none)"),
        Arg("FIX_OPTIONS", "two or three options, each with location, risk, effort and what it "
                           "leaves unfixed"),
        Arg("RECOMMENDATION", "the recommended option, why, and the test that proves the fix"),
    ],
    next={"ok": "report"},
)

report = StepDef(
    "report", "Report the analysis",
    reads=("PROBLEM", "EVIDENCE", "HYPOTHESES", "FINDINGS", "CONFIDENCE", "ROOT_CAUSE",
           "FIX_OPTIONS", "RECOMMENDATION"),
    actions=[
        cause_status,
        Action("Write the report for the user under these headings, each a few lines: Problem; "
               "Root cause (confirmed or probable, as said above); Evidence (the facts that "
               "establish it, with sources); Ruled out (refuted hypotheses, one line each with "
               "the reason); Fix options; Recommendation and how to verify it; Open questions "
               "(or none).", out="reply"),
    ],
    forbidden=[
        "Do not apply the fix unless the user asks for it after reading the report.",
        "Do not present a probable cause as certain.",
    ],
    next={"ok": None},
    complete="The analysis is finished. Give the user the report you wrote in this step as your "
             "answer, and offer to implement the recommended fix.",
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
    description="Purpose: frame a bug or incident, list competing hypotheses, test them in up to "
                f"{MAX_PASSES} evidence-gathering passes, then name the root cause and fix "
                "options.",
    steps=[frame, hypothesize, investigate, root_cause, report, escalate, extra_check,
           report_open],
))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
