#!/usr/bin/env python3
"""Proposal sub-agent: design a solution to a problem from one stance."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "solution-design-proposal", skill="solution-design",
    description="It designs one solution from one stance.", steps=[
        StepDef("design", "Design from your stance", actions=[
            "Your brief gives the problem, its constraints, the criteria and your stance (your "
            "item). Read the code the problem touches before you design.",
            "Design the best solution your stance leads to: its shape (components, data, the "
            "main flow), the files it changes or adds, and how it meets each constraint.",
            "Score it honestly against each criterion and name its weakest point."],
            forbidden=["Do not design from another stance or blend in other options.",
                       "Do not edit any file."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply in at most 25 lines: the design, the files, a score per criterion with a "
            "reason, and the weakest point.", out="reply")], next={"ok": None},
            complete="Your proposal is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
