#!/usr/bin/env python3
"""Explore sub-agent: find the refactoring opportunities of one code-quality dimension."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import (Action, ConventionRef, StepDef, Workflow, main,
                                 register_workflow)
from skills.lib.workflow.conventions import CONVENTIONS_DIR

#: Each dimension's convention; the orchestrator names the dimension (the sub-agent's item).
CONVENTION = os.path.join(CONVENTIONS_DIR, "code-quality-DIMENSION.md")

#: The reply format, by example: a head line and three one-sentence lines per finding.
EXAMPLE = """repetition | SHOULD | M | jobs/mail.py:18-44, jobs/sync.py:90-121
Smell: the same retry loop twice; the sync.py copy lost the backoff (a bug: its own finding).
Target: retry(call, attempts, backoff) in jobs/retry.py for both; sync.py passes backoff=0.
Evidence: commit 3f2a91c added the backoff to jobs/mail.py:30 only; no test covers either loop.

naming | COULD | S | jobs/queue.py:12
Smell: ..."""

WORKFLOW = register_workflow(Workflow(
    "refactor-dimension", skill="refactor",
    description="It explores one code-quality dimension of a scope, read-only.", steps=[
        StepDef("read", "Read your convention", actions=[
            "Your item is your dimension; your brief also gives the scope (SCOPE) and the "
            "commands that run the project's tests and checks (CHECKS, or none found). Read "
            f"your dimension's convention in full: {CONVENTION}, with DIMENSION replaced by "
            "your item. It says what to look for, what counts as a finding and how to grade "
            "it. The conventions it names by file (severity.md, ...) are in the same folder: "
            f"{CONVENTIONS_DIR}.",
            "List the files in SCOPE (for a change: the files it touches, and the code they call "
            "or that calls them where the convention asks about it)."],
            forbidden=["Do not read the other code-quality conventions: each dimension has its "
                       "own explorer."],
            next={"ok": "search"}),
        StepDef("search", "Search the scope", conventions=[
            ConventionRef("severity", "The severity.md your convention names: grade each "
                                      "finding with it, as your convention says.")],
            actions=[
                "Go through your convention's list in order, with the searches it suggests. "
                "Open every candidate and confirm it against 'What counts as a finding'; drop "
                "it when it does not qualify.",
                "For each finding, collect what the convention asks for: every place with "
                "path:line, the counts, what a reader or caller gets wrong, the target shape.",
                "Grade its severity, and its effort: S (one file, covered by tests that "
                "CHECKS runs), M (several files, or a test to write first: always so when "
                "CHECKS is none found), L (a public interface, a migration, or more than about "
                "ten files)."],
            forbidden=["Do not edit any file.",
                       "Do not report a behaviour change as a refactoring: give it a "
                       "finding of its own, whose Smell says it is a bug."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply with at most eight findings, the most severe first, or with the single word "
            "none. Each finding is exactly four lines: 'dimension | severity | effort | "
            "path:line, ...', then 'Smell:', 'Target:' and 'Evidence:', one sentence each. "
            "One blank line between findings, none inside one, as in the example below.",
            out="reply")], expect=EXAMPLE, next={"ok": None},
            complete="Your exploration is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
