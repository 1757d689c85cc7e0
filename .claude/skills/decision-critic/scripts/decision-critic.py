#!/usr/bin/env python3
"""Decision critic: stress-test a decision before committing to it, and give a verdict."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from collections.abc import Callable

from skills.lib.workflow import (
    Action,
    Arg,
    Param,
    Resource,
    StepContext,
    StepDef,
    Workflow,
    main,
    register_workflow,
)

FAILURE_MODES = Resource(
    "failure-modes", "resources/failure-modes.md",
    "Part A: how decisions fail, for the pre-mortem; Part B: reasoning traps, for the verdict.")


def about(text: str) -> Callable[[StepContext], str]:
    """An action that opens with the decision under review, so every step shows it (but for
    the steps that print it among their params)."""

    def render(ctx: StepContext) -> str:
        if ctx.params_shown:
            return text
        decision = ctx.params["decision"].strip().rstrip(".")  # its sentence ends after the quote
        return f"Decision under review: \"{decision}\". {text}"

    return render


frame = StepDef(
    "frame", "Restate the decision and surface its assumptions",
    actions=[
        Action("Read what it refers to (code, documents, a discussion), then restate it as 'We "
               "will X instead of Y, so that Z', naming any other reading "
               "that would change the critique; its goals, stated and unstated (cost, time, "
               "maintainability, skills, room to change course; mark the unstated ones); what "
               "success looks like; what happens if nobody decides.", out="RESTATEMENT"),
        Action("Number what must be true for it to meet its goals (A1, A2, ...): about users, "
               "scale, technology, people, cost, the outside world. For each: stated or not; "
               "load-bearing (false would flip the decision) or not; verified, refuted or "
               "unverified, checking the cheap load-bearing ones now, with sources.",
               out="ASSUMPTIONS"),
    ],
    forbidden=[
        "Do not judge it yet, swap in a decision you prefer, list assumptions true of any "
        "decision, or call one verified without a source.",
    ],
    args=[Arg("RESTATEMENT"), Arg("ASSUMPTIONS")],
    next={"ok": "challenge"},
)

challenge = StepDef(
    "challenge", "Steelman the alternatives and run a pre-mortem",
    reads=("ASSUMPTIONS",),
    resources=[FAILURE_MODES],
    actions=[
        about("Argue against it as its best critics would."),
        Action("At least three: doing nothing or deferring, a smaller version, and the "
               "strongest different approach a sceptic would propose. For each, its best case, "
               "when it clearly wins, its costs, and where the decision loses to it.",
               out="ALTERNATIVES"),
        Action("A year on, it has failed: the likeliest story, then three or more failure modes "
               "from two or more categories of Part A (people, process and outside events as "
               "well as technology), each with likelihood, severity, earliest warning sign, the "
               "A-number it proves false, and a concrete mitigation or none.",
               out="FAILURE_MODES"),
        Action("Its second-order effects (what it makes harder later, who else it touches, what "
               "it commits you to) and what undoing it costs after a week, three months and a "
               "year, in time, money and trust.", out="CONSEQUENCES"),
    ],
    forbidden=[
        "No strawman and no winner yet; a mitigation counts only as a step someone will take.",
    ],
    args=[
        Arg("ALTERNATIVES"), Arg("FAILURE_MODES"), Arg("CONSEQUENCES"),
        Arg("REVERSIBILITY", "two-way (cheap to undo), costly (undoable, at a growing cost) or "
                             "one-way (permanent)",
            choices=("two-way", "costly", "one-way")),
    ],
    next={"ok": "verdict"},
)

verdict = StepDef(
    "verdict", "Weigh the evidence and give the verdict",
    reads=("RESTATEMENT", "ASSUMPTIONS", "ALTERNATIVES", "FAILURE_MODES", "CONSEQUENCES",
           "REVERSIBILITY"),
    actions=[
        about("Grade the evidence for the three to five claims it leans on hardest (measured "
              "here or elsewhere, vendor claim, anecdote, intuition), and for each the "
              "observation that would change your mind and its cost. Check the reasoning "
              "against Part B of failure-modes."),
        "Choose: go; go-with-changes (name them); or reconsider (a load-bearing assumption is "
        "refuted, an alternative is clearly better, or a one-way risk has no mitigation; "
        "changes that amount to an alternative mean reconsider). The less reversible it is, "
        "the stronger the evidence it needs.",
        Action("At most 25 lines: the verdict; the deciding reasons, strongest first, citing "
               "A-numbers; the changes or what to revisit; the cheapest test for the biggest "
               "uncertainty; the tripwires that should reopen it.",
               out="reply"),
    ],
    forbidden=[
        "Do not hedge into no verdict, or let an argument no step examined decide it: name it "
        "as an open question.",
    ],
    next={"ok": None},
    complete="Give the user your answer.",
)

WORKFLOW = register_workflow(Workflow(
    name="decision-critic",
    description="It stress-tests a decision and gives a verdict: go, go with changes, or "
                "reconsider.",
    params=[Param("decision", "the decision to stress-test, in one or two sentences",
                  required=True)],
    steps=[frame, challenge, verdict],
))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
