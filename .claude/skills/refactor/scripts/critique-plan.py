#!/usr/bin/env python3
"""Critique sub-agent: check a refactoring plan against the code, as a fresh reader, and grade
each problem, so that only a MUST or SHOULD problem costs the orchestrator a revision pass."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (
    Action,
    ConventionRef,
    Resource,
    StepDef,
    Workflow,
    main,
    register_workflow,
)

#: The reply, by example: the verdict, then one line per problem, the most severe first.
EXAMPLE = """FAIL
1. RF2 | MUST | jobs/sync.py:90 | the target drops sync.py's zero backoff | keep backoff=0 there
2. RF3 | COULD | jobs/queue.py:12 | the title omits that the file moves | title it 'Move queue'"""

#: severity.md's levels read for a refactoring plan: what each level means here.
GRADES = (
    "Grade each problem with severity.md's levels, read for this plan. MUST: the plan cannot "
    "be carried out as written, or doing so breaks something: a refactoring that changes "
    "behaviour; a file, function or name the code does not have; a refactoring that depends on "
    "a later one; a MUST or SHOULD finding neither planned nor set aside; with CHECKS none "
    "found, no RF1 that pins behaviour first. SHOULD: a competent implementer would likely go "
    "wrong or lose real time: a smell the code does not show as described; a target shape that "
    "needs a question answered; Verify without a command that exercises the code, or without "
    "a test to add where none does; a risk that does not say what could break; a severity or "
    "effort wrong enough to change the order. COULD: wording, titles, polish; anything you "
    "would only have written differently.")

WORKFLOW = register_workflow(Workflow(
    "refactor-critique", skill="refactor",
    description="It checks a refactoring plan against the code, read-only.", steps=[
        StepDef("check", "Check the plan", resources=[
            Resource("plan-format", "resources/plan-format.md", "The rules the plan follows.")],
            conventions=[ConventionRef("severity", "Its levels grade each problem you find.")],
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
                "a refactoring, or set aside with a reason.",
                GRADES],
            forbidden=["Do not edit any file.", "Do not trust the plan's quotes: read the code.",
                       "Do not grade by how hard the fix is: grade by what happens if the plan "
                       "is carried out as written."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply FAIL when you found at least one MUST or SHOULD problem, otherwise PASS: COULD "
            "problems alone never fail the plan, so a PASS may still list them. Then at most "
            "ten numbered problems, MUST first, then SHOULD, then COULD, one line each: 'N. "
            "refactoring id | severity | path:line | what is wrong | what to change', as in the "
            "example below. Use this format, not severity.md's F-id format.",
            out="reply")], expect=EXAMPLE, next={"ok": None},
            complete="Your critique is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
