#!/usr/bin/env python3
"""Incoherence: find where code, docs, specs, configs and tests disagree, prove each finding,
and optionally fix them.

scope -> discover sources -> choose dimensions -> cross-check each dimension (parallel
sub-agents) -> merge duplicates -> grade severity -> verify each finding (parallel sub-agents,
independent) -> keep the confirmed -> report -> ask the user whether to fix -> fix -> re-verify
-> loop until clean (at most three rounds) -> summary.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Param,
    Resource,
    Rework,
    StepDef,
    Workflow,
    each_paragraph,
    main,
    register_workflow,
    value_of,
)

DIMENSIONS = Resource("dimensions", "resources/dimensions.md",
                      "The dimensions to cross-check and what a finding must contain.")
SEVERITY = ConventionRef("severity", "Grade every finding with it.")


steps = [
    StepDef("scope", "Set the scope and the dimensions", resources=[DIMENSIONS], actions=[
        Action(lambda ctx: f"Scope: {ctx.params['scope']}. Which parts of the repository are "
                           "in (folders, docs, configs) and which are out (vendored, generated, "
                           "archived), with paths.", out="SCOPE"),
        Action("Every source in scope that states facts about the system: READMEs and docs, "
               "--help texts, CLI and API definitions, config files and schemas, migrations, "
               "tests, package metadata, CI files. One per line: path - kind.", out="SOURCES"),
        Action("The dimensions where at least two sources speak about the same things, one "
               "per line: the dimension and its sources.", out="DIMENSIONS")],
        args=[Arg("SCOPE"), Arg("SOURCES"), Arg("DIMENSIONS")], next={"ok": "crosscheck"}),
    StepDef("crosscheck", "Cross-check each dimension", reads=("DIMENSIONS",),
            dispatch=Dispatch("explore", "Cross-check the sources of your dimension for "
                              "statements that disagree.", "one block per incoherence, or none",
                              script="scripts/crosscheck.py", items=each_paragraph("DIMENSIONS"),
                              vars={"SCOPE": value_of("SCOPE")}),
            actions=[Action("Record every reply, headed by its dimension.", out="RAW")],
            args=[Arg("RAW", "every reply, headed by its dimension")], next={"ok": "merge"}),
    StepDef("merge", "Merge and grade the findings", reads=("RAW",), conventions=[SEVERITY],
            actions=[Action(
                "Merge findings that are the same disagreement seen from two dimensions, and "
                "drop any without evidence on both sides (file:line, or for something absent, "
                "the file searched and how). Number them I1, I2, ...; write each in full (both "
                "sides, file:line, quotes), then its severity and a one-line reason: what goes "
                "wrong for whom if it stays. One paragraph per finding, no blank line inside "
                "it, a blank line between findings (each becomes one verifier); or none.",
                out="GRADED")],
            args=[Arg("GRADED")], next={"ok": "verify"}),
    StepDef("verify", "Verify each finding independently", reads=("GRADED",),
            dispatch=Dispatch("quality-reviewer", "Confirm or refute this reported "
                              "incoherence from the files alone.",
                              "CONFIRMED or REFUTED, and the evidence with file:line",
                              script="scripts/verify-finding.py", items=each_paragraph("GRADED")),
            actions=[Action("Record each verdict with its finding's number.", out="VERDICTS")],
            args=[Arg("VERDICTS", "per finding: its number, CONFIRMED or REFUTED, evidence")],
            next={"ok": "report"}),
    StepDef("report", "Report the findings", reads=("GRADED", "VERDICTS"), actions=[
        Action("Keep the confirmed findings in full with their severity, ordered MUST, SHOULD, "
               "COULD; then the refuted ones with the reason.", out="CONFIRMED"),
        Action("Show the user the confirmed incoherences by severity, each with both sides "
               "(file:line), which side is right, and the fix; then how many were refuted.",
               out="REPORT")],
        args=[Arg("CONFIRMED"), Arg("REPORT")],
        when={"findings": "at least one incoherence is confirmed",
              "clean": "none is confirmed"},
        next={"findings": "offer", "clean": "summary"}),
    StepDef("offer", "Ask whether to fix them", actions=[
        Action("Once the user has answered the question below: which findings they want "
               "fixed, in their words.", out="TO_FIX")],
        ask_user=AskUser("Shall I fix the confirmed incoherences?", {
            "fix": "Fix them (say which, if not all)", "report-only": "No, the report is enough"}),
        args=[Arg("TO_FIX", "the findings to fix, in the user's words", outcomes=("fix",))],
        forbidden=["Do not fix anything before the answer."],
        next={"fix": "fix", "report-only": "summary"}),
    StepDef("fix", "Fix them", reads=("CONFIRMED", "TO_FIX"),
            optional_reads=("REMAINING", "RECHECK"), actions=[
                "First round: fix the findings the user chose. Later rounds: only REMAINING, "
                "using RECHECK's evidence of why the last fix did not hold.",
                "Change the wrong side to match the right one; where the code is wrong, fix the "
                "code and add a test. Where the finding says undetermined, ask the user which "
                "side is right before changing either.",
                Action("Record every fix so far, earlier rounds included: per finding, one "
                       "paragraph with the finding in full, then what changed in which files; a "
                       "blank line between findings.", out="FIXES")],
            args=[Arg("FIXES", "per finding: the finding in full, then the change and files")],
            forbidden=["Do not change anything the chosen findings do not need."],
            next={"ok": "reverify"}),
    StepDef("reverify", "Re-verify the fixed findings", reads=("FIXES",),
            dispatch=Dispatch("quality-reviewer", "Confirm or refute that this incoherence "
                              "still exists after the fix described.",
                              "CONFIRMED (still there) or REFUTED (fixed), with evidence",
                              script="scripts/verify-finding.py", items=each_paragraph("FIXES")),
            actions=[Action("Record each verdict.", out="RECHECK")],
            args=[Arg("RECHECK", "per finding: CONFIRMED or REFUTED, evidence")],
            next={"ok": "settle"}),
    StepDef("settle", "Settle what remains", reads=("RECHECK",), actions=[
        Action("If a fixed finding is still confirmed, list each one still there, in full.",
               out="REMAINING")],
        args=[Arg("REMAINING", outcomes=("remaining",))],
        when={"remaining": "a fixed finding is still confirmed",
              "clean": "every fixed finding is refuted"},
        next={"remaining": Rework("fix", 3, "summary"), "clean": "summary"}),
    StepDef("summary", "Summarise", reads=("REPORT",),
            optional_reads=("FIXES", "RECHECK", "REMAINING"), actions=[Action(
                "Give the user the summary: what was checked (dimensions), the confirmed "
                "incoherences by severity, what was fixed and re-verified, and what remains.",
                out="reply")],
            next={"ok": None}, complete="The check is done. Give the user your summary."),
]

WORKFLOW = register_workflow(Workflow(
    "incoherence", description="It finds where code, docs, configs and tests disagree, proves "
                               "each finding, and can fix them.",
    params=[Param("scope", "what to check, in one line", default="the whole repository")],
    steps=steps))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
