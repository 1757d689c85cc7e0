#!/usr/bin/env python3
"""Judge sub-agent: compare two versions' outputs on the same inputs against criteria fixed
beforehand, without knowing which version is the original. The orchestrator starts two, one
per order of the files, so a lean towards the first position cannot decide an input."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from importlib import import_module

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

# The skill's folder name has a hyphen, so its helpers are imported by their dotted name.
INPUT_SHOWN = import_module("skills.prompt-engineer.scripts._files").INPUT_SHOWN

WORKFLOW = register_workflow(Workflow(
    "prompt-engineer-judge", skill="prompt-engineer",
    description="It judges two versions' outputs per input, blind to which is which.", steps=[
        StepDef("score", "Score each output on its own", actions=[
            "Your brief gives what a good output must do for each input (CRITERIA), and your "
            "item names two files, A and B, with the outputs of two versions of a prompt on the "
            f"same inputs. Each file has one section per input: its number, then {INPUT_SHOWN}, "
            "then the output. Nothing tells you which version is newer, and nothing should. "
            "Read both files in full, and an input's own file where its first line is not "
            "enough.",
            "For each input, check A's output against each of its criteria, then B's, each on "
            "its own: met, partly or missed, quoting the output.",
            "Note what the criteria miss: wrong facts, ignored instructions, needless length, "
            "a form its reader could not use."],
            forbidden=["Do not open files other than A, B and the inputs' own files: not the "
                       "prompts, not notes about them; do not list their folder or look at "
                       "their dates.",
                       "Do not count length or polish as quality by themselves."],
            next={"ok": "judge"}),
        StepDef("judge", "Judge each input and reply", actions=[
            "For each input, pick the better output: the one that meets more criteria; on "
            "equal criteria, the one with fewer of the problems you noted; TIE only when "
            "neither is better. Which one you read first does not count.",
            "For each version, note what it does worse than the other anywhere, even on inputs "
            "it wins.",
            Action("One line per input: its number, a colon, A, B or TIE, a dash and "
                   "the reason naming the criteria (for example 'I2: B - meets all three; A "
                   "misses the deadline'). Then a line 'A worse:' and a line 'B worse:', each "
                   "with what that version does worse, or none.", out="reply")],
            next={"ok": None}, complete="Your judgement is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
