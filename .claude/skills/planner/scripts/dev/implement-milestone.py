#!/usr/bin/env python3
"""Developer sub-agent: implement one milestone of the approved plan."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import worker

WORKFLOW = register_workflow(worker(
    "implement-milestone", "Implement one milestone of an approved plan.",
    reads="your milestone (the item of your brief) in the approved plan (PLAN_FILE): its goal, "
          "files, diffs and acceptance criteria",
    does=["Apply the milestone's diffs. Where a diff no longer applies, make the change it "
          "describes by hand and say so in your reply.",
          "Touch only the files your milestone lists. The milestones it depends on are done "
          "already; other milestones of your wave, if any, may be implemented beside you, so "
          "leave their files alone."],
    checks=["Run the checks of every acceptance criterion, and the tests of the files you "
            "changed. Fix what fails within your files."],
    reply="one line: DONE and the milestone id, or FAILED, the milestone id and what failed."))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
