#!/usr/bin/env python3
"""Writing style: write a text in an author's voice, from their own samples.

collect samples (script-counted; too few -> ask the user, never invent them) -> list the facts
the text must state (missing ones -> ask the user, never invent them) -> write a style profile
with quoted evidence -> a script check of its shape and of every quote against the samples -> a
self-check that each item is specific (bounded) -> draft -> a script check that it copies no
sample -> a review loop in which a fresh reviewer checks the draft against the profile item by
item and against the brief and facts, its report file deciding the gate -> the final text.
"""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from collections.abc import Callable
from importlib import import_module

from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
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

# The skill's folder name has a hyphen, so its helpers are imported by their dotted name.
_profile = import_module("skills.writing-style.scripts._profile")
_files = import_module("skills.writing-style.scripts._files")
_drafting = import_module("skills.writing-style.scripts._drafting")
brief, profile_file, draft_file, report_file, pasted_dir, found, ended, ENOUGH = (
    _files.brief, _files.profile_file, _files.draft_file, _files.report_file, _files.pasted_dir,
    _files.found, _files.ended, _files.ENOUGH)

FORMAT = Resource("profile-format", "resources/profile-format.md",
                  "The profile's sections, item and evidence rules, with an example.")
ASKS = 3  # rounds of asking the user for more samples
FIXES = 3  # profile checks failed in a row before the run stops
SHARPEN = 2  # self-checks of the profile's items, the first included


def profile_problems(ctx: StepContext) -> tuple[int, list[str]]:
    return _profile.check_profile(profile_file(ctx), found(ctx).samples)


def listed(problems: list[str]) -> str:
    shown = problems[:_profile.SHOWN]
    more = len(problems) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


@decides("enough", "short", "none")
def _count(ctx: StepContext) -> str:
    return found(ctx).verdict


def _counted(ctx: StepContext) -> str:
    got = found(ctx)
    if got.verdict == "none":
        detail = f" {ended(got.listing())}" if got.unmatched or got.skipped else ""
        return f"No usable sample yet.{detail} A profile needs {ENOUGH}."
    said = f"Found {got.counted()}: {ended(got.listing())}"
    if got.verdict == "short":
        return f"{said} A profile needs {ENOUGH}: {got.missing()} would do."
    return f"{said} Enough to profile the style."


def _prepare_count(ctx: StepContext, outcome: str) -> None:
    """For simulation: samples that count as enough, short or none."""
    world = import_module("skills.writing-style.scripts._world")
    world.write_samples(_files.samples_folder(ctx), {"enough": 3, "short": 1, "none": 0}[outcome])


def _prepare_check(ctx: StepContext, outcome: str) -> None:
    """For simulation: the samples, and a profile that passes or fails its check."""
    world = import_module("skills.writing-style.scripts._world")
    world.write_samples(_files.samples_folder(ctx), 3)
    world.write_profile(profile_file(ctx), outcome == "valid")


def _ask_actions() -> list[Action | str]:
    # The question prints after the actions, so they say in order what comes when.
    return [
        "First put the question below to the user and wait for their answer.",
        Action(lambda ctx: f"If they give samples, save each text they paste, exactly as "
                           f"pasted, to its own file in {pasted_dir(ctx)} (sample-1.md, "
                           "sample-2.md, ...; never reuse a name)."),
        Action("Then record the samples added in this step, not the ones already found (the "
               "script keeps those): one path or glob per line, the files you saved included.",
               out="SAMPLES")]


def _asked(outcome: str) -> Arg:
    return Arg("SAMPLES", "the samples added in this step, not the ones already found: one "
                          "path or glob per line", outcomes=(outcome,))


NOT_YOURS = ("Do not write, paraphrase or complete a sample yourself: only the user's own "
             "texts are samples.")

collect = StepDef(
    "collect", "Collect the writing samples", handler=_count, actions=[Action(_counted)],
    next={"enough": "facts", "short": "ask-more", "none": "ask-samples"},
    prepare=_prepare_count)

ask_samples = StepDef(
    "ask-samples", "Ask the user for samples", actions=_ask_actions(),
    ask_user=AskUser(f"To match the voice I need samples of it: {ENOUGH}. Which files or "
                     "folders hold them (paths or globs), or will you paste the texts here?", {
                         "provide": "Here are samples (paths, globs or pasted texts)",
                         "abort": "Stop: I have no samples to give"}),
    args=[_asked("provide")], forbidden=["Do not answer for the user.", NOT_YOURS],
    next={"provide": Rework("collect", ASKS, "stopped"), "abort": "stopped"})

ask_more = StepDef(
    "ask-more", "Ask the user for more samples", actions=_ask_actions(),
    ask_user=AskUser(lambda ctx: (
        f"I found {found(ctx).counted()}; a reliable profile needs {ENOUGH} "
        f"({found(ctx).missing()}). Add more, go on with these, or stop?"), {
            "more": "Add more samples (paths, globs or pasted texts)",
            "proceed": "Go on with these; the profile will rest on less evidence",
            "abort": "Stop here"}),
    args=[_asked("more")], forbidden=["Do not answer for the user.", NOT_YOURS],
    next={"more": Rework("collect", ASKS, "stopped"), "proceed": "facts", "abort": "stopped"})


def fixing(ctx: StepContext) -> str:
    """Which pass of the profile step this is: 'check' after a failed check (the profile still
    fails it), 'vague' after the self-check found vague items, '' the first time, even when a
    profile from an earlier run is there."""
    if profile_problems(ctx)[1] and ctx.passes("check-profile:invalid"):
        return "check"
    if _files.noted(ctx.values.get("VAGUE", "")) and ctx.passes("sharpen:vague"):
        return "vague"
    return ""


def _fix(ctx: StepContext) -> str:
    where, mode = profile_file(ctx), fixing(ctx)
    if mode == "check":
        return (f"Edit the profile at {where}: fix only what its check found "
                f"({listed(profile_problems(ctx)[1])}), and keep every item that passes as it "
                "is. The profile format above says what each part must meet.")
    if mode == "vague":
        return (f"Edit the profile at {where}: only the items VAGUE lists. "
                "Make each one specific (a number, a named construction, the words themselves), "
                "with an exact quote; reread the samples where you need a new quote: "
                f"{found(ctx).paths()}. Leave every other item as it is.")
    return ""


def _first(text: Callable[[StepContext], str]) -> Action:
    """An action of the first pass only: a fix pass edits, it does not start over."""
    return Action(lambda ctx: "" if fixing(ctx) else text(ctx))


profile = StepDef(
    "profile", "Write the style profile", resources=[FORMAT], optional_reads=("VAGUE",),
    actions=[
        Action(_fix),
        _first(lambda ctx: f"Read every sample in full: {found(ctx).paths()}."),
        _first(lambda ctx: _files.thin(ctx) and (
            f"{_files.thin(ctx)} Say so in the note before the first section, and favour "
            "habits that more than one passage shows.")),
        _first(lambda ctx: f"Write the profile to {profile_file(ctx)} in the profile format: "
                           "its six sections in order; each item one habit of this author, "
                           "specific enough to check a paragraph against, with a short quote "
                           "copied exactly from the sample it names. Favour habits that bear on "
                           f"the text to come (\"{brief(ctx)}\").")],
    forbidden=["Do not invent, shorten or tidy a quote: copy it character for character.",
               "Do not describe good writing in general: describe this author.",
               "Do not start the draft yet."],
    next={"ok": "check-profile"})


@decides("valid", "invalid")
def _check(ctx: StepContext) -> str:
    return "invalid" if profile_problems(ctx)[1] else "valid"


def _checked(ctx: StepContext) -> str:
    items, problems = profile_problems(ctx)
    if problems:
        return f"The profile at {profile_file(ctx)} fails its check: {ended(listed(problems))}"
    return (f"The profile at {profile_file(ctx)} passed its check: {items} items in the six "
            "sections, every quote found in the sample it names, every absent string absent.")


check_profile = StepDef(
    "check-profile", "Check the profile's evidence", handler=_check, actions=[Action(_checked)],
    next={"valid": "sharpen", "invalid": Rework("profile", FIXES, "profile-invalid")},
    prepare=_prepare_check)


def _last_check(ctx: StepContext) -> bool:
    return ctx.passes("sharpen:vague") + 1 >= SHARPEN


def _after(ctx: StepContext) -> str:
    if _last_check(ctx):
        return ("This is the last of these checks: vague items are not sent back again. List "
                "each item still vague by section and number (Voice 2), with what would make it "
                "specific; the draft and the reviewer get them as known weak items. If none is, "
                "record none.")
    return ("List each vague item by section and number (Voice 2), with what would make it "
            "specific; the next step has you edit exactly those, then the script checks the "
            "profile again. If none is vague, record none.")


sharpen = StepDef(
    "sharpen", "Check each item is specific", actions=[
        Action(lambda ctx: f"Read the profile at {profile_file(ctx)} one item at a time and "
                           "ask of each: would it be as true of most competent writers of this "
                           "kind of text (clear, concise, varied sentences, engaging)? Could a "
                           "reviewer tell from the item alone, yes or no, whether a paragraph "
                           "keeps it? An item that is generic, or that a reviewer could not "
                           "apply, is vague."),
        Action(_after, out="VAGUE")],
    args=[Arg("VAGUE", "each vague item: section and number, what would make it specific; "
                       "or none")],
    when={"vague": "at least one item is vague", "sharp": "no item is vague"},
    forbidden=["Do not edit the profile in this step: edits go through the script check."],
    next={"vague": Rework("profile", SHARPEN, "draft"), "sharp": "draft"})

deliver = StepDef(
    "deliver", "Deliver the text", actions=[Action(lambda ctx: (
        f"Reply with the final text exactly as it stands in {draft_file(ctx)}, unchanged. Below "
        f"it, one line naming that file and the profile ({profile_file(ctx)}); then, one line "
        f"each, any findings still open in the report at {report_file(ctx)} and any [TODO: ...] "
        "the text still holds."), out="reply")],
    forbidden=["Do not edit the text now: the user gets the text as it was last reviewed."],
    next={"ok": None}, complete="The text is written. Give the user your reply.")

stopped = StepDef(
    "stopped", "Stop: too few samples", actions=[Action(lambda ctx: (
        f"Tell the user that no profile or text was written: the samples came to "
        f"{found(ctx).counted()}, and a profile needs {ENOUGH}."
        + (f" The texts they pasted stay in {pasted_dir(ctx)}." if os.path.isdir(pasted_dir(ctx))
           else "")), out="reply")],
    next={"ok": None}, complete="The run stopped. Give the user your message.")

profile_invalid = StepDef(
    "profile-invalid", "Stop: the profile fails its check", actions=[Action(lambda ctx: (
        f"Tell the user the run stopped because the profile at {profile_file(ctx)} still fails "
        f"its check after {FIXES} fixes, and list the problems: "
        f"{ended(listed(profile_problems(ctx)[1]))}"), out="reply")],
    next={"ok": None}, complete="The run stopped. Give the user your message.")

WORKFLOW = register_workflow(Workflow(
    "writing-style", description="It writes a text in an author's voice: samples, the facts, a "
                                 "style profile with quoted evidence, a draft checked for "
                                 "copying, and a review loop.",
    params=[Param("brief", "what to write: the piece, its audience and purpose, length, the "
                           "points to cover, and the facts it must state when known",
                  required=True),
            Param("samples", "the author's writing samples: paths, globs or folders, separated "
                             "by spaces; or ask, to have the user asked", default="ask"),
            Param("profile", "the style profile file to write", default="style-profile.md"),
            Param("draft", "the file the text is written to; the review report goes beside it, "
                           "as NAME-review.json", default="draft.md")],
    steps=[collect, ask_samples, ask_more, _drafting.facts, _drafting.ask_facts, profile,
           check_profile, sharpen,
           *qr_loop("draft", work=_drafting.draft, check=_drafting.check_draft,
                    review=_drafting.review_draft, on_pass="deliver", limit=3,
                    report=report_file),
           _drafting.ask_copies, deliver, stopped, profile_invalid, _drafting.copy_stopped]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
