#!/usr/bin/env python3
"""Reviewer sub-agent: is each proposed doc edit true of the code, complete and minimal?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, Resource, StepDef, Workflow, main, register_workflow

CHECKLIST = Resource("checklist", "resources/checklist-edits.md",
                     "What to check, item by item; read it before you review.")

WORKFLOW = register_workflow(Workflow(
    "doc-sync-edits-review", skill="doc-sync",
    description="It reviews proposed documentation edits against the code.", steps=[
        StepDef("read", "Read the edits", resources=[CHECKLIST], actions=[
            "Your brief names the edits file (EDITS_FILE), the drift they fix (DRIFT_FILE) "
            "and the doc list (DOCS_LIST). Read the edits file and, for each edit, its doc "
            "around the old text.",
            "Read the checklist listed above: it holds every rule the edits must meet. Of the "
            "conventions your brief names, read only the report format (qr-report.md), and "
            "the levels of severity.md if a grade is unclear."],
            forbidden=["Do not edit any doc or the edits file."], next={"ok": "review"}),
        StepDef("review", "Review against the code", actions=[
            "Go through the checklist for every edit. Check each claim in the code itself: open "
            "the file the evidence cites, search for the names, run read-only commands (--help, "
            "git log -- PATH).",
            "Note each problem with the edit's id as its location, what is wrong, why it "
            "matters and the smallest fix, graded with the severities your brief names."],
            forbidden=["Do not fix anything: your job is to find and grade.",
                       "Do not take the evidence field's word for it: check the code."],
            next={"ok": "report"}),
        StepDef("report", "Write the report", actions=[
            "Write the report file where your brief says, in the format it names, with every "
            "finding, blocking or not. An empty items list means you found nothing.",
            Action("Reply with one line: the report's path.", out="reply")],
            next={"ok": None}, complete="Your review is done. Reply with the report's path."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
