#!/usr/bin/env python3
"""Technical-writer sub-agent: bring the docs in line with the implemented change."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import worker

WORKFLOW = register_workflow(worker(
    "post-impl-docs-writer", "Update docs and comments after a plan is implemented.",
    reads="the approved plan (PLAN_FILE) and the change in the working tree (git diff)",
    does=["Update README, usage docs and --help text where behaviour changed; make every "
          "example run as written.",
          "Make comments explain why, without narrating the change; give public functions "
          "docstrings in the codebase's style.",
          "Record the plan's invisible knowledge where a maintainer will look for it."],
    checks=["Check every command and path your docs mention exists."],
    reply="one line per file you changed and why."))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
