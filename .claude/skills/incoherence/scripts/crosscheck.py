#!/usr/bin/env python3
"""Cross-check sub-agent: compare every source's statements on one dimension."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "incoherence-crosscheck", skill="incoherence",
    description="It cross-checks the sources of one dimension for disagreements.", steps=[
        StepDef("collect", "Collect the statements", actions=[
            "Your brief names your dimension (your item) and the sources. Find every statement "
            "each source makes on that dimension: the flag, key, field, path or behaviour, with "
            "file:line and the exact words or value.",
            "Read the code for what it actually does: the parser, the loader, the handler."],
            forbidden=["Do not edit any file."], next={"ok": "compare"}),
        StepDef("compare", "Compare them", actions=[
            "Group the statements by the thing they are about, and compare within each group.",
            "Where two disagree, work out which one is right from the evidence (the code's "
            "behaviour, tests, the changelog) and say how you know; if you cannot tell, say "
            "undetermined."],
            forbidden=["Do not report a difference you have not checked in both files (for "
                       "something absent, say which file you searched and how)."],
            next={"ok": "reply"}),
        StepDef("reply", "Reply", actions=[Action(
            "Reply with one paragraph per incoherence (no blank line inside it): the two sides "
            "with file:line and quotes, which is right and how you know (or undetermined), what "
            "to change; or the single word none.",
            out="reply")], next={"ok": None},
            complete="Your cross-check is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
