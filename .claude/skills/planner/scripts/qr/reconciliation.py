#!/usr/bin/env python3
"""Reviewer sub-agent: which of the plan's milestones does the working tree already satisfy?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import worker

WORKFLOW = register_workflow(worker(
    "reconciliation", "Find which milestones of an approved plan are already done.",
    reads="the approved plan (PLAN_FILE) and the working tree (git status, git diff)",
    does=["For each milestone, check every acceptance criterion against the working tree: run "
          "the tests and commands it names, open the files it lists.",
          "A milestone is done only when every criterion holds; partly done counts as not done."],
    checks=["Check that you changed nothing: git status must look as it did when you started."],
    reply="one line: the ids of the milestones that are done, separated by spaces (for example "
          "M1 M3), or the word none."))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
