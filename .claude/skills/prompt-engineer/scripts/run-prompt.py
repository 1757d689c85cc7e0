#!/usr/bin/env python3
"""Runner sub-agent: run one version of a prompt on the test inputs as a typical model would,
adding no care the prompt does not ask for, blind to the criteria it will be judged by and to
any other version. One step: reading, running and writing the outputs are one job."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from importlib import import_module

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

# The skill's folder name has a hyphen, so its helpers are imported by their dotted name.
INPUT_SHOWN = import_module("skills.prompt-engineer.scripts._files").INPUT_SHOWN

WORKFLOW = register_workflow(Workflow(
    "prompt-engineer-run", skill="prompt-engineer",
    description="It runs one version of a prompt on the test inputs and writes the "
                "outputs.", steps=[
        StepDef("run", "Run the prompt on each input and write the outputs", actions=[
            "Your brief gives the prompt (PROMPT: its path or paths), how to run it "
            "(HOW_TO_RUN), the inputs (INPUTS: I1, I2, ...; some may be a file's path) and "
            "where the outputs go (OUTPUTS). Read the prompt in full; beyond the inputs, read "
            "or run only what HOW_TO_RUN says to.",
            "If HOW_TO_RUN names a command that runs the prompt on its model, run it on each "
            "input and keep the output as printed.",
            "Otherwise take the prompt as your only instructions and produce, for each input, "
            "the output it leads to. Where the prompt is silent, do what a typical model given "
            "only this text would most likely do, and note that assumption; do not add care "
            "the prompt does not ask for.",
            f"Write OUTPUTS (replace it if it exists): one section per input, headed by its "
            f"number (I1, I2, ...), then {INPUT_SHOWN}, the output in full, and the "
            "assumptions you made.",
            "A judge compares OUTPUTS with another version's without knowing which is which: "
            "call the prompt 'the prompt', and name nowhere in OUTPUTS its file, its path or "
            "which version it is (original, new, optimised).",
            Action("One line: the path of OUTPUTS and how many inputs it holds.",
                   out="reply")],
            forbidden=["Do not improve on the prompt or make up for what it leaves out.",
                       "Do not read other versions of the prompt or notes about it.",
                       "Do not change any file or run a command with side effects: where the "
                       "prompt asks for one, say what you would do. OUTPUTS is the one file "
                       "you write."],
            next={"ok": None}, complete="Your run is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
