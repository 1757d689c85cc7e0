#!/usr/bin/env python3
"""Explore sub-agent: find the refactoring opportunities of one code-quality dimension."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, ConventionRef, StepDef, Workflow, main, register_workflow
from skills.lib.workflow.authoring.conventions import CONVENTIONS_DIR

#: Each dimension's convention; the orchestrator names the dimension (the sub-agent's item).
CONVENTION = os.path.join(CONVENTIONS_DIR, "code-quality-DIMENSION.md")

#: The reply format, by example: a head line and three one-sentence lines per finding; the
#: second finding is the drift the first one met, reported apart as a bug.
EXAMPLE = """repetition | SHOULD | M | jobs/mail.py:18-44, jobs/sync.py:90-121
Smell: the same retry loop twice; the sync.py copy lost the backoff (reported apart below).
Target: retry(call, attempts, backoff) in jobs/retry.py for both; sync.py passes backoff=0.
Evidence: 2 copies; commit 3f2a91c added the backoff to jobs/mail.py:30 only; no test covers them.

repetition | SHOULD | S | jobs/sync.py:95-101
Smell: Bug: sync.py retries without waiting, so a failing server gets every retry at once.
Target: a fix in its own change, after the merge: pass the backoff mail.py uses.
Evidence: git log -p jobs/sync.py shows no backoff change since 3f2a91c fixed jobs/mail.py:30."""

#: The one finding format; severity.md's F-id format is for review reports, not for this reply.
FORMAT = ("Use the format the reply step shows (a head line, then Smell, Target and Evidence), "
          "not severity.md's F-id format.")

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
                                      "finding with its levels, as your convention says.")],
            actions=[
                "Go through your convention's list in order, with the searches it suggests. "
                "Open every candidate and confirm it against 'What counts as a finding'; drop "
                "it when it does not qualify.",
                "For each finding, collect what the convention asks for: every place with "
                "path:line; the counts where it asks for them (how many places use a name, "
                "how many copies or variants there are, from the grep it suggests); what a "
                "reader or caller gets wrong; the target shape. " + FORMAT,
                "Where it asks for history (git log -p, git log --stat) and the history is too "
                "short to tell (a shallow clone, a handful of commits, no git), compare the "
                "places side by side instead: a check, argument or error path one copy has and "
                "another lacks is a possible drift. Say 'no history' in its Evidence.",
                "A drift (copies that now behave differently: a fix that reached one of them, "
                "or any other bug you meet on the way) is two findings: the refactoring, whose "
                "Target keeps today's behaviour of every copy, and the bug, a finding of its "
                "own whose Smell starts 'Bug:' and whose Target is the fix in its own change, "
                "graded by its consequence.",
                "Grade its severity, and its effort: S (one file, covered by tests that "
                "CHECKS runs), M (several files, or a test to write first: always so when "
                "CHECKS is none found), L (a public interface, a migration, or more than about "
                "ten files).",
                "Keep at most eight findings, bugs included: the most severe first, then the "
                "least effort. Drop the rest."],
            forbidden=["Do not edit any file.",
                       "Do not report a behaviour change as a refactoring."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply with the findings you kept, the most severe first, or with the single word "
            "none. Each finding is exactly four lines: 'dimension | severity | effort | "
            "path:line, ...', then 'Smell:', 'Target:' and 'Evidence:', one sentence each. "
            "One blank line between findings, none inside one, as in the example below. Use "
            "this format, not severity.md's F-id format.",
            out="reply")], expect=EXAMPLE, next={"ok": None},
            complete="Your exploration is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
