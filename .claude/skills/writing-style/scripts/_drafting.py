"""The writing-style steps from the brief's facts to the draft's review: the facts the text must
state (asked of the user when the brief lacks them, never invented), the draft, a script check
that it copies no sample, and the reviewer sub-agent.

They live in a module rather than in writing-style.py because Python compiles a script run as
`__main__` on every step and caches an imported module's bytecode: joined into the script they
cost every step 3% more instructions (benchmarks/step_cost.py --instructions)."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import re
from importlib import import_module

from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Dispatch,
    Rework,
    StepContext,
    StepDef,
    decides,
    value_of,
)
from skills.lib.workflow.authoring.qr import review_pass

_files = import_module("skills.writing-style.scripts._files")
_copies = import_module("skills.writing-style.scripts._copies")
brief, draft_file, profile_file, found, ended = (
    _files.brief, _files.draft_file, _files.profile_file, _files.found, _files.ended)
COPY_FIXES = 3  # copy checks failed in a row before the user is asked
SHOWN = 6  # copied passages listed in a step; the rest are counted

facts = StepDef(
    "facts", "List the facts the text must state", actions=[
        Action(lambda ctx: ("" if ctx.params_shown else f"The brief: {ended(brief(ctx))} ")
               + "List every fact the text must state to do its job. For a release post: the "
                 "version, what changed, dates, links, what readers must do; for an email: who, "
                 "what, when, what is asked. Give each the value the brief gives, or `missing`; "
                 "when a file the user named holds a likely value, write `missing (FILE says: "
                 "...)` for the user to confirm."),
        Action("Record the list, one fact a line: what it is, then its value or missing.",
               out="FACTS")],
    args=[Arg("FACTS", "the facts the text must state, one a line: what, then its value from "
                       "the brief, or missing")],
    when={"given": "the brief gives every fact on the list",
          "thin": "at least one fact is missing"},
    forbidden=["Do not fill a missing fact from memory, the samples or a guess: only the user "
               "gives it."],
    next={"given": "profile", "thin": "ask-facts"})


#: The mark a fact's line ends with when its value is not known: 'release date: missing'.
MISSING = re.compile(r"\s*(?:[:=\u2013\u2014]|\s-)?\s*\bmissing\b", re.IGNORECASE)


def _missing(ctx: StepContext) -> str:
    """The facts marked missing (or, if the agent marked none so, the whole list), numbered,
    one a line, without the mark: the user reads what is needed, not the bookkeeping."""
    lines = [line.strip(" -*\t") for line in ctx.values.get("FACTS", "").splitlines()]
    lines = [line for line in lines if line]
    open_ = [line for line in lines if "missing" in line.lower()] or lines
    named = [" ".join(MISSING.sub(" ", line, count=1).split()) or line for line in open_]
    return "\n".join(f"{n}. {fact}" for n, fact in enumerate(named, 1))


ask_facts = StepDef(
    "ask-facts", "Ask the user for the missing facts", reads=("FACTS",), actions=[
        Action("After the user answers, record the whole list again with their values in "
               "place, one fact a line; a fact they leave open stays missing.", out="FACTS")],
    ask_user=AskUser(lambda ctx: (
        f"Before I write, I need these facts, which the brief does not give:\n{_missing(ctx)}\n"
        "What are they? Whatever you leave open is marked [TODO: ...] in the text, never "
        "guessed."), {
            "answer": "Here are the facts (any left open stay [TODO])",
            "skip": "Write without them: mark each one [TODO: ...]"}),
    args=[Arg("FACTS", "the facts, one a line: what, then the user's value, or missing",
              outcomes=("answer",))],
    forbidden=["Do not answer for the user."],
    next={"answer": "profile", "skip": "profile"})


def copies(ctx: StepContext) -> list[str]:
    """What the copy check finds wrong with the draft: no draft, or each copied passage."""
    try:
        with open(draft_file(ctx), encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return [f"there is no readable draft at {draft_file(ctx)}: write it"]
    if not text.strip():
        return [f"the draft at {draft_file(ctx)} is empty: write it"]
    return [str(c) for c in _copies.find_copies(text, found(ctx).samples)]


def listed(problems: list[str]) -> str:
    more = len(problems) - SHOWN
    return "; ".join(problems[:SHOWN]) + (f"; and {more} more" if more > 0 else "")


def _weak(ctx: StepContext) -> str:
    weak = _files.noted(ctx.values.get("VAGUE", ""))
    return (f"These profile items stayed vague after their fix: {ended(weak)} Follow them as "
            "far as they can be followed; the reviewer is told they are weak.") if weak else ""


def _copy_problems(ctx: StepContext) -> list[str]:
    """The copy check's findings when the draft step was sent back by it, else none."""
    return copies(ctx) if ctx.passes("check-draft:invalid") else []


def _fixing(ctx: StepContext) -> bool:
    """Whether this pass of the draft step fixes findings (a review's or the copy check's)
    rather than writing the text."""
    return (ctx.step.qr is not None and review_pass(ctx) > 1) or bool(_copy_problems(ctx))


def _reread(ctx: StepContext) -> str:
    if _fixing(ctx):  # a fix pass changes nothing else: it only keeps the profile intact
        return "Then check that your fixes break no profile item, the Never does section first."
    return ("Then reread the draft against every profile item, the Never does section first, "
            "and fix what breaks one.")


def _copy_fix(ctx: StepContext) -> str:
    problems = _copy_problems(ctx)
    return (f"The copy check found in {draft_file(ctx)}: {ended(listed(problems))} Rewrite each "
            "copied passage as a new sentence in the same manner, and change nothing else; the "
            "instructions below say what the text must meet.") if problems else ""


draft = StepDef(
    "draft", "Write the draft", reads=("FACTS",), actions=[
        Action(_copy_fix),
        Action(lambda ctx: f"The brief: {ended(brief(ctx))} Note what it asks for: audience, "
                           "purpose, length, the points to cover; where it is silent, follow "
                           "the author's habits in the profile."),
        Action(_weak),
        Action(lambda ctx: f"Read the profile at {profile_file(ctx)} in full, then write the "
                           f"text into {draft_file(ctx)}: the text alone, with no notes about "
                           "it. State only facts that the brief, FACTS or common "
                           "knowledge give. For any other fact the text needs (a feature, an "
                           "event, a reason, a result, a plan, a date, a name, a number), and "
                           "for one FACTS marks missing, write [TODO: what is needed]. An offer, a "
                           "promise, an anecdote or news that a profile habit calls for is such a "
                           "fact too: give it a [TODO: ...], or a form that states no new fact."),
        Action(_reread)],
    forbidden=["Do not copy from the samples or the profile's quotes: write new sentences in "
               "the same manner. A script checks the draft for any sentence of "
               f"{_copies.SENTENCE_WORDS} or more words, or any run of {_copies.RUN_WORDS} "
               "words, found in a sample.",
               "Do not invent a fact to fill a gap: a [TODO] is the honest gap.",
               "Do not change the profile."])


@decides("valid", "invalid")
def _check(ctx: StepContext) -> str:
    return "invalid" if copies(ctx) else "valid"


def _checked(ctx: StepContext) -> str:
    problems = copies(ctx)
    if problems:
        return f"The draft fails the copy check: {ended(listed(problems))}"
    return ("The draft passed the copy check: no passage of it is found word for word in a "
            "sample.")


def _prepare_check(ctx: StepContext, outcome: str) -> None:
    """For simulation: the samples, and a draft that copies one of them or not."""
    world = import_module("skills.writing-style.scripts._world")
    world.write_samples(_files.samples_folder(ctx), 3)
    world.write_draft(draft_file(ctx), outcome == "invalid")


check_draft = StepDef(
    "check-draft", "Check the draft copies no sample", handler=_check,
    actions=[Action(_checked)], prepare=_prepare_check,
    next={"valid": "review-draft", "invalid": Rework("draft", COPY_FIXES, "ask-copies")})

# The rewrites are used up: only the user can say a passage is a set phrase of theirs. Kept
# passages go to review as they are; the reviewer does not read the samples.
ask_copies = StepDef(
    "ask-copies", "Ask the user about passages copied from the samples",
    ask_user=AskUser(lambda ctx: (
        f"After {COPY_FIXES} rewrites the draft still repeats these passages of your samples "
        f"word for word: {ended(listed(copies(ctx)))} Keep them (they are set phrases of "
        "yours), or stop here?"), {
            "keep": "Keep them: they are phrases I use",
            "abort": "Stop here"}),
    forbidden=["Do not answer for the user.", "Do not edit the draft while you wait."],
    next={"keep": "review-draft", "abort": "copy-stopped"})

copy_stopped = StepDef(
    "copy-stopped", "Stop: the draft repeats the samples", actions=[Action(lambda ctx: (
        f"Tell the user the run stopped at their word: the draft at {draft_file(ctx)} still "
        f"repeats passages of the samples ({listed(copies(ctx))}). The draft and the profile "
        f"({profile_file(ctx)}) stay as they are."), out="reply")],
    next={"ok": None}, complete="The run stopped. Give the user your message.")


review_draft = StepDef(
    "review-draft", "Review the draft against the profile", dispatch=Dispatch(
        "quality-reviewer", "Review the draft at DRAFT_FILE as a fresh reader against the style "
        "profile at PROFILE_FILE, item by item, and against BRIEF and FACTS; EVIDENCE says how "
        "much the profile rests on. Judge afresh, but the report keeps its history: every "
        "finding raised so far, earlier ones with their ids and severities, `resolved` once the "
        "draft no longer has them.",
        "one line: the path of the report you wrote", script="scripts/qr/draft-review.py",
        vars={"BRIEF": brief, "FACTS": value_of("FACTS"), "PROFILE_FILE": profile_file,
              "DRAFT_FILE": draft_file, "EVIDENCE": lambda ctx: _files.thin(ctx) or (
                  f"enough: {found(ctx).counted()}"),
              "WEAK_ITEMS": lambda ctx: _files.noted(ctx.values.get("VAGUE", "")) or "none"}),
    forbidden=["Do not edit the report."])
