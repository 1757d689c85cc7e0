#!/usr/bin/env python3
"""Reviewer sub-agent: does the draft keep every item of the style profile, and meet its brief?"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, Arg, Resource, StepDef, Workflow, main, register_workflow

CHECKLIST = Resource("review-checklist", "resources/review-checklist.md",
                     "How to check each item, how to grade, and how to name a location.")

WORKFLOW = register_workflow(Workflow(
    "writing-style-review", skill="writing-style",
    description="It reviews a draft against a style profile, item by item, and its brief.",
    steps=[
        StepDef("read", "Read the profile and the draft", resources=[CHECKLIST], actions=[
            "Your brief gives the text's brief (BRIEF), its facts (FACTS), the style profile "
            "(PROFILE_FILE), the draft (DRAFT_FILE), the profile items known to be vague "
            "(WEAK_ITEMS) and how much evidence the profile rests on (EVIDENCE). Read the "
            "checklist above: its table is how you grade. Then read the "
            "profile in full, then the draft twice: once as its reader, once with the profile "
            "beside it.",
            "If a report from an earlier pass exists where your brief says to write yours, read "
            "it too: your report keeps every finding it lists, with the same id and severity."],
            forbidden=["Do not edit the draft or the profile."], next={"ok": "items"}),
        StepDef("items", "Check the draft against each profile item", actions=[
            "Take the profile's items in order, Voice 1 first, the Never does section too. For "
            "each, find where the draft keeps or breaks it, and settle it before the next.",
            Action("Record one line per item, in order: its name, then kept, or broken with "
                   "where and the draft's words quoted (Voice 2: broken, paragraph 3, \"...\").",
                   out="ITEM_CHECKS")],
            args=[Arg("ITEM_CHECKS", "one line per profile item: its name, then kept, or "
                                     "broken with where and the draft's words")],
            forbidden=["Do not grade your own taste: a sentence you would write otherwise "
                       "that keeps every item is not a finding.",
                       "Do not skip an item because the draft mostly keeps it."],
            next={"ok": "brief"}),
        StepDef("brief", "Check the draft against the brief and its facts", actions=[
            "List what BRIEF asks for (the points to cover, the audience, the purpose, the "
            "length, the form) and each fact in FACTS. Check each against the draft. Then look "
            "for any fact the draft states that neither BRIEF, FACTS nor common knowledge gives.",
            Action("Record one line per point or fact: kept, or missing, contradicted or "
                   "invented, with where.",
                   out="BRIEF_CHECKS")],
            args=[Arg("BRIEF_CHECKS", "one line per point of the brief or fact: kept, or "
                                      "missing, contradicted or invented, with where")],
            forbidden=["Do not fix anything: your job is to find and grade."],
            next={"ok": "report"}),
        StepDef("report", "Write the report", reads=("ITEM_CHECKS", "BRIEF_CHECKS"), actions=[
            "Write the report file where your brief says, in the format it names. It lists "
            "every finding raised so far: each finding of the earlier report keeps its id and "
            "severity, with status resolved if the draft no longer has the problem and open if "
            "it does; each new finding (every line above that is not kept, and not already "
            "listed) gets the next free id and status open. An empty list, or one with no open "
            "finding, means the draft keeps every item and meets the brief.",
            Action("One line: the report's path.", out="reply")],
            next={"ok": None}, complete="Your review is done. Reply with the report's path."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
