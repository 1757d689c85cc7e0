"""problem-analysis's shared texts: its resources, the hypothesis ledger's line format, and the
texts that depend on where the run stands (the investigation loop's last pass, and how sure the
root cause may be called)."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from skills.lib.workflow import Resource, StepContext

CAUSE_CATEGORIES = Resource(
    "cause-categories", "resources/cause-categories.md",
    "The kinds of cause most often overlooked; read it first.")
TECHNIQUES = Resource(
    "investigation-techniques", "resources/investigation-techniques.md",
    "How to run a check; read it when unsure, or after a pass that found nothing.")

CONFIDENCE_ARG = "confidence in the best-supported hypothesis"
#: One ledger format for every step that writes hypotheses, so entries can be compared.
LEDGER_LINE = "'H1 [open|supported|refuted] mechanism -- evidence, or what would tell it apart'"

#: Passes through the investigate step before the user is asked how to go on.
MAX_PASSES = 4


def last_pass(ctx: StepContext) -> bool:
    """Whether this investigate pass is the last one the loop allows."""
    return ctx.passes("investigate:iterate") + 1 >= MAX_PASSES


def next_focus(ctx: StepContext) -> str:
    if last_pass(ctx):
        return ("This is the last pass. Unless confidence is high, name the check you would run "
                "next if allowed, and what it needs (access, data, time): the user will be "
                "asked whether to allow it.")
    return ("Unless confidence is high, choose the most informative next check: what it needs, "
            "what each open hypothesis predicts.")


def cause_status(ctx: StepContext) -> str:
    """Confirmed only when the evidence ended at high confidence (recorded in run memory)."""
    if ctx.values.get("CONFIDENCE") == "high":
        return "The investigation ended with high confidence: call the cause confirmed."
    return ("The investigation ended without high confidence: call the cause probable "
            "everywhere, and say what would confirm it.")
