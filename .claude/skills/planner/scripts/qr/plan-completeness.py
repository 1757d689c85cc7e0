#!/usr/bin/env python3
"""Reviewer sub-agent: is the plan complete, ordered and checkable?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import reviewer

WORKFLOW = register_workflow(reviewer(
    "plan-completeness",
    "Reviewer sub-agent: is the plan complete, ordered and checkable?",
    "checklist-completeness.md",
    "the plan (PLAN_FILE), the request it answers and the files it names"))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
