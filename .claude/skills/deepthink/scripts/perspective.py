#!/usr/bin/env python3
"""Perspective sub-agent: argue one stance on an open question, as strongly as it honestly goes."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "deepthink-perspective", skill="deepthink",
    description="It argues one perspective on an open question.", steps=[
        StepDef("argue", "Argue your perspective", actions=[
            "Your brief gives the question, its framing and your perspective (your item). "
            "Take that perspective seriously: say what answer it leads to and why.",
            "Support it with evidence you can check here (files, docs, commands, numbers) and "
            "mark what is assumption.",
            "Name the strongest point against your answer and why your perspective still "
            "holds, or where it stops holding."],
            forbidden=["Do not balance your answer with the other perspectives: others argue "
                       "them.", "Do not edit any file."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply in at most 15 lines: the answer your perspective leads to, the three "
            "strongest reasons with their evidence, and the point where it stops holding.",
            out="reply")], next={"ok": None},
            complete="Your argument is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
