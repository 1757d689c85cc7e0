#!/usr/bin/env python3
"""Verification sub-agent: confirm or refute one reported incoherence from the files alone."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "incoherence-verify", skill="incoherence",
    description="It confirms or refutes one reported incoherence.", steps=[
        StepDef("check", "Check the finding", actions=[
            "Your brief gives one finding (your item), perhaps with a fix made since. Open both "
            "sides where it names them (after a fix the lines may have moved: search for the "
            "quoted text) and read enough around them to know what each really says or does.",
            "Look for what would make it a false positive: a different version or platform, a "
            "code path that does honour the documented value, a doc about something else."],
            forbidden=["Do not edit any file.", "Do not trust the finding's quotes: read."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply with CONFIRMED or REFUTED, then the evidence in at most five lines with "
            "file:line.", out="reply")], next={"ok": None},
            complete="Your check is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
