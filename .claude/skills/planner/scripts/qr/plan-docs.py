#!/usr/bin/env python3
"""Reviewer sub-agent: are the comments and docs in the plan's diffs true, timeless and useful?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import reviewer

WORKFLOW = register_workflow(reviewer(
    "plan-docs",
    "Reviewer sub-agent: are the comments and docs in the plan's diffs true, timeless and useful?",
    "checklist-plan-docs.md",
    "the plan (PLAN_FILE) and the comments and docs its diffs add"))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
