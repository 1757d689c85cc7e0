#!/usr/bin/env python3
"""Reviewer sub-agent: do the plan's diffs apply to the real code and do what the milestones say?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import reviewer

WORKFLOW = register_workflow(reviewer(
    "plan-code",
    "Reviewer sub-agent: do the plan's diffs apply to the real code and do what the milestones "
    "say?",
    "checklist-plan-code.md",
    "the plan (PLAN_FILE), each milestone's diffs, and the files they change"))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
