#!/usr/bin/env python3
"""Critique sub-agent: check a refactoring plan against the code, as a fresh reader."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, Resource, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "refactor-critique", skill="refactor",
    description="It checks a refactoring plan against the code, read-only.", steps=[
        StepDef("check", "Check the plan", resources=[
            Resource("plan-format", "resources/plan-format.md", "The rules the plan follows.")],
            actions=[
                "Your brief names the plan file, the scope (SCOPE) and the project's test and "
                "check commands (CHECKS, or none found). Read the plan, then open the files of "
                "each refactoring.",
                "For each refactoring check: the smell is in the code as described; the target "
                "shape can be implemented without asking; it keeps observable behaviour (a "
                "behaviour change, even a wanted fix, belongs under Set aside); Verify names "
                "commands that exercise this code, and a test to add first where none does; no "
                "step depends on a later one.",
                "With CHECKS none found, check that RF1 adds characterisation tests for the "
                "code the other refactorings change, and that they all depend on it.",
                "Check that every MUST and SHOULD finding of the plan's Findings section is in "
                "a refactoring, or set aside with a reason."],
            forbidden=["Do not edit any file.", "Do not trust the plan's quotes: read the code."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply PASS when nothing above fails; otherwise FAIL, then at most ten numbered "
            "problems, each: the refactoring id, what is wrong with file:line, what to change.",
            out="reply")], next={"ok": None},
            complete="Your critique is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
