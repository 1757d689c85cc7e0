#!/usr/bin/env python3
"""Run a skill in simple mode (`execution_mode: simple` in its SKILL.md): its own numbered
steps, once each, in order, with no plan and no approval (lib/runner/simple.py). Without a
--skill (discovery, --help, simulation) the shipped example skill stands in."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.runner.simple import simple_workflow, skill_or_exit
from skills.lib.runner.target import skill_problem
from skills.lib.workflow import Param, main, register_workflow

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                       "resources", "example-skill")
FOLDER = skill_or_exit(sys.argv[1:], EXAMPLE, __name__)
WORKFLOW = register_workflow(simple_workflow(FOLDER, (
    Param("skill", "the skill to run: its folder, or its name under .claude/skills",
          required=True, check=skill_problem, sample=EXAMPLE),
    Param("args", "what the user asked the skill to do (its $ARGUMENTS)", default=""))))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
