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
    "Part A catalogues how decisions fail; read it before listing failure modes.")
REASONING_TRAPS = Resource(
    "failure-modes", "resources/failure-modes.md",
    "Part B catalogues reasoning traps; read it before checking the reasoning.")


def about(text: str) -> Callable[[StepContext], str]:
    """An action that opens with the decision under review, so every step shows it (but for
    the steps that print it among their params)."""

    def render(ctx: StepContext) -> str:
        if ctx.params_shown:
            return text
        decision = ctx.params["decision"].strip().rstrip(".")  # its sentence ends after the quote
        return f"Decision under review: \"{decision}\". {text}"

    return render


restate = StepDef(
    "restate", "Restate the decision and its goals",
    actions=[
        about("If it refers to code, documents or a discussion you can reach, read enough of "
              "them to know what is actually being decided."),
        "Restate it in one sentence: 'We will X instead of Y, so that Z.' If the text allows "
        "readings that would change the critique, take the most likely one and name the others.",
        "List the goals it serves. Stated goals come from the text; add the unstated ones any "
        "sensible owner would also hold (cost, delivery time, maintainability, team skills, "
        "room to change course) and mark them unstated.",
        "Say what success would look like in observable terms, and what happens by default if "
        "nobody decides.",
        Action("Record the restatement, other readings, goals, success criteria and default.",
               out="RESTATEMENT"),
    ],
    forbidden=[
        "Do not judge the decision yet.",
        "Do not swap in a decision you like better; critique the one given.",
    ],
    args=[
        Arg("RESTATEMENT", "the one-sentence restatement, other readings (or none), goals with "
                           "unstated ones marked, success criteria, the default"),
    ],
    next={"ok": "assumptions"},
)

assumptions = StepDef(
    "assumptions", "Surface the assumptions",
    reads=("RESTATEMENT",),
    actions=[
        about("List what must be true for it to meet its goals: about requirements and users, "
              "scale, the technology (performance, maturity, compatibility), the people (skills, "
              "time, ownership), cost, and the outside world (vendors, rules, deadlines)."),
        "For each, note whether it is stated or unstated and what happens if it is false. Mark "
        "it load-bearing if its being false would flip the decision.",
        "Check the load-bearing ones that are cheap to check now (code, docs, changelogs, a "
        "quick command) and mark each verified, refuted or unverified, with the source.",
        Action("Record the assumptions, numbered A1, A2, ... so later steps can cite them.",
               out="ASSUMPTIONS"),
    ],
    forbidden=[
        "Do not pad the list with assumptions true of any decision ('the team will work "
        "competently'); each must be specific to this one.",
        "Do not mark an assumption verified on your own belief; cite a source or leave it "
        "unverified.",
    ],
    args=[
        Arg("ASSUMPTIONS", "one line each, numbered for later steps to cite: 'A1 assumption -- "
                           "stated or unstated -- load-bearing or not -- verified, refuted or "
                           "unverified (source)'"),
    ],
    next={"ok": "alternatives"},
)

alternatives = StepDef(
    "alternatives", "Steelman the alternatives",
    reads=("RESTATEMENT", "ASSUMPTIONS"),
    actions=[
        about("Name at least three alternatives: doing nothing or deferring; a smaller or "
              "cheaper version of the same decision; and the strongest different approach a "
              "well-informed sceptic would propose."),
        "For each, make the case its best advocate would make: which goals it serves better, "
        "the conditions under which it clearly wins, and its honest costs.",
        "Compare each with the decision on the goals from the restatement, and say plainly "
        "where the decision loses.",
        Action("Record the alternatives and the comparison.", out="ALTERNATIVES"),
    ],
    forbidden=[
        "Do not present a strawman: if you cannot say why a sensible person would choose an "
        "alternative, you have not understood it yet.",
        "Do not pick a winner yet.",
    ],
    args=[
        Arg("ALTERNATIVES", "each alternative with its best case, when it wins, its costs, and "
                            "where the decision loses to it"),
    ],
    next={"ok": "pre-mortem"},
)

pre_mortem = StepDef(
    "pre-mortem", "Run a pre-mortem",
    reads=("ASSUMPTIONS", "ALTERNATIVES"),
    resources=[FAILURE_MODES],
    actions=[
        about("Assume it is a year later and the decision has clearly failed. Write, in a few "
              "sentences, the most plausible story of how it failed."),
        "List at least three distinct failure modes, from at least two categories of Part A "
        "of the failure-modes resource. For each: likelihood (low, medium, high), severity, "
        "the earliest warning sign, the assumption it would prove false (by its A-number), and "
        "a concrete mitigation or none.",
        Action("Record the story and the failure modes.", out="FAILURE_MODES"),
    ],
    forbidden=[
        "Do not count a failure mode as handled because a mitigation exists in principle; only "
        "a concrete step that someone would actually take counts.",
        "Do not stop at technical failures; people, process and outside events fail decisions "
        "as often.",
    ],
    args=[
        Arg("FAILURE_MODES", "the failure story, then one entry per failure mode: likelihood, "
                             "severity, warning sign, assumption, mitigation (or none)"),
    ],
    next={"ok": "consequences"},
)

consequences = StepDef(
    "consequences", "Trace second-order effects and reversibility",
    reads=("RESTATEMENT", "FAILURE_MODES"),
    actions=[
        about("Trace its effects beyond the immediate goal: what it makes easier or harder "
              "later; who else it touches (other teams, users, operations and on-call, "
              "security, budget); what it commits you to (vendors, data formats, public "
              "interfaces, skills to hire). For each effect ask once more: and then what?"),
        "Estimate what reversing it would cost after a week, after three months and after a "
        "year, and name what makes it expensive (data migrations, published interfaces, "
        "contracts, retraining).",
        Action("Record the effects and the reversal costs.", out="CONSEQUENCES"),
        Action("Classify it: two-way (cheap to undo at any time), costly (undoable, at a cost "
               "that grows with time) or one-way (practically permanent).", out="REVERSIBILITY"),
    ],
    forbidden=[
        "Do not call it reversible because undoing it is technically possible; count the real "
        "cost in time, money and trust.",
    ],
    args=[
        Arg("CONSEQUENCES", "the second-order effects, who they touch, and the reversal cost "
                            "at a week, three months and a year"),
        Arg("REVERSIBILITY", "how reversible the decision is",
            choices=("two-way", "costly", "one-way")),
    ],
    next={"ok": "evidence"},
)

evidence = StepDef(
    "evidence", "Check the evidence",
    reads=("RESTATEMENT", "ASSUMPTIONS", "ALTERNATIVES", "FAILURE_MODES", "CONSEQUENCES",
           "REVERSIBILITY"),
    resources=[REASONING_TRAPS],
    actions=[
        about("Name the three to five claims it leans on hardest (its load-bearing assumptions, "
              "and why it beats the alternatives). Grade the evidence for each: measured here, "
              "measured elsewhere, expert or vendor claim, anecdote, or intuition."),
        "For each claim, write what would change your mind: the observation that would make "
        "the decision wrong, and whether it can be had before committing, how (spike, "
        "prototype, benchmark, asking users) and at what cost.",
        "Check the reasoning of the earlier steps, and of the decision itself, against Part B "
        "of the failure-modes resource. Name each trap that applies and what it changes.",
        Action("Record the claims, their evidence grades, what would change your mind, and the "
               "traps found.", out="EVIDENCE"),
    ],
    forbidden=[
        "Do not count arguments; weigh the evidence behind them.",
        "Do not treat missing evidence against the decision as evidence for it.",
    ],
    args=[
        Arg("EVIDENCE", "each key claim with its evidence grade and what would change your "
                        "mind; the reasoning traps found (or none)"),
    ],
    next={"ok": "verdict"},
)

verdict = StepDef(
    "verdict", "Give the verdict",
    reads=("RESTATEMENT", "ASSUMPTIONS", "ALTERNATIVES", "FAILURE_MODES", "CONSEQUENCES",
           "REVERSIBILITY", "EVIDENCE"),
    actions=[
        about("Weigh what the earlier steps found: load-bearing assumptions still unverified "
              "or refuted, the strongest alternative, the most serious failure modes, and "
              "reversibility. The less reversible the decision, the stronger the evidence it "
              "needs before committing."),
        Action("Pick one verdict: go (sound as stated); go-with-changes (sound once specific "
               "changes are made); reconsider (a load-bearing assumption is refuted, an "
               "alternative is clearly better, or a one-way risk has no mitigation). If your "
               "changes amount to one of the ALTERNATIVES, the verdict is reconsider, naming "
               "that alternative.",
               out="VERDICT"),
        Action("Give the three to five reasons that decided it, strongest first, citing "
               "assumptions by A-number; for go-with-changes, the exact changes; for "
               "reconsider, what to revisit and which alternative to examine.", out="REASONS"),
        Action("Name the cheapest test that would shrink the biggest remaining uncertainty, and "
               "the tripwires: signs after committing that should reopen the decision.",
               out="TRIPWIRES"),
    ],
    forbidden=[
        "Do not hedge into no verdict; choose one and say what would change it.",
        "Do not let an argument the earlier steps did not examine decide the verdict; name it "
        "as an open question instead.",
    ],
    args=[
        Arg("VERDICT", "the verdict", choices=("go", "go-with-changes", "reconsider")),
        Arg("REASONS", "the deciding reasons, strongest first, and the changes or what to "
                       "revisit"),
        Arg("TRIPWIRES", "the cheapest test for the biggest uncertainty, and the tripwires"),
    ],
    next={"ok": "answer"},
)

answer = StepDef(
    "answer", "Write the answer",
    reads=("VERDICT", "REASONS", "TRIPWIRES", "REVERSIBILITY"),
    actions=[
        Action("Write the answer for the user: the verdict on the first line (go, go with "
               "changes, or reconsider), then the reasons, the changes or what to revisit, the "
               "cheapest test, and the tripwires, as you recorded them. Keep it under about 25 "
               "lines, and offer to go through any earlier step's findings in detail.",
               out="reply"),
    ],
    forbidden=[
        "Do not change the verdict here; it was decided in the previous step.",
    ],
    next={"ok": None},
    complete="The critique is finished. Give the user the answer you wrote in this step.",
)

WORKFLOW = register_workflow(Workflow(
    name="decision-critic",
    description="Purpose: stress-test the decision given with --decision (assumptions, "
                "alternatives, failure modes, reversibility, evidence) and give a verdict: go, "
                "go with changes, or reconsider.",
    params=[Param("decision", "the decision to stress-test, in one or two sentences",
                  required=True)],
    steps=[restate, assumptions, alternatives, pre_mortem, consequences, evidence, verdict,
           answer],
))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
