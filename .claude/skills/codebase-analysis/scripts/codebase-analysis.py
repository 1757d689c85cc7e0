#!/usr/bin/env python3
"""Codebase analysis: systematic exploration of an unfamiliar repository.

scope and survey -> explore each area (parallel sub-agents) -> synthesize -> confidence: deepen
where a scope question lacks file-backed answers (at most twice) -> the report.
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
    StepDef,
    Workflow,
    each_line,
    main,
    register_workflow,
    value_of,
)

FORMAT = Resource("report-format", "resources/report-format.md",
                  "The report's sections and rules; read it before the synthesis.")


scope = StepDef(
    "scope", "Set the scope and survey the repository", actions=[
        Action(lambda ctx: f"The analysis is for: {ctx.params['focus']}. Turn that into one "
                           "line of what is out of scope, then three to six concrete questions "
                           "the report must answer (for example 'Where is authentication "
                           "enforced?'), one per line.", out="SCOPE"),
        "Read the README and the top-level layout; find the entry points (main modules, CLI "
        "definitions, servers, handlers), the build and dependency files, the test folders and "
        "the CI configuration.",
        Action("What you found: layout, entry points, how to build, run and test, with paths.",
               out="SURVEY"),
        Action("The code the scope touches, split into one to six areas to study in parallel, "
               "one per line: a path and what it seems to hold. One area is right when the "
               "questions live in one place.", out="AREAS")],
    args=[Arg("SCOPE"), Arg("SURVEY"), Arg("AREAS")],
    forbidden=["Do not study the areas in depth yet: sub-agents do that next."],
    next={"ok": "explore"})


explore = StepDef(
    "explore", "Have each area studied", reads=("SCOPE", "AREAS"),
    dispatch=Dispatch("explore", "Study one area of this repository for the questions in "
                      "SCOPE (leave out what SCOPE puts out of scope).",
                      "at most 30 lines with path:line references",
                      script="scripts/explore-area.py", items=each_line("AREAS"),
                      vars={"SCOPE": value_of("SCOPE"), "SURVEY": value_of("SURVEY")}),
    actions=[Action("Record every reply, headed by its area.", out="FINDINGS")],
    args=[Arg("FINDINGS", "each area's reply, headed by the area")],
    next={"ok": "synthesize"})

synthesize = StepDef(
    "synthesize", "Put the findings together", resources=[FORMAT],
    reads=("SCOPE", "SURVEY", "FINDINGS"), optional_reads=("DEEPER",), actions=[
        "Check the places where two areas' findings meet (an interface one calls and the "
        "other provides) against the code: that is where the map is usually wrong.",
        Action("Draft the report's sections from the findings (and DEEPER, when shown). Mark "
               "each scope question answered (with file references) or open.", out="DRAFT")],
    args=[Arg("DRAFT", "the report draft, with each scope question marked answered or open")],
    next={"ok": "confidence"})

confidence = StepDef(
    "confidence", "Check every question is answered", reads=("SCOPE", "DRAFT"), actions=[
        Action("Go through the scope's questions against the draft. For each question still "
               "open or answered without a file reference, say what to read to answer it.",
               out="GAPS")],
    args=[Arg("GAPS", "each open gap and what to read; or none")],
    when={"deepen": "a scope question is open or rests on an unverified claim",
          "report": "every scope question is answered with file references"},
    next={"deepen": Rework("deepen", 3, "report"), "report": "report"})

deepen = StepDef(
    "deepen", "Close the gaps", reads=("GAPS",), actions=[
        "Read what the gaps name yourself: follow calls, read tests, run read-only commands "
        "(git log -- PATH, the test suite's collection).",
        Action("Record what you found, with path:line, per gap.", out="DEEPER")],
    args=[Arg("DEEPER", "per gap: what you found, with path:line")],
    forbidden=["Do not edit any file."], next={"ok": "synthesize"})

report = StepDef(
    "report", "Write the report", reads=("SCOPE", "SURVEY", "DRAFT", "GAPS"),
    optional_reads=("DEEPER",),
    resources=[FORMAT], actions=[Action(
        "Write the report in the format's order for the user: answers first, every claim with "
        "its file reference; the build, run and test commands from SURVEY; the gaps still open "
        "(GAPS) listed as open questions.", out="reply")],
    next={"ok": None}, complete="The analysis is done. Give the user the report.")

WORKFLOW = register_workflow(Workflow(
    "codebase-analysis", description="It explores an unfamiliar repository and reports its "
                                     "architecture, data flow, conventions and risks.",
    params=[Param("focus", "what the analysis is for, in one line",
                  default="a working understanding of the whole codebase")],
    steps=[scope, explore, synthesize, confidence, deepen, report]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
