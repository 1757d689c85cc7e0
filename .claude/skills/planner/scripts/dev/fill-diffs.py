#!/usr/bin/env python3
"""Developer sub-agent: write the concrete diffs of every milestone into the plan."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Resource, main, register_workflow
from skills.planner.planlib.steps import worker

WORKFLOW = register_workflow(worker(
    "fill-diffs", "Write the concrete diffs of every milestone of a plan.",
    reads="the plan (PLAN_FILE) and every file its milestones list",
    does=["For each milestone in order, write the change as unified diffs, one entry per "
          "file, into that milestone's diffs in PLAN_FILE, against each file as it will be "
          "when that milestone starts: as it is now, with the diffs of the milestones it "
          "depends on (depends_on) already applied. Include the tests the acceptance criteria "
          "need."],
    keep=("Follow the codebase's conventions; comments say why, never what changed.",
          "Change only PLAN_FILE: the diffs are a proposal, not yet applied."),
    checks=["Check each diff's context lines against the real file.",
            "Check PLAN_FILE is still valid JSON in the plan format."],
    reply="one line per milestone: its id and the files its diffs change.",
    resources=(Resource("plan-format", "resources/plan-format.md",
                        "The plan's format, including the diffs field."),)))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
