#!/usr/bin/env python3
"""Deepthink: structured reasoning for an open question with no single obvious answer.

frame -> classify (and choose the mode) -> [full: perspectives -> argue (parallel sub-agents)
-> compare] -> draft -> verify (a sub-agent answers verification questions without the draft)
-> revise -> confidence: high ends with the answer; low gathers more evidence and drafts again,
at most twice, then answers with the confidence it has.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (
    Action,
    Arg,
    Dispatch,
    Param,
    Resource,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    decides,
    each_line,
    main,
    register_workflow,
    value_of,
)

TYPES = Resource("question-types", "resources/question-types.md",
                 "The question types, what a good answer is for each, how to choose "
                 "perspectives and verification questions.")


def question(ctx: StepContext) -> str:
    return ctx.params["question"]


frame = StepDef(
    "frame", "Frame and classify the question", resources=[TYPES], actions=[
        Action("First check the facts of the question you can check here now (files, docs, "
               "commands)."),
        Action("Then what exactly is asked (the decision or fact it serves); the real options, "
               "combinations included (say so if its either/or is false); what is known, with "
               "sources, and what is only assumed; what is unknown; what a good answer would "
               "let the asker do.", out="FRAME"),
        Action("Its type from the table (the one whose mistake would cost most, if several "
               "fit).", out="QUESTION_TYPE"),
        Action(lambda ctx: (f"The mode was given: {ctx.params['mode']}; report it." if
                            ctx.params["mode"] != "auto" else
                            "full when the question is a trade-off, a prediction, a design or "
                            "a judgement, or when you can name two stances that would answer "
                            "it differently; quick otherwise."),
               out="MODE")],
    args=[Arg("FRAME"), Arg("QUESTION_TYPE"), Arg("MODE", choices=("quick", "full"))],
    forbidden=["Do not answer the question yet."], next={"ok": "route"})


@decides("quick", "full")
def _route(ctx: StepContext) -> str:
    """--mode, when given, decides; otherwise the mode the agent reported."""
    given = ctx.params["mode"]
    return given if given in ("quick", "full") else ctx.values.get("MODE", "quick")


route = StepDef(
    "route", "Take the chosen mode", handler=_route, reads=("MODE",),
    actions=[Action(lambda ctx: f"Mode: {_route(ctx)}.")],
    next={"quick": "draft", "full": "perspectives"})

perspectives = StepDef(
    "perspectives", "Choose the perspectives", reads=("FRAME", "QUESTION_TYPE"),
    resources=[TYPES],
    actions=[Action("List three to five perspectives that would answer the question "
                    "differently, one per line, each in a few words with the reason it pulls "
                    "apart from the others.", out="PERSPECTIVES")],
    args=[Arg("PERSPECTIVES", "one perspective per line")],
    forbidden=["Do not argue the perspectives yourself."], next={"ok": "argue"})

argue = StepDef(
    "argue", "Have each perspective argued", reads=("FRAME", "PERSPECTIVES"),
    dispatch=Dispatch("general-purpose", "Argue one perspective on an open question.",
                      "at most 15 lines: the answer, its reasons with evidence, its limit",
                      script="scripts/perspective.py", items=each_line("PERSPECTIVES"),
                      vars={"QUESTION": question,
                            "FRAME": value_of("FRAME")}),
    actions=[Action("Record every reply, each headed by its perspective.", out="ARGUMENTS")],
    args=[Arg("ARGUMENTS", "each perspective's reply, headed by the perspective")],
    next={"ok": "compare"})

compare = StepDef(
    "compare", "Find the real disagreements", reads=("FRAME", "ARGUMENTS"), actions=[
        Action("Record what the perspectives agree on: it is most of the answer.",
               out="COMMON_GROUND"),
        Action("For each real disagreement, say what it turns on (a fact, a value, a "
               "prediction), which side the evidence favours and how strongly, and what would "
               "settle it.", out="DISAGREEMENTS")],
    args=[Arg("COMMON_GROUND", "what every perspective agrees on"),
          Arg("DISAGREEMENTS", "each disagreement: what it turns on, where the evidence "
                               "points, what would settle it")],
    next={"ok": "draft"})

draft = StepDef(
    "draft", "Draft the answer and its checks", reads=("FRAME", "QUESTION_TYPE"),
    optional_reads=("COMMON_GROUND", "DISAGREEMENTS"), actions=[
        "In full mode, build on the common ground and settle each one in DISAGREEMENTS, "
        "saying where you side with a perspective and why.",
        Action("The answer the question type calls for (see the table): the answer first, then "
               "the reasons and the evidence behind each, then what would change it.",
               out="DRAFT"),
        Action("Three to six verification questions about the facts, numbers, cases and causes "
               "the draft depends on, one per line, each standing alone (name the system, file "
               "or endpoint): the verifier sees neither the question nor the draft.",
               out="CHECKS")],
    args=[Arg("DRAFT"), Arg("CHECKS")], next={"ok": "verify"})

verify = StepDef(
    "verify", "Have the questions answered independently", reads=("CHECKS",),
    dispatch=Dispatch("general-purpose", "Answer each question in the variable CHECKS on its "
                      "own, from evidence.",
                      "one block per question: the answer and how you know it",
                      script="scripts/verifier.py",
                      vars={"CHECKS": value_of("CHECKS")}),
    actions=[Action("Record the verifier's reply as it came.", out="ANSWERS")],
    args=[Arg("ANSWERS", "the verifier's reply as it came")],
    forbidden=["Do not give the verifier the draft: it must answer without it."],
    next={"ok": "revise"})

revise = StepDef(
    "revise", "Revise against the evidence", reads=("DRAFT", "CHECKS", "ANSWERS"),
    optional_reads=("EVIDENCE",), actions=[
        lambda ctx: ("Compare each verification answer"
                     + (", and the evidence gathered since (EVIDENCE)," if "EVIDENCE" in ctx.values
                        else "")
                     + " with what the draft assumed; where they differ, the evidence wins "
                       "unless you can show it is wrong."),
        Action("The revised answer in full; then what changed and why.", out="REVISED"),
        Action("high when the deciding facts are checked and the verification held; medium "
               "when one deciding fact is still an assumption; low when the answer rests on "
               "assumptions or the evidence contradicted the draft unresolved.",
               out="CONFIDENCE"),
        Action("If a fact that would raise it can be found here (files, docs, commands): it, "
               "and how to get it.", out="NEEDED"),
        Action("Otherwise what only the asker (or the world) can settle: each open question "
               "and what its answer would change; or none.", out="OPEN_QUESTIONS")],
    args=[Arg("REVISED"), Arg("CONFIDENCE", choices=("high", "medium", "low")),
          Arg("NEEDED", outcomes=("gather",)), Arg("OPEN_QUESTIONS", outcomes=("answer",))],
    when={"gather": "a fact that would raise your confidence can be found here",
          "answer": "your confidence is high, or what would raise it is not reachable here"},
    next={"gather": Rework("gather", 3, "answer"), "answer": "answer"})

gather = StepDef(
    "gather", "Gather the missing evidence", reads=("NEEDED",), actions=[
        "Gather the evidence NEEDED names: read, search, run read-only commands, compute.",
        Action("Record what you found, with sources, and what it changes; if it cannot be "
               "found after all, say so.", out="EVIDENCE")],
    args=[Arg("EVIDENCE", "what you found, with sources, and what it changes")],
    forbidden=["Do not change any file: this is research."], next={"ok": "revise"})

answer = StepDef(
    "answer", "Give the answer", reads=("REVISED", "CONFIDENCE"),
    optional_reads=("OPEN_QUESTIONS", "DISAGREEMENTS", "EVIDENCE"), actions=[Action(
        "Write the answer for the asker: the answer first; the reasons and their evidence; "
        "your confidence (CONFIDENCE) and why; the open questions and what each would "
        "change.", out="reply")],
    next={"ok": None}, complete="The question is answered. Give the user your answer.")

WORKFLOW = register_workflow(Workflow(
    "deepthink", description="It reasons through an open question: frame, perspectives, "
                             "draft, independent verification, revision, confidence.",
    params=[Param("question", "the open question, in one line", required=True),
            Param("mode", "quick, full, or auto (choose at the first step)",
                  default="auto", choices=("auto", "quick", "full"))],
    steps=[frame, route, perspectives, argue, compare, draft, verify, revise, gather,
           answer]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
