#!/usr/bin/env python3
"""Commit message: draft a message for the staged change, have it reviewed, hand it over.

Written in the original (legacy) API on purpose: it shows the migration path. `@skill` adapts
the numbered STEPS into a validated Workflow, so this script gets graph validation, the run
ledger and protocol v1 like any other; the gate's review loop is the shared one (qr_loop).
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow.legacy import (
    AgentRole,
    GateConfig,
    LinearRouting,
    Step,
    TerminalRouting,
    format_expected_output,
    format_forbidden,
    format_subagent_dispatch,
    skill,
)

MESSAGE_FILE = '"$(git rev-parse --git-dir)/SKILLRAIL_COMMIT_MSG"'
CHECKLIST = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                         "resources", "message-checklist.md")

STEPS = {
    1: Step("Draft the commit message", [
        "The staged change, in summary: !`git diff --cached --stat`. If nothing is staged, "
        "tell the user to stage the change first, and stop; do not stage files yourself. "
        "Otherwise read it whole: run `git diff --cached`.",
        "Work out why the change was made, not only what it does: read the code around the "
        "edits until you can state the reason in one sentence. If the code does not show the "
        "reason, ask the user in one question; never invent one.",
        "The repository's habits, from its recent subjects: !`git log -n 20 --format=%s`. If "
        "they carry prefixes (feat:, fix(parser):) or ticket ids, follow them.",
        f"Write the message to the file {MESSAGE_FILE} (shell syntax: the repository's .git "
        "folder). Subject: imperative mood, at most 72 characters, no trailing period. Then a "
        "blank line and a body wrapped at 72 columns: why the change is needed; what it changes, "
        "at a level a reviewer can check against the diff; what a reader must know afterwards "
        "(a changed default, a migration, a removed option). Leave the body out only for a "
        "change that explains itself in the subject.",
        format_forbidden(["Do not commit, amend, stage or unstage anything.",
                          "Do not mention changes that are not in the staged diff."]),
    ], LinearRouting()),
    2: Step("Review the draft", [
        format_subagent_dispatch(
            AgentRole.QUALITY_REVIEWER, "", free_form=True, context_vars={
                "MESSAGE_FILE": MESSAGE_FILE,
                "CHECKLIST": CHECKLIST,
            }, prompt=(
                "Review a commit message against the change it describes. Read the message "
                "in MESSAGE_FILE and the staged change (run `git diff --cached` yourself). "
                "Check the message against every item of CHECKLIST. Change nothing: do not "
                "edit the message, stage, or commit."),
            expect="one line per finding: id (F1, F2, ...), severity, where (subject or body "
                   "line), problem, fix; or the single word none"),
        "Take the reviewer's findings as they are, with their severities: do not soften, drop "
        "or add any. If you think one is wrong, say so to the user at the end; do not drop it.",
    ], LinearRouting()),
    3: Step("Gate on the review", [], gate=GateConfig(
        qr_name="message-review", work_step=1, pass_step=4,
        pass_message="The commit message passed review.", self_fix=True)),
    4: Step("Hand the message to the user", [
        f"Print the final message from {MESSAGE_FILE} in a code block. Below it, list any "
        "review findings still open (non-blocking ones, or ones the user accepted).",
        f"Give the user the command that commits with it: git commit -F {MESSAGE_FILE}",
        format_forbidden(["Do not run the commit unless the user asked you to commit."]),
        format_expected_output(["the final message, in a code block",
                                "the git commit -F command that uses it"]),
    ], TerminalRouting()),
}


@skill(name="commit-message", total_steps=4,
       description="It drafts a commit message for the staged change, has it reviewed, and "
                   "hands it to the user.")
def commit_message() -> None:
    """The steps are the module's STEPS."""


if __name__ == "__main__":
    sys.exit(commit_message.main())
