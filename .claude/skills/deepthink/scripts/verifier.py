#!/usr/bin/env python3
"""Verifier sub-agent: answer verification questions on their own, without seeing the draft."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "deepthink-verifier", skill="deepthink",
    description="It answers verification questions independently.", steps=[
        StepDef("answer", "Answer each question on its own", actions=[
            "Your brief lists questions. Answer each from evidence: read the files, docs or "
            "data it is about, run read-only commands, compute numbers.",
            "Say for each answer how you know it (file:line, command, source) and how sure "
            "you are; 'unknown' is a valid answer."],
            forbidden=["Do not guess what answer the asker expects.", "Do not edit any file."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply with one block per question: the question, your answer, how you know it.",
            out="reply")], next={"ok": None},
            complete="Your answers are done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
