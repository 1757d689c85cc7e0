#!/usr/bin/env python3
"""Technical-writer sub-agent: make the comments and docs in the plan's diffs true and timeless."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import worker

WORKFLOW = register_workflow(worker(
    "plan-scrub", "Edit the comments and docs in a plan's diffs.",
    reads="the plan (PLAN_FILE): every comment, docstring and doc change in its diffs",
    does=["Rewrite comments that say what the code does into why it does it; delete the ones "
          "that add nothing.",
          "Remove every trace of the change's history from comments and docs: no 'added', "
          "'now', 'new', 'previously', 'fixed'.",
          "Add the docs the change needs (README, --help, docstrings of public functions) as "
          "diffs, and put the plan's invisible knowledge next to the code it explains."],
    keep=("Edit only comments and docs inside the diffs of PLAN_FILE; leave the code alone.",),
    checks=["Check PLAN_FILE is still valid JSON in the plan format."],
    reply="one line per milestone whose diffs you edited: its id and what you changed."))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
