#!/usr/bin/env python3
"""Doc-sync: keep a repository's documentation in step with its code.

inventory the docs -> map each to the code it describes -> the mechanical check (a verify gate:
paths, commands, CLI flags, docstring parameters) as a baseline -> semantic drift by judgement
-> proposed edits in a file, checked by the script, then reviewed by a fresh sub-agent (a QR
loop, escalating to the user) -> apply -> the check again as the gate, with bounded fix rounds
-> the report.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import shlex
from collections.abc import Callable
from importlib import import_module

from skills.lib.workflow import (
    Action,
    Arg,
    Dispatch,
    Param,
    Resource,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    decides,
    main,
    qr_loop,
    register_workflow,
)
from skills.lib.workflow.step.routing import interpreter

# The skill's folder name has a hyphen, so its helper is imported by its dotted name.
_editsfile = import_module("skills.doc-sync.scripts._editsfile")

FORMAT = Resource("edits-format", "resources/edits-format.md",
                  "The edits file's format with an example; read it before writing the file.")
CHECK = "python3 ${SKILL_DIR}/scripts/_check-docs.py --dir ${dir}"
TRIES = 4  # edits files in a row that fail the script's check before the run stops
FIX_ROUNDS = 3  # runs of the final check, the first included, before the report


def work_dir(ctx: StepContext) -> str:
    """Absolute, so the agent and its sub-agents name the same files whatever their folder."""
    return os.path.abspath(ctx.params.get("dir", ".doc-sync"))


def in_dir(name: str) -> Callable[[StepContext], str]:
    """The path of a file in the work folder, as a text the steps render."""
    return lambda ctx: os.path.join(work_dir(ctx), name)


def edit_problems(ctx: StepContext) -> list[str]:
    """What is wrong with the edits file: every problem, so one fix pass can mend them all."""
    return _editsfile.problems(in_dir("edits.json")(ctx), in_dir("drift.md")(ctx))


def _problems_said(ctx: StepContext) -> str:
    """Heads the proposal step after a failed check: every problem the check found."""
    if ctx.passes("check-edits:invalid") == 0:
        return ""
    problems = edit_problems(ctx)
    return "" if not problems else (
        f"The edits file {in_dir('edits.json')(ctx)} failed its check: "
        + "; ".join(problems) + ". Fix exactly these problems first.")


@decides("valid", "invalid")
def _check_edits(ctx: StepContext) -> str:
    return "invalid" if edit_problems(ctx) else "valid"


def _check_said(ctx: StepContext) -> str:
    n = len(edit_problems(ctx))
    return (f"The edits file fails its check ({n} problem{'s' * (n != 1)})." if n
            else "The edits file passed its check: every old text occurs once.")


def _check_command(ctx: StepContext) -> str:
    """The verify gate's check as the agent can run it, with this interpreter."""
    script = os.path.join(os.path.dirname(os.path.realpath(__file__)), "_check-docs.py")
    return shlex.join([interpreter(), script, "--dir", ctx.params["dir"]])


def _prepare_docs(ctx: StepContext, outcome: str) -> None:
    """For simulation: a doc list whose one doc is clean ('ok') or links a missing file."""
    os.makedirs(work_dir(ctx), exist_ok=True)
    with open(in_dir("docs.txt")(ctx), "w", encoding="utf-8") as handle:
        handle.write("SAMPLE.md\n")
    target = "missing.md" if outcome == "fail" else "SAMPLE.md"
    with open("SAMPLE.md", "w", encoding="utf-8") as handle:
        handle.write(f"# Sample\n\nThis doc links [itself]({target}).\n")


def _prepare_edits(ctx: StepContext, outcome: str) -> None:
    """For simulation: an edits file that passes the check, or one whose old text is absent."""
    import json

    with open("SAMPLE.md", "w", encoding="utf-8") as handle:
        handle.write("# Sample\n\nRun the old command.\n")
    old = "the old command" if outcome == "valid" else "text the doc does not hold"
    os.makedirs(work_dir(ctx), exist_ok=True)
    with open(in_dir("edits.json")(ctx), "w", encoding="utf-8") as handle:
        json.dump({"edits": [{"id": "E1", "finding": "D1", "doc": "SAMPLE.md", "location":
                              "SAMPLE.md:3", "old": old, "new": "the new command",
                              "evidence": "simulated"}]}, handle)


inventory = StepDef(
    "inventory", "Inventory the docs", actions=[
        Action(lambda ctx: f"In scope: {ctx.params['scope']}. Find the docs in scope: READMEs, "
                           "CLAUDE.md and AGENTS.md files, docs/, CONTRIBUTING, the --help "
                           "texts, and the modules of the public API (their docstrings). Leave "
                           "out changelogs, vendored, generated and archived docs."),
        Action(lambda ctx: f"Write {in_dir('docs.txt')(ctx)}: one doc per line, relative to "
                           "the repository root (a folder stands for its markdown and .rst "
                           "files). List "
                           "a Python module for its docstrings when other code imports it; a "
                           "one-file script that is only run as a command is a CLI, not a "
                           "public-API module."),
        Action(lambda ctx: f"Write {in_dir('clis.txt')(ctx)}: the project's own command-line "
                           "tools, one per line, as NAME: COMMAND, where COMMAND runs the tool "
                           "from the root (`tool.py: python3 tool.py`; for a package run with "
                           "python -m, `calc: python3 -m calc.cli`), or as NAME alone when it "
                           "is on PATH. NAME is the word your docs write to run the tool; the "
                           "check finds flags in doc commands that start with either NAME or "
                           "COMMAND. An empty file when there are none. This entry is how the "
                           "check reads a CLI's flags: never list a --help in docs.txt."),
        Action("Summarise what you listed and what you left out, with the reason.",
               out="INVENTORY")],
    args=[Arg("INVENTORY", "the docs by kind, the CLIs, and what was left out and why")],
    forbidden=["Do not edit any doc yet.", "Do not add the work folder to git: it is this "
                                           "run's scratch space, left untracked."],
    next={"ok": "map"})

map_docs = StepDef(
    "map", "Map each doc to its code", reads=("INVENTORY",), actions=[
        "For each doc, find the code it describes: the modules, commands, flags, config keys, "
        "files and behaviours it names. Search for each name; read the parser of each CLI.",
        "This step records what each doc claims and where; it does not judge whether a claim "
        "still holds. Judging drift is the detect step's job, after the script's check.",
        Action("Record the map: per doc, the code it describes with paths, and the facts it "
               "states that can go stale (defaults, outputs, steps, examples), each with its "
               "doc:line.", out="DOC_MAP")],
    args=[Arg("DOC_MAP", "per doc: the code it describes (paths) and its checkable facts")],
    forbidden=["Do not edit any doc yet."], next={"ok": "baseline"})

baseline = StepDef(
    "baseline", "Run the mechanical check", verify=CHECK, prepare=_prepare_docs, actions=[
        "The script ran the mechanical check; its output, VERIFY_OUTPUT, is the baseline the "
        "next step works from, whether it passed or not."],
    next={"ok": "detect", "fail": "detect"})

detect = StepDef(
    "detect", "Find the drift", reads=("DOC_MAP", "VERIFY_OUTPUT"), actions=[
        Action(lambda ctx: "If VERIFY_OUTPUT (the mechanical check) has 'not checked' lines, "
                           "compare each flag they name with the CLI's code: one it lacks is "
                           "drift; one it defines goes in "
                           f"{in_dir('hand-checked.txt')(ctx)} as 'CLI --FLAG'  # FILE:LINE, "
                           "not in drift.md."),
        Action(lambda ctx: "Confirm each problem line of VERIFY_OUTPUT in the code; a "
                           "reference right as written (a file the build creates) goes in "
                           f"{in_dir('ignore.txt')(ctx)} as 'REFERENCE'  # why."),
        "A documented command, script or target that does not exist: the fix corrects the doc "
        "to what the project has or deletes the text (if you cannot tell which, say so).",
        "The check sees only the flags of commands that start with a NAME or COMMAND of "
        "clis.txt (and of inline code after one): check the docs' other flags yourself, above "
        "all for a CLI with 'no documented flags found'.",
        "The check reads markdown, and reStructuredText with docutils: Sphinx's Python roles "
        "(:func:, :class:, :meth:, ...) and auto* directives against the code, and "
        "literalinclude, include, image, figure and :doc: against the files. Its last line "
        "says how many docs of each kind it read; a 'not read' line names a doc it could not "
        "read, which you check by hand. It does not run Sphinx: :ref: labels, intersphinx, "
        "toctrees and other formats (AsciiDoc, .txt) are yours to check.",
        "Then go through DOC_MAP for what no script sees: renamed or removed functions, "
        "options and config keys, changed defaults and behaviour, changed example output, "
        "stale docstrings. Compare each with the code, with read-only commands (git log -- "
        "PATH) where they help.",
        Action(lambda ctx: f"Write the drift to {in_dir('drift.md')(ctx)}, one paragraph "
                           "per finding, each starting D1, D2, ...: doc:line, what it says, what "
                           "the code does (file:line), and whether the check or you found it."),
        Action("Count the findings per doc.", out="DRIFT")],
    args=[Arg("DRIFT", "the number of findings per doc (the list is in drift.md); or none")],
    when={"drift": "at least one finding", "clean": "no drift (ignored references aside)"},
    forbidden=["Do not edit any doc yet.", "Do not report drift you have not checked in the "
                                           "code.", "Do not ignore real drift.",
               "Do not add code, targets or files to make a doc true."],
    next={"drift": "propose", "clean": "verify"})

propose = StepDef(
    "propose", "Propose the edits", resources=[FORMAT], actions=[
        Action(_problems_said),
        Action(lambda ctx: f"Write {in_dir('edits.json')(ctx)} in the edits format: for each "
                           f"finding in {in_dir('drift.md')(ctx)}, the smallest edit that makes "
                           "the doc true, with the exact old text, the new text and the "
                           "evidence; or an entry in 'left' saying why the doc stays (the code "
                           "is wrong, or the user must choose the fix)."),
        "Keep each doc's voice, format and level, its placeholder style included (a doc that "
        "writes FILE keeps FILE). Write the new text as timeless fact: no 'now', 'new', "
        "'renamed', 'no longer'."],
    forbidden=["Do not edit the docs yet: the edits are reviewed first."])

check_edits = StepDef(
    "check-edits", "Check the edits file", handler=_check_edits, actions=[Action(_check_said)],
    prepare=_prepare_edits,
    next={"valid": "review-edits", "invalid": Rework("propose", TRIES, "edits-invalid")})

review_edits = StepDef(
    "review-edits", "Review the proposed edits",
    dispatch=Dispatch("quality-reviewer", "Review the proposed doc edits as a fresh reader: "
                      "is each one true of the code, complete and minimal?",
                      "one line: the path of the report you wrote", script="scripts/qr/edits.py",
                      vars={"EDITS_FILE": in_dir("edits.json"),
                            "DRIFT_FILE": in_dir("drift.md"), "DOCS_LIST": in_dir("docs.txt")}),
    forbidden=["Do not edit the report."])

apply_edits = StepDef(
    "apply", "Apply the edits", actions=[
        Action(lambda ctx: f"Apply every edit of {in_dir('edits.json')(ctx)}: in its doc, "
                           "replace the old text by the new, exactly."),
        Action("Record each edit's id and whether it was applied (if not, why).",
               out="APPLIED")],
    args=[Arg("APPLIED", "per edit: its id, applied or why not")],
    forbidden=["Do not change anything the edits file does not hold."], next={"ok": "verify"})

verify = StepDef(
    "verify", "Check the docs again", verify=CHECK, prepare=_prepare_docs,
    next={"ok": "report", "fail": Rework("fix", FIX_ROUNDS, "report")})

fix = StepDef(
    "fix", "Fix what the check found", reads=("VERIFY_OUTPUT",), actions=[
        "Fix every problem line of VERIFY_OUTPUT in its doc, checking the suggested fix "
        "against the code first. A problem in docs.txt, ignore.txt or hand-checked.txt: fix "
        "that file.",
        Action(lambda ctx: "Each flag of a 'not checked' line: compare it with the code; "
                           "record each the code defines in "
                           f"{in_dir('hand-checked.txt')(ctx)} as 'CLI --FLAG'  # FILE:LINE, "
                           "and fix the doc for the others."),
        Action(lambda ctx: "A reference that is right as written: add it to "
                           f"{in_dir('ignore.txt')(ctx)} as 'REFERENCE'  # why. To run the "
                           f"check yourself: {_check_command(ctx)}"),
        Action("Record, per problem, what you changed, or why you ignored it.", out="FIXED")],
    args=[Arg("FIXED", "per problem: the change made, the flags recorded as checked by "
                       "hand, or why it was ignored")],
    forbidden=["Do not ignore a reference to make the check pass: fix the doc.",
               "Do not record a flag as checked by hand unless you read the code that defines "
               "it.", "Do not edit .claude/skillrail.yaml: the gateway policy is the user's."],
    next={"ok": "verify"})

report = StepDef(
    "report", "Report", reads=("INVENTORY", "DRIFT", "VERIFY_OUTPUT"),
    optional_reads=("APPLIED", "FIXED", "QR_USER_DECISION"), actions=[
        Action("Write the user the report, holding these parts in this order. Leave out a part "
               "whose source this run did not make: only INVENTORY, DRIFT and VERIFY_OUTPUT "
               "are sure to exist.", out="reply"),
        Action(lambda ctx: "1. The docs checked (INVENTORY) and the drift found (DRIFT, "
                           f"{in_dir('drift.md')(ctx)})."),
        "2. The edits applied (APPLIED) and the fixes made after the check (FIXED).",
        "3. The last check (VERIFY_OUTPUT): clean, or what is still open, and its 'flags of' "
        "line for each CLI. If it has a 'to have the check run' line, tell the user in plain "
        "words: the project's .claude/skillrail.yaml lists the commands skillrail may run "
        "(`skillrail gateway policy` prints it), and only the user adds the CLI there.",
        Action(lambda ctx: f"4. The flags in {in_dir('hand-checked.txt')(ctx)} and the "
                           f"references in {in_dir('ignore.txt')(ctx)}, each with its reason."),
        Action(lambda ctx: "5. The findings left unedited ('left' in "
                           f"{in_dir('edits.json')(ctx)}, QR_USER_DECISION) and what the user "
                           "must decide."),
        Action(lambda ctx: "6. The review's non-blocking findings (the open items of "
                           f"{in_dir('qr-edits.json')(ctx)}), for the user to take or leave."),
        Action(lambda ctx: f"7. Last, the work folder {work_dir(ctx)}: it holds these files; "
                           "suggest deleting it, or adding it to .gitignore to keep it.")],
    next={"ok": None}, complete="Doc-sync is done. Give the user your report.")

edits_invalid = StepDef(
    "edits-invalid", "Stop: the edits file keeps failing its check", actions=[Action(
        "Tell the user the run stopped because the edits file still fails its check after "
        "several fixes, and list the last problems the check reported.", out="reply")],
    next={"ok": None}, complete="Doc-sync stopped. Give the user your message.")

WORKFLOW = register_workflow(Workflow(
    "doc-sync", description="It keeps documentation in step with code: finds the drift, "
                            "proposes reviewed edits, applies them and checks the result.",
    params=[Param("scope", "which docs to keep in step, in one line",
                  default="every doc in the repository"),
            Param("dir", "the work folder, inside the repository, for the doc list, the "
                         "drift, the edits and the review report (default .doc-sync)",
                  default=".doc-sync")],
    steps=[inventory, map_docs, baseline, detect,
           *qr_loop("edits", work=propose, check=check_edits, review=review_edits,
                    on_pass="apply", limit=3, report=in_dir("qr-edits.json")),
           apply_edits, verify, fix, report, edits_invalid]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
