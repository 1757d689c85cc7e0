#!/usr/bin/env python3
"""Run an approved skill-runner plan: the plan, sealed at approval, becomes this script's
workflow (lib/runner/build.py), so the ledger enforces its order; a plan changed after approval
is refused. Without a plan (discovery, --help, simulation) the shipped sample plan is used."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.runner.build import plan_workflow
from skills.lib.runner.learn import learner
from skills.lib.runner.sealed import load_or_exit
from skills.lib.workflow import Param, main, register_workflow

SAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                      "resources", "sample-plan.json")
PLAN = load_or_exit(sys.argv[1:], SAMPLE, __name__)
WORKFLOW = register_workflow(plan_workflow(
    PLAN, learner(PLAN), Param("plan", "the approved plan file (skill-runner prints the "
                                       "command)", required=True, sample=SAMPLE)))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
