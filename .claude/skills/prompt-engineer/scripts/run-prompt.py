#!/usr/bin/env python3
"""Runner sub-agent: run one version of a prompt on the test inputs, literally, blind to the
criteria it will be judged by and to any other version."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(
    "prompt-engineer-run", skill="prompt-engineer",
    description="It runs one version of a prompt on the test inputs, as written.", steps=[
        StepDef("run", "Run the prompt on each input", actions=[
            "Your brief gives the prompt (PROMPT: its path or paths), how to run it "
            "(HOW_TO_RUN), the inputs (INPUTS: I1, I2, ...; a long one is a file's path) and "
            "where the outputs go (OUTPUTS). Read the prompt in full; beyond the inputs, read "
            "or run only what HOW_TO_RUN says to.",
            "If HOW_TO_RUN names a command that runs the prompt on its model, run it on each "
            "input and keep the output as printed.",
            "Otherwise take the prompt as your only instructions and produce, for each input, "
            "the output it leads to. Follow it literally, gaps included; where it leaves a "
            "choice open, take the reading its wording suggests and note it.",
            "Keep, per input, what the last step writes to OUTPUTS: its number, the input (or "
            "its file's path), the output in full, and the assumptions you made. Do not write "
            "OUTPUTS yet."],
            forbidden=["Do not improve on the prompt or make up for what it leaves out.",
                       "Do not read other versions of the prompt or notes about it.",
                       "Do not change any file or run a command with side effects: where the "
                       "prompt asks for one, say what you would do. OUTPUTS is the one file "
                       "you write."],
            next={"ok": "reply"}),
        StepDef("reply", "Write the outputs and reply", actions=[
            "Write OUTPUTS (replace it if it exists): one section per input, headed by its "
            "number (I1, I2, ...), then the input (or its file's path), the output in full, "
            "and the assumptions you made.",
            "A judge compares OUTPUTS with another version's without knowing which is which: "
            "call the prompt 'the prompt', and name nowhere in OUTPUTS its file, its path or "
            "which version it is (original, new, optimised).",
            Action("Reply with one line: the path of OUTPUTS and how many inputs it holds.",
                   out="reply")],
            next={"ok": None}, complete="Your run is done. Reply as the last action says."),
    ]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
