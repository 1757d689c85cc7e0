#!/usr/bin/env python3
"""Reviewer sub-agent: does the implemented code meet the approved plan?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import reviewer

WORKFLOW = register_workflow(reviewer(
    "post-impl-code",
    "Reviewer sub-agent: does the implemented code meet the approved plan?",
    "checklist-post-impl-code.md",
    "the approved plan (PLAN_FILE) and the change in the working tree (git diff)"))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
