#!/usr/bin/env python3
"""Reviewer sub-agent: do the docs and comments match the implemented change?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import reviewer

WORKFLOW = register_workflow(reviewer(
    "post-impl-docs",
    "Reviewer sub-agent: do the docs and comments match the implemented change?",
    "checklist-post-impl-docs.md",
    "the approved plan (PLAN_FILE) and the docs and comments in the working tree's change"))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
