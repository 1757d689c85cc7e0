#!/usr/bin/env python3
"""Explore sub-agent: study one area of a codebase and report what it owns, with references."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "codebase-analysis-area", skill="codebase-analysis",
    description="It studies one area of a codebase, read-only.", steps=[
        StepDef("study", "Study your area", actions=[
            "Your brief names your area (your item), the questions the analysis must answer "
            "(SCOPE) and what the survey found (SURVEY). Read your area's entry points first, "
            "then follow the calls that matter.",
            "Note what the area owns, its public interface, what it depends on and what depends "
            "on it (search for its imports), its tests, and anything surprising.",
            "Tie every note to a file and line; mark what you inferred (unverified)."],
            forbidden=["Do not edit any file.", "Do not study areas outside yours."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply in at most 30 lines: what the area owns, its interface, its dependencies in "
            "and out, its tests, risks, and the answers it gives to the brief's questions, each "
            "with path:line.", out="reply")], next={"ok": None},
            complete="Your study is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
