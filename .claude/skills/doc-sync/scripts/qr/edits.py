#!/usr/bin/env python3
"""Reviewer sub-agent: is each proposed doc edit true of the code, complete and minimal?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Resource, main, register_workflow
from skills.lib.workflow.authoring.reviewer import review_workflow

CHECKLIST = Resource("checklist", "resources/checklist-edits.md",
                     "What to check, item by item; read it before you review.")

WORKFLOW = register_workflow(review_workflow(
    "doc-sync-edits-review", "doc-sync",
    "It reviews proposed documentation edits against the code.", CHECKLIST, read=[
        "Your brief names the edits file (EDITS_FILE), the drift they fix (DRIFT_FILE) and the "
        "doc list (DOCS_LIST). Read the edits file and, for each edit, its doc around the old "
        "text.",
        "Read the checklist listed above: it holds every rule the edits must meet. Of the "
        "conventions your brief names, read only the report format (qr-report.md), and the "
        "levels of severity.md if a grade is unclear."], review=[
        "Go through the checklist for every edit. Check each claim in the code itself: open the "
        "file the evidence cites, search for the names, run read-only commands (--help, git "
        "log -- PATH).",
        "Note each problem with the edit's id as its location, what is wrong, why it matters "
        "and the smallest fix, graded with the severities your brief names."],
    forbidden=("Do not take the evidence field's word for it: check the code.",)))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
