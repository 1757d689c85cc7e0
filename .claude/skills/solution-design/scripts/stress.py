#!/usr/bin/env python3
"""Critic sub-agent: stress-test a leading design it did not choose."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "solution-design-stress", skill="solution-design",
    description="It stress-tests a leading design as an independent critic.", steps=[
        StepDef("assumptions", "Test the assumptions", actions=[
            "Your brief gives the problem, the constraints, the criteria, the proposals and the "
            "leader. List the leader's load-bearing assumptions and check each one you can "
            "against the code (read it, run read-only commands).",
            "Check the leader against every constraint."],
            forbidden=["Do not edit any file."], next={"ok": "pre-mortem"}),
        StepDef("pre-mortem", "Run a pre-mortem", actions=[
            "A year on, the leader failed. Write the two most likely stories of how, each with "
            "its early warning sign.",
            "Say how hard it is to reverse, and what it makes harder later.",
            "Judge: it breaks when it violates a constraint, or when, with a failed assumption "
            "fixed, it would score below the runner-up on the criteria; otherwise it survives "
            "with its risks named."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply in at most 20 lines: SURVIVES or BREAKS first, then the assumptions (held or "
            "failed, with evidence), the failure stories, reversibility.", out="reply")],
            next={"ok": None}, complete="Your critique is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
