#!/usr/bin/env python3
"""Prompt engineer: improve a prompt, a system prompt, a multi-prompt chain or a skill.

triage (four scopes) -> the scope's own analysis against the technique catalog -> test inputs
and their criteria, fixed before any change -> a runner sub-agent runs the original -> propose
changes, each tied to a quoted weakness and a technique -> write the optimised version -> a
fresh runner runs it -> two judge sub-agents compare the outputs blind, one in each order ->
present; or, when the original still wins an input, revise (at most twice more), keeping every
pass's version and outputs, and then present the known weaknesses.

The working files live in _files.py; triage and the four analyses in _scopes.py.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from collections.abc import Callable
from importlib import import_module

from skills.lib.workflow import (
    Action,
    Arg,
    Dispatch,
    Param,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    main,
    register_workflow,
    value_of,
)

# The skill's folder name has a hyphen, so its helpers are imported by their dotted name.
_files = import_module("skills.prompt-engineer.scripts._files")
_scopes = import_module("skills.prompt-engineer.scripts._scopes")
out_file, pass_of, kept_version = _files.out_file, _files.pass_of, _files.kept_version
original_outputs, new_outputs = _files.original_outputs, _files.new_outputs

# propose comes once per pass; the analysis step has just read the catalog.
CATALOG_AGAIN = _scopes.CATALOG._replace(
    when="The technique catalog. Read it only if you have not read it in this run; look up "
         "each technique you name.")
APPLY = ("Offer to apply it: with the user's yes, and only then, copy the optimised file over "
         "the original (for a chain or a skill, each section's text over the file that heads "
         "it; for a pasted prompt, give the user the new text).")
INPUTS_HELP = ("test inputs the user supplied: file paths separated by spaces, and 'pasted' for "
               "inputs in the conversation; none: the run writes its own")
OUT_HELP = ("where to write the optimised version (default .prompt-engineer/optimised.md); the "
            "working files go beside it")


def source(ctx: StepContext) -> str:
    """Where the inputs come from: the user's (--inputs, or the conversation when the flag was
    left out), topped up so that a regression can show, or all the run's own."""
    given = ctx.params.get("inputs", _files.NO_INPUTS)
    said = (f"The user gave test inputs: {given}." if given != _files.NO_INPUTS else
            "No test inputs came with --inputs; use any the user gave in the conversation.")
    return (f"{said} Each of the user's is one input: a file stays where it is and INPUTS "
            "gives its absolute path (do not copy it); text from the conversation is copied "
            "verbatim. With fewer than three of theirs (or none), add your own to make three or "
            "four in all: first one the original already handles well, so a regression shows, "
            "then an edge case that hits a weakness in ANALYSIS, then a typical input. With "
            "three or more, use only theirs.")


inputs = StepDef(
    "inputs", "Fix the test inputs and their criteria", reads=("GOAL", "ANALYSIS"), actions=[
        Action(source),
        Action(lambda ctx: "For a skill, the inputs you write include a request that should "
                           "trigger it and one that should not. INPUTS goes verbatim to the "
                           "runners: write each as 'I1:', 'I2:', ... and then only the raw "
                           "text the prompt would receive, or the absolute path of the file "
                           "that holds it, with no label, no W-number and no word on what it "
                           "tests. Separate them by a blank line; text longer than a few lines "
                           f"that is in no file yet goes in {_files.work_dir(ctx)}/input-N.md "
                           "(N its number), and INPUTS gives that path.", out="INPUTS"),
        Action("Record what each input tests, by its number: the W-number it hits, 'should "
               "trigger' or 'should not trigger' for a skill, 'regression' for one the original "
               "already handles well, and 'user' before any of these for a user's input. The "
               "runners and judges never see TESTS.", out="TESTS"),
        Action("For each input, by its number, write two to four checkable statements a good "
               "output meets, from GOAL, now, before any change exists. CRITERIA goes verbatim "
               "to the judges, who must not learn which version is which or what you expect: "
               "say only what the output does ('quotes the 30-day rule'), with no W-number and "
               "no word on versions or on what the input tests ('original', 'regression', "
               "'new', 'still', 'already').", out="CRITERIA")],
    args=[Arg("INPUTS", "I1: raw input or its file's path, I2: ...; nothing else"),
          Arg("TESTS", "per input: its number and what it tests"),
          Arg("CRITERIA", "per input: its number and two to four checkable statements")],
    forbidden=["Do not pick inputs only the changes you have in mind would pass."],
    next={"ok": "baseline"})


def runner(prompt: Callable[[StepContext], str],
           outputs: Callable[[StepContext], str]) -> Dispatch:
    """A fresh sub-agent that runs one version on the inputs, blind to the criteria."""
    return Dispatch("general-purpose", "Run the prompt at PROMPT, unchanged, on each input in "
                    "INPUTS, and write the outputs to OUTPUTS. A judge reads OUTPUTS blind: "
                    "it must not name the prompt, its path or its version.",
                    "one line: the path of the outputs file and how many inputs it holds",
                    script="scripts/run-prompt.py",
                    vars={"PROMPT": prompt, "HOW_TO_RUN": value_of("HOW_TO_RUN"),
                          "INPUTS": value_of("INPUTS"), "OUTPUTS": outputs})


baseline = StepDef(
    "baseline", "Have the original run on the inputs",
    dispatch=runner(value_of("ORIGINAL"), original_outputs),
    actions=[Action("Record the runner's reply as it came.", out="BASELINE")],
    args=[Arg("BASELINE", "the runner's reply")],
    forbidden=["Do not run the prompt yourself.", "Do not give the runner the criteria."],
    next={"ok": "propose"})


def revision(ctx: StepContext) -> str:
    """Said only on a revision pass, when the judges have spoken."""
    n = pass_of(ctx)
    return (f"This is pass {n}: read the last version's outputs in {new_outputs(ctx, n - 1)}. "
            "For each input whose verdict in VERDICTS is the original, find the change that "
            "cost it (TESTS says what that input tests) and undo or rework it; keep the "
            "changes the judges credited. CHANGES is again the full list against the "
            "original, not what differs from the last version."
            if n > 1 else "")


propose = StepDef(
    "propose", "Propose the changes", resources=[CATALOG_AGAIN],
    reads=("GOAL", "ANALYSIS", "TESTS", "CRITERIA"), optional_reads=("CHANGES", "VERDICTS"),
    actions=[
        Action(lambda ctx: f"Read the original's outputs in {original_outputs(ctx)} against "
                           "CRITERIA: a criterion the original misses is a weakness too, with "
                           "its output as the evidence."),
        Action(revision),
        Action("List the changes C1, C2, ...: each quotes the original text it replaces (or "
               "says where new text goes), gives the new text, names the catalog technique, "
               "and gives the reason: the weakness (W..) or missed criterion it fixes, and what "
               "it costs (length, latency, rigidity).", out="CHANGES")],
    args=[Arg("CHANGES", "C1, C2, ...: quote, new text, technique, reason and cost")],
    forbidden=["Do not add a technique that no quoted weakness or missed criterion calls for.",
               "Do not change what the prompt is for (task, audience, output) unless GOAL "
               "asks for it."],
    next={"ok": "write"})


def keep_last(ctx: StepContext) -> str:
    n = pass_of(ctx)
    return (f"First rename the last version, {out_file(ctx)}, to {kept_version(ctx, n - 1)}: "
            "every pass's version stays, beside its outputs." if n > 1 else "")


write = StepDef(
    "write", "Write the optimised version", reads=("ORIGINAL", "CHANGES"), actions=[
        Action(keep_last),
        Action(lambda ctx: f"Write the optimised version to {out_file(ctx)}: the original with "
                           "exactly the changes in CHANGES applied. For a chain or a skill, "
                           "one section per prompt or file, headed by its original path, with "
                           "its full new text (a skill's step texts included)."),
        "Read it once from start to end as the model that will run it, and fix any "
        "contradiction or broken reference the changes introduced."],
    forbidden=["Do not edit the original: the user decides whether to adopt the new version."],
    next={"ok": "trial"})

trial = StepDef(
    "trial", "Have the optimised version run on the same inputs",
    dispatch=runner(out_file, new_outputs),
    actions=[Action("Record the runner's reply as it came.", out="TRIAL")],
    args=[Arg("TRIAL", "the runner's reply")],
    forbidden=["Do not run it yourself; start a fresh runner.",
               "Do not give the runner the criteria."],
    next={"ok": "judge"})


def orders(ctx: StepContext) -> list[str]:
    """Both orders, one judge each: a judge's lean towards the first position then shows
    as a disagreement instead of deciding an input."""
    old, new = original_outputs(ctx), new_outputs(ctx)
    return [f"A = {old}; B = {new}", f"A = {new}; B = {old}"]


judge = StepDef(
    "judge", "Have two blind judges compare the outputs",
    dispatch=Dispatch("general-purpose", "Compare outputs files A and B per input against "
                      "CRITERIA.",
                      "'I1: A, B or TIE - reason' lines and weak points",
                      script="scripts/judge.py", items=orders,
                      vars={"CRITERIA": value_of("CRITERIA")}),
    actions=[Action("A is the original's outputs in item 1, the new version's in item 2. "
                    "Combine, never overrule: an input's verdict is the version one or both "
                    "judges pick if no judge picks the other version, else TIE. Write 'I1: "
                    "new, original or TIE - reasons' per input, then 'original worse:' and 'new "
                    "worse:' from both replies.", out="VERDICTS")],
    args=[Arg("VERDICTS", "per input: new, original or TIE; weak points")],
    when={"holds": "no input's verdict is 'original'",
          "loses": "an input's verdict is 'original'"},
    forbidden=["Add nothing to the judges' prompts."],
    next={"holds": "present", "loses": Rework("propose", 3, "present-weak")})


def report(ctx: StepContext) -> str:
    n = pass_of(ctx)
    earlier = "".join(f"; pass {k}'s version is kept at {kept_version(ctx, k)}, its outputs in "
                      f"{new_outputs(ctx, k)}" for k in range(1, n))
    return (f"the new version is at {out_file(ctx)}, the original is unchanged; each change "
            "with its technique and reason (CHANGES); per input, what it tests (TESTS), which "
            "version won and why (VERDICTS); what the new version still does worse; the "
            f"outputs: the original's in {original_outputs(ctx)}, the new version's in "
            f"{new_outputs(ctx)}{earlier}. Say that a sub-agent produced them by playing the "
            "target model (unless HOW_TO_RUN runs the model itself), and that two blind "
            "judges, each given the two in another order, compared them on "
            f"{_files.input_count(ctx)}")


present = StepDef(
    "present", "Present the optimised version", reads=("TESTS", "CHANGES", "VERDICTS"),
    actions=[Action(lambda ctx: f"Tell the user: {report(ctx)}. {APPLY}", out="reply")],
    forbidden=["Do not apply the new version before the user says so."],
    next={"ok": None}, complete="The prompt is improved. Give the user your summary.")

present_weak = StepDef(
    "present-weak", "Present it with its known weaknesses",
    reads=("TESTS", "CHANGES", "VERDICTS"),
    actions=[Action(lambda ctx: "Tell the user the revisions are used up and the original still "
                                f"wins some inputs: {report(ctx)}; the inputs the original "
                                "still wins, what each tests and why. Recommend one: keep the "
                                "original, adopt the new one for the cases it wins, or try a "
                                "direction the user names; ask which they want.", out="reply")],
    forbidden=["Do not apply either version before the user chooses."],
    next={"ok": None}, complete="The revisions are used up. Give the user your summary.")

WORKFLOW = register_workflow(Workflow(
    "prompt-engineer", description="It improves a prompt, a chain of prompts or a skill, and "
                                   "tests the new version against the old on concrete inputs.",
    params=[Param("prompt", "what to improve: a file or folder path, several paths, or "
                            "'pasted' when it is in the conversation", required=True),
            Param("goal", "what should get better, in the user's words",
                  default="not stated: infer it from the prompt and the conversation"),
            Param("inputs", INPUTS_HELP, default=_files.NO_INPUTS, check=_files.inputs_problem,
                  sample=_files.NO_INPUTS),
            Param("out", OUT_HELP, default=".prompt-engineer/optimised.md")],
    steps=[_scopes.triage, *_scopes.ANALYSES, inputs, baseline, propose, write, trial, judge,
           present, present_weak]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
