#!/usr/bin/env python3
"""Explore sub-agent: map the parts of the codebase a change request touches."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import main, register_workflow
from skills.planner.planlib.steps import worker

WORKFLOW = register_workflow(worker(
    "explore", "Map the parts of a codebase that a change request touches.",
    reads="the request (REQUEST) and the repository's README and layout",
    does=["Find where the request lands: entry points, the modules and functions involved, the "
          "data they share, and the tests that cover them. Search by name and by behaviour.",
          "Note the conventions a change there must follow: error handling, naming, test style, "
          "how configuration and logging are done.",
          "Note what could break: callers of what would change, migrations, public interfaces."],
    checks=["Check that every file and function you name exists (open it)."],
    reply="a summary in at most 40 lines: the relevant files with one line each (path:line), "
          "the conventions, the risks, and open questions."))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
