"""Where a writing-style run's files are, and which samples it has: the paths every step names,
absolute so that the agent and its reviewer name the same file whatever their folder."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from importlib import import_module
from typing import Any

from skills.lib.workflow import StepContext

# The skill's folder name has a hyphen, so its helpers are imported by their dotted name.
_samples = import_module("skills.writing-style.scripts._samples")

ENOUGH = (f"{_samples.MIN_SAMPLES} samples of the author's own writing, of any length, or fewer "
          f"that together hold at least {_samples.MIN_WORDS:,} words")


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
    """The samples given at the start plus those added since (SAMPLES), never the run's own
    files."""
    named = ctx.params["samples"] + "\n" + ctx.values.get("SAMPLES", "")
    return _samples.find_samples(named, exclude=(profile_file(ctx), draft_file(ctx),
                                                 report_file(ctx)))


def samples_folder(ctx: StepContext) -> str:
    """For simulation: the folder the samples value names (the pasted-texts folder for 'ask')."""
    return next(iter(_samples.patterns(ctx.params["samples"])), None) or pasted_dir(ctx)


def noted(value: str) -> str:
    """A recorded value that may be 'none' (or empty): '' then, else the value."""
    return "" if value.strip().lower().rstrip(".") in ("", "none") else value.strip()
