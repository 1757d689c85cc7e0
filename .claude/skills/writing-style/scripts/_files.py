"""Where a writing-style run's files are, and which samples it has: the paths every step names,
absolute so that the agent and its reviewer name the same file whatever their folder."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import re
from importlib import import_module
from typing import Any

from skills.lib.workflow import StepContext

# The skill's folder name has a hyphen, so its helpers are imported by their dotted name.
_samples = import_module("skills.writing-style.scripts._samples")

ENOUGH = (f"{_samples.MIN_SAMPLES} samples of the author's own writing holding at least "
          f"{_samples.MIN_SHARED:,} words in all, or fewer that together hold at least "
          f"{_samples.MIN_WORDS:,} words")
_ENDED = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\Z")


def brief(ctx: StepContext) -> str:
    return ctx.params["brief"]


def profile_file(ctx: StepContext) -> str:
    return os.path.abspath(ctx.params["profile"])


def draft_file(ctx: StepContext) -> str:
    return os.path.abspath(ctx.params["draft"])


def report_file(ctx: StepContext) -> str:
    return os.path.splitext(draft_file(ctx))[0] + "-review.json"


def pasted_dir(ctx: StepContext) -> str:
    """Where texts the user pastes are saved, one file each, beside the profile."""
    return os.path.join(os.path.dirname(profile_file(ctx)), "style-samples")


def found(ctx: StepContext) -> Any:  # a _samples.Found
    """The samples given at the start plus those added since, never the run's own files."""
    named = ctx.params["samples"] + "\n" + added(ctx)
    return _samples.find_samples(named, exclude=(profile_file(ctx), draft_file(ctx),
                                                 report_file(ctx)))


def added(ctx: StepContext) -> str:
    """Every SAMPLES value the run recorded, one per line: each ask step records only the
    samples it added, and a step sees only the latest value of a key."""
    from skills.lib.workflow.ledger.memory import written

    return "\n".join(written(ctx, "SAMPLES"))


def thin(ctx: StepContext) -> str:
    """A one-line note when the user chose to go on with too few samples, else ''."""
    got = found(ctx)
    if got.verdict != "short":
        return ""
    return (f"Thin evidence: the samples come to {got.counted()}, short of {ENOUGH}; the user "
            "chose to go on with them.")


def ended(text: str) -> str:
    """`text` closed by a full stop, unless it already ends in one (or in ? or !): a value
    set into a sentence must not end it twice."""
    text = text.rstrip()
    return text if _ENDED.search(text) else f"{text}."


def samples_folder(ctx: StepContext) -> str:
    """For simulation: the folder the samples value names (the pasted-texts folder for 'ask')."""
    return next(iter(_samples.patterns(ctx.params["samples"])), None) or pasted_dir(ctx)


def noted(value: str) -> str:
    """A recorded value that may be 'none' (or empty): '' then, else the value."""
    return "" if value.strip().lower().rstrip(".") in ("", "none") else value.strip()
