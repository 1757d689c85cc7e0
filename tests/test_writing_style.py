"""The writing-style skill end to end, the way an agent runs it: real subprocesses in a scratch
folder, following only the printed commands. The test plays the agent, the user (more samples
over two rounds, one of them pasted; the facts a thin brief lacks) and the reviewer sub-agent: a
profile with a misquoted sample that the check sends back, a draft that copies a sample and one
that breaks a never-does item, a failing review, one fix pass, and the final text."""

from __future__ import annotations

import json
import shlex
import sys
import xml.etree.ElementTree as ET
from importlib import import_module
from pathlib import Path
from types import SimpleNamespace

import pytest
from skills.lib.workflow.protocol.reading import lines

from .conftest import SKILLS_ROOT
from .harness import actions, decided, listed, subagent_cmd
from .harness import banner as read_banner
from .test_planner import Agent

SCRIPT = SKILLS_ROOT / "writing-style" / "scripts" / "writing-style.py"
BRIEF = "A note of about 120 words telling users that v2 drops Python 3.8, and what to do"

OUTAGE = """I broke the release on Friday. Not the code: the tag. I pushed v1.9 from a branch that
was three commits behind, and for forty minutes pip served a wheel without the fix it was named
for.

Nobody lost data. Two of you lost an afternoon, and I am sorry for that.

What changes: tags now come from CI, never from a laptop. The script is in `tools/release.sh`.
It is short. Read it.
"""
CACHING = """Caching is cheap until it is expensive. We added a cache to `fetch` in 1.4 because
cold starts were slow. They were. They are not any more, and now we have a new problem: stale
indexes.

So 1.8 ships `--refresh`. Run it when results look old. It costs one extra request, which is
the price of being right.

Is a cache worth it for a tool you run twice a day? We think so. Tell us if you don't.
"""
PASTED = """Short version: 1.7 is out, and it is boring on purpose. We fixed the three crashes
you reported, removed nothing, and renamed nothing.

Thanks to the eleven of you who sent logs. Logs fix bugs. Opinions fix nothing.
"""

PROFILE = """# Style profile: the project's release notes

## Voice
- Speaks as "we" for the project, and as "I" only to own a personal mistake, plainly, once.
  > outage.md: "Two of you lost an afternoon, and I am sorry for that."

## Sentence shape
- Declarative sentences of 3 to 15 words; a short imperative closes a paragraph.
  > outage.md: "It is short. Read it."

## Structure
- Opens with the short version in one line; ends by inviting readers to answer back.
  > sample-1.md: "Short version: 1.7 is out, and it is boring on purpose."
  > caching.md: "Tell us if you don't."

## Vocabulary
- Money words for trade-offs: cheap, expensive, costs, price.
  > caching.md: "It costs one extra request, which is the price of being right."

## Formatting habits
- Commands, flags and file paths in backticks; no headings or lists in a note.
  > caching.md: "So 1.8 ships `--refresh`."

## Never does
- Never uses exclamation marks, even for good news.
  > absent: "!"
"""
# Long enough that the samples pass the word floor of three samples (600 words in all).
ESSAY = "\n\n".join(f"Release 1.{n} took {n + 2} days to ship. We wrote down why, in plain "
                    "words, so that the next one would take fewer." for n in range(25))
DRAFT = """Short version: v2 drops Python 3.8. If you still run it, pin `tool<2`.

Keeping 3.8 cost us a CI job on every commit and two workarounds in `compat.py`. That is
expensive for a version that gets no security fixes. So it goes!

Stuck on 3.8? Tell us why. We read every issue.
"""


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    (tmp_path / "posts").mkdir()
    (tmp_path / "posts" / "outage.md").write_text(OUTAGE)
    (tmp_path / "posts" / "caching.md").write_text(CACHING)
    (tmp_path / "posts" / "essay.md").write_text(ESSAY)
    return Agent(tmp_path)


def start(agent: Agent, samples: str) -> ET.Element:
    return agent.run([sys.executable, str(SCRIPT), "--step", "1",
                      "--brief", BRIEF, "--samples", samples])


def said(doc: ET.Element) -> str:
    """Everything the step's DO says, as one text."""
    do = doc.find("DO")
    return " ".join([x.text for x in lines(do)]
                    + ["".join(child.itertext()) for child in (do if do is not None else [])])


def review_as_subagent(agent: Agent, review: ET.Element) -> list[ET.Element]:
    """Play the reviewer: start its script as the prompt says and follow it to the end,
    recording what each step asks for. The documents it printed."""
    records = {"items": {"ITEM_CHECKS": "Voice 1: kept\nNever does 1: broken, paragraph 2"},
               "brief": {"BRIEF_CHECKS": "drops Python 3.8: kept"}}
    docs = [agent.run(shlex.split(subagent_cmd(review.find("DO/dispatch"))))]
    while docs[-1].find("NEXT/complete") is None:
        docs.append(agent.follow(docs[-1], **records.get(docs[-1].get("id", ""), {})))
    return docs


def report(path: Path, *findings: tuple[str, str, str]) -> None:
    path.write_text(json.dumps({"items": [
        {"id": f"F{n}", "severity": severity, "status": status, "location": location,
         "problem": "the draft breaks this item", "fix": "as the item says"}
        for n, (severity, status, location) in enumerate(findings, 1)]}))


def to_profile(agent: Agent, facts: str = "FACTS") -> ET.Element:
    """From the start (four samples given, enough) to the profile step, the facts given."""
    (agent.repo / "posts" / "notes.md").write_text(PASTED)
    doc = start(agent, "posts/")
    assert doc.get("id") == "facts" and decided(doc) == [("collect", "enough")]
    return agent.follow(doc, "given", FACTS=facts)


def to_draft(agent: Agent) -> ET.Element:
    """From the start to the draft step, through a valid profile no item of which is vague."""
    (agent.repo / "style-profile.md").write_text(PROFILE.replace("sample-1.md", "notes.md"))
    sharpen = agent.follow(to_profile(agent, "version: v2\ndrops: Python 3.8"))
    assert decided(sharpen) == [("check-profile", "valid")]
    return agent.follow(sharpen, "sharp", VAGUE="none")


def test_a_text_is_written_in_the_authors_voice_through_one_failed_review(
        agent: Agent) -> None:
    folder = agent.repo
    ask = start(agent, "posts/outage.md")  # one sample is too few: the script asks for more
    assert ask.get("id") == "ask-more" and decided(ask) == [("collect", "short")]
    question = ask.findtext("DO/ask_user/question", "")
    assert "I found 1 sample, 73 words" in question and "2 more samples" in question
    assert [o.get("outcome") for o in ask.iterfind("DO/ask_user/option")] == [
        "more", "proceed", "abort"]
    assert "only the user's own texts are samples" in said(ask)
    texts = [a.text or '' for a in actions(ask)]
    assert texts[0].startswith("First put the question below to the user")
    assert "the samples added in this step, not the ones already found" in texts[2]

    # The user names one more file and pastes a text, which the agent saves as it was pasted.
    (folder / "style-samples").mkdir()
    (folder / "style-samples" / "sample-1.md").write_text(PASTED)
    ask = agent.follow(ask, "more", SAMPLES="posts/caching.md\nstyle-samples/sample-1.md")
    assert ask.get("id") == "ask-more" and decided(ask) == [("collect", "short")]
    question = ask.findtext("DO/ask_user/question", "")
    assert "I found 3 samples, 190 words" in question
    # Three short samples are not enough: the floor of 600 words holds.
    assert "410 more words, in more samples or longer ones" in question

    # The second answer records only what it adds; the first answer's samples still count.
    facts = agent.follow(ask, "more", SAMPLES="posts/essay.md")
    assert facts.get("id") == "facts" and decided(facts) == [("collect", "enough")]
    assert BRIEF in said(facts)
    profile = agent.follow(facts, "given", FACTS="version: v2\ndrops: Python 3.8\n"
                                                 "what to do: pin tool<2")
    assert profile.get("id") == "profile"
    assert listed(profile, "resource", "profile-format") is not None
    assert str(folder / "style-samples" / "sample-1.md") in said(profile)
    assert str(folder / "posts" / "caching.md") in said(profile)

    # A quote tidied from memory is not in the sample: the check names its line to the fix.
    (folder / "style-profile.md").write_text(PROFILE.replace(
        "and I am sorry for that", "and I'm sorry"))
    profile = agent.follow(profile)
    assert profile.get("id") == "profile" and decided(profile) == [("check-profile", "invalid")]
    assert ("fix only what its check found (line 5 (Voice 1): the quote is not in "
            + str(folder / "posts" / "outage.md")
            + ': where the quote has "and I\'m sorry.", the sample has "and I am sorry"'
            ) in said(profile)
    assert "Write the profile to" not in said(profile) and "Read every sample" not in said(profile)

    (folder / "style-profile.md").write_text(PROFILE)
    sharpen = agent.follow(profile)
    assert sharpen.get("id") == "sharpen" and decided(sharpen) == [("check-profile", "valid")]
    draft = agent.follow(sharpen, "sharp", VAGUE="none")
    assert draft.get("id") == "draft" and BRIEF in said(draft)
    assert str(folder / "draft.md") in said(draft)
    assert draft.findtext("memory/FACTS", "").startswith("version: v2")
    assert "a feature, an event, a reason, a result, a plan" in said(draft)
    assert "An offer, a promise, an anecdote or news that a profile habit calls for" in said(draft)
    assert "stayed vague" not in said(draft)
    assert "reread the draft against every profile item" in said(draft)

    # A sentence lifted from a sample (rewrapped, its comma dropped) goes back to the draft.
    (folder / "draft.md").write_text(DRAFT + "\nCaching is cheap\nuntil it is expensive\n")
    draft = agent.follow(draft)
    assert draft.get("id") == "draft" and decided(draft) == [("check-draft", "invalid")]
    assert (f"The copy check found in {folder / 'draft.md'}: \"Caching is cheap\nuntil it is "
            'expensive" (7 words, from caching.md)') in said(draft)
    assert "Rewrite each copied passage" in said(draft)
    assert "check that your fixes break no profile item" in said(draft)
    assert "reread the draft against every profile item" not in said(draft)

    (folder / "draft.md").write_text(DRAFT)
    review = agent.follow(draft)
    prompt = review.findtext("DO/dispatch/prompt", "")
    assert review.get("id") == "review-draft" and decided(review) == [("check-draft", "valid")]
    assert f"PROFILE_FILE: {folder / 'style-profile.md'}" in prompt
    assert str(folder / "draft-review.json") in prompt
    assert "FACTS: version: v2" in prompt and "WEAK_ITEMS: none" in prompt
    assert "EVIDENCE: enough: 4 samples" in prompt
    assert "every finding raised so far" in prompt
    reviewer = review_as_subagent(agent, review)
    assert [d.get("id") for d in reviewer] == ["read", "items", "brief", "report"]
    assert listed(reviewer[0], "resource", "review-checklist") is not None
    assert reviewer[-1].findtext("memory/ITEM_CHECKS", "").startswith("Voice 1")
    assert "keeps its id and severity, with status resolved" in said(reviewer[-1])

    report(folder / "draft-review.json", ("MUST", "open", "Never does 1; paragraph 2"),
           ("COULD", "open", "Vocabulary 1; paragraph 2"))
    fix = agent.follow(review)
    assert fix.get("id") == "draft" and read_banner(fix.find("banner")).mode == "fix"
    assert decided(fix) == [("draft-gate", "fail")]
    assert ("This is a fix pass: fix the blocking findings of the last review (in the report "
            f"at {folder / 'draft-review.json'})") in said(fix)
    assert "check that your fixes break no profile item" in said(fix)
    assert "reread the draft against every profile item" not in said(fix)

    (folder / "draft.md").write_text(DRAFT.replace("So it goes!", "So it goes."))
    review = agent.follow(fix)
    assert read_banner(review.find("banner")).n == 2
    assert decided(review) == [("check-draft", "valid")]
    report(folder / "draft-review.json", ("MUST", "resolved", "Never does 1; paragraph 2"),
           ("COULD", "open", "Vocabulary 1; paragraph 2"))
    done = agent.follow(review)
    assert done.get("id") == "deliver" and done.find("NEXT/complete") is not None
    assert decided(done) == [("draft-gate", "pass")]
    assert f"exactly as it stands in {folder / 'draft.md'}" in said(done)

    sizes = agent.sizes()  # the machine's paths counted as short names: any checkout's size
    print(f"writing-style happy path: {len(sizes)} documents, {sum(sizes)} characters, "
          f"largest {max(sizes)}")
    assert max(sizes) < 4000


def test_without_samples_the_user_is_asked_and_can_stop(agent: Agent) -> None:
    ask = start(agent, "ask")
    assert ask.get("id") == "ask-samples" and decided(ask) == [("collect", "none")]
    assert ("3 samples of the author's own writing holding at least 600 words in all, or fewer "
            "that together hold at least 1,500 words") in ask.findtext("DO/ask_user/question", "")
    stop = agent.follow(ask, "abort")
    assert stop.get("id") == "stopped" and stop.find("NEXT/complete") is not None
    assert "no profile or text was written" in said(stop) and "0 samples" in said(stop)


def test_the_runs_own_files_never_count_as_samples(agent: Agent) -> None:
    """A glob that matches the profile and the draft leaves them out: a profile must not
    quote itself as evidence."""
    for name in ("style-profile.md", "draft.md", "notes.md"):
        (agent.repo / "posts" / name).write_text("words " * 10)
    facts = agent.run([sys.executable, str(SCRIPT), "--step", "1",
                       "--brief", BRIEF, "--samples", "posts/*.md",
                       "--profile", "posts/style-profile.md", "--draft", "posts/draft.md"])
    assert decided(facts) == [("collect", "enough")]
    profile = agent.follow(facts, "given", FACTS="version: v2")
    samples = next(a.text or "" for a in actions(profile)
                   if (a.text or "").startswith("Read every sample in full: "))
    assert all(name in samples for name in ("outage.md", "caching.md", "essay.md", "notes.md"))
    assert "style-profile.md" not in samples and "draft.md" not in samples


def test_a_thin_brief_has_the_user_give_the_facts(agent: Agent) -> None:
    (agent.repo / "posts" / "notes.md").write_text(PASTED)
    facts = start(agent, "posts/")
    assert facts.get("id") == "facts" and decided(facts) == [("collect", "enough")]
    assert "only the user gives it" in said(facts)
    ask = agent.follow(facts, "thin", FACTS="version: v2\nrelease date: missing\n"
                                            "what changed: missing (notes.md says: 3.8 dropped)")
    assert ask.get("id") == "ask-facts"
    question = ask.findtext("DO/ask_user/question", "")
    # The open facts as a numbered list, without the bookkeeping mark, then the question.
    assert ("which the brief does not give:\n1. release date\n"
            "2. what changed (notes.md says: 3.8 dropped)\nWhat are they?") in question
    assert "never guessed" in question
    assert [o.get("outcome") for o in ask.iterfind("DO/ask_user/option")] == ["answer", "skip"]
    profile = agent.follow(ask, "answer", FACTS="version: v2\nrelease date: 3 March\n"
                                                "what changed: drops Python 3.8")
    assert profile.get("id") == "profile"
    # Left open, the facts stay missing and the draft is told to mark them, never to fill them.
    ask = agent.follow(start(agent, "posts/"), "thin", FACTS="release date: missing")
    assert agent.follow(ask, "skip").get("id") == "profile"


def test_vague_items_are_edited_then_carried_to_the_draft_and_the_reviewer(
        agent: Agent) -> None:
    folder = agent.repo
    (folder / "style-profile.md").write_text(PROFILE.replace("sample-1.md", "notes.md"))
    sharpen = agent.follow(to_profile(agent))
    assert sharpen.get("id") == "sharpen" and decided(sharpen) == [("check-profile", "valid")]
    assert "the next step has you edit exactly those" in said(sharpen)

    fix = agent.follow(sharpen, "vague", VAGUE="Vocabulary 1: name the words")
    assert fix.get("id") == "profile"
    assert "Edit the profile at" in said(fix) and "only the items VAGUE lists" in said(fix)
    assert "Write the profile to" not in said(fix) and "Read every sample" not in said(fix)

    last = agent.follow(fix)
    assert last.get("id") == "sharpen" and decided(last) == [("check-profile", "valid")]
    assert "This is the last of these checks" in said(last)
    assert "the next step has you edit" not in said(last)
    draft = agent.follow(last, "vague", VAGUE="Vocabulary 1: still generic.")
    assert draft.get("id") == "draft"
    # A value that ends a sentence already gets no second full stop.
    assert "stayed vague after their fix: Vocabulary 1: still generic. Follow" in said(draft)
    assert ".." not in said(draft).replace("...", "")

    (folder / "draft.md").write_text(DRAFT)
    review = agent.follow(draft)
    assert review.get("id") == "review-draft" and decided(review) == [("check-draft", "valid")]
    assert "WEAK_ITEMS: Vocabulary 1: still generic" in review.findtext("DO/dispatch/prompt", "")


def test_going_on_with_thin_samples_is_noted_for_the_profile_and_the_reviewer(
        agent: Agent) -> None:
    folder = agent.repo
    ask = start(agent, "posts/outage.md posts/caching.md")
    assert ask.get("id") == "ask-more" and decided(ask) == [("collect", "short")]
    profile = agent.follow(agent.follow(ask, "proceed"), "given", FACTS="version: v2")
    assert profile.get("id") == "profile"
    note = "Thin evidence: the samples come to 2 samples, 152 words, short of 3 samples"
    assert note in said(profile) and "the user chose to go on with them" in said(profile)

    (folder / "style-profile.md").write_text(PROFILE.replace("sample-1.md", "outage.md").replace(
        "Short version: 1.7 is out, and it is boring on purpose.", "Not the code: the tag."))
    sharpen = agent.follow(profile)
    assert decided(sharpen) == [("check-profile", "valid")], said(sharpen)
    draft = agent.follow(sharpen, "sharp", VAGUE="none")
    (folder / "draft.md").write_text(DRAFT)
    review = agent.follow(draft)
    assert decided(review) == [("check-draft", "valid")]
    assert f"EVIDENCE: {note}" in review.findtext("DO/dispatch/prompt", "")


def test_a_draft_that_keeps_copying_goes_to_the_user(agent: Agent) -> None:
    draft = to_draft(agent)
    copied = DRAFT + "\nTwo of you lost an afternoon, and I am sorry for that.\n"
    for rewrite in range(3):
        (agent.repo / "draft.md").write_text(copied)
        draft = agent.follow(draft)
        assert decided(draft) == [("check-draft", "invalid")]
        if rewrite < 2:  # sent back to the draft with the passage the copy check found
            assert draft.get("id") == "draft" and "from outage.md" in said(draft)
            assert "Rewrite each copied passage" in said(draft)
    assert draft.get("id") == "ask-copies"
    question = draft.findtext("DO/ask_user/question", "")
    assert "After 3 rewrites" in question and "from outage.md" in question
    stop = agent.follow(draft, "abort")
    assert stop.get("id") == "copy-stopped" and stop.find("NEXT/complete") is not None


def test_a_quote_may_hold_double_quotes_and_a_miss_shows_the_nearest_passage(
        tmp_path: Path) -> None:
    profile = import_module("skills.writing-style.scripts._profile")
    sample = SimpleNamespace(path=str(tmp_path / "launch.md"),
                             text='She called it "done" and went home. The build stayed red.')
    lines = PROFILE.splitlines()
    evidence = [n for n, line in enumerate(lines) if line.lstrip().startswith(">")]

    def problems(quote: str) -> list[str]:
        body = list(lines)
        for n in evidence:
            body[n] = f"  > launch.md: {quote}" if n == evidence[0] else "  > absent: \"!\""
        (tmp_path / "p.md").write_text("\n".join(body))
        return profile.check_profile(str(tmp_path / "p.md"), [sample])[1]

    assert problems('"She called it "done" and went home."') == []
    assert problems('"She called it \\"done\\" and went home."') == []  # escaped by habit
    assert problems('"She called it "finished" and went home."') == [
        f'line 5 (Voice 1): the quote is not in {sample.path}: where the quote has "it '
        '"finished" and", the sample has "it "done" and". Copy it exactly, one passage, no '
        "'...'"]


def test_the_copy_check_finds_lifted_passages_only() -> None:
    """Short sentences and shared phrases are the author's manner, not copies; a long run
    inside a changed sentence is a copy."""
    copies = import_module("skills.writing-style.scripts._copies")
    sample = SimpleNamespace(path="/s/outage.md", text=OUTAGE)
    draft = ("It is short. Read it. Nobody lost data, and nobody lost sleep.\n\n"
             "Then I pushed v1.9 from a branch that\nwas three commits behind, sadly.")
    found = copies.find_copies(draft, [sample])
    assert [str(c) for c in found] == [
        '"I pushed v1.9 from a branch that\nwas three commits behind" (11 words, from '
        'outage.md)']
