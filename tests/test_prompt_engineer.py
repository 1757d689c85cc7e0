"""The prompt-engineer skill, played through as an agent would (real subprocesses, only the
printed commands): a system prompt analysed, run, revised once after the judges preferred the
original on an input, and presented; the judges' blindness and their two orders; each scope's
own analysis; the test inputs the user supplies; the runner and judge sub-workflows; and the
revisions running out."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.protocol.reading import asked, lines

from .conftest import SKILLS_ROOT
from .harness import actions, banner, listed, offered, outcome_of, run_of
from .harness import banner as read_banner
from .test_planner import Agent

SCRIPTS = SKILLS_ROOT / "prompt-engineer" / "scripts"
SCRIPT = SCRIPTS / "prompt-engineer.py"
INPUTS = "I1: refund after 20 days?\n\nI2: give me a discount code\n\nI3: reset my password?"
TESTS = "I1: W1\nI2: regression\nI3: W2"
CRITERIA = "I1: cites the 30-day rule\nI2: declines politely\nI3: gives the reset steps"
NEUTRAL = re.compile(r"outputs-[0-9a-f]{6}\.md")


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    repo = tmp_path / "bot"
    repo.mkdir()
    (repo / "support-bot.md").write_text("Be helpful and answer every question.\n")
    return Agent(repo)


def text_of(doc: ET.Element) -> str:
    return " ".join(doc.find("DO").itertext())


def prompts_of(doc: ET.Element) -> list[str]:
    return [p.text or "" for p in doc.iter("prompt")]


def var(prompt: str, key: str) -> str:
    """A one-line variable of a dispatch prompt."""
    found = re.search(rf"^- {key}: (.*)$", prompt, re.M)
    assert found, prompt
    return found.group(1)


def start(agent: Agent, scope: str) -> ET.Element:
    doc = agent.run([sys.executable, str(SCRIPT), "--step", "1", "--prompt", "support-bot.md",
                     "--goal", "it invents refund rules"])
    return agent.follow(doc, scope, ORIGINAL="support-bot.md",
                        GOAL="support chat bot; good: answers from the policy only")


def to_baseline(agent: Agent, doc: ET.Element) -> ET.Element:
    """From an analysis step to the baseline step."""
    doc = agent.follow(doc, ANALYSIS="W1 'Be helpful and answer every question' "
                       "(persona-with-scope)", HOW_TO_RUN="system prompt; input = user turn")
    return agent.follow(doc, INPUTS=INPUTS, TESTS=TESTS, CRITERIA=CRITERIA)


def to_judge(agent: Agent, doc: ET.Element) -> ET.Element:
    """From the baseline step (or a revision's propose step) to the judge step."""
    if doc.get("id") == "baseline":
        doc = agent.follow(doc, BASELINE="outputs file, 3 inputs")
    doc = agent.follow(doc, CHANGES="C1 answer only from the policy (persona-with-scope)")
    return agent.follow(agent.follow(doc), TRIAL="outputs file, 3 inputs")


def test_a_system_prompt_is_revised_once_then_presented(agent: Agent) -> None:
    """Judges preferring the original on one input send the run back to propose, which reads
    that pass's outputs; the second pass keeps the first's version and outputs, and a judgement
    that holds ends with the presentation naming every file."""
    work = agent.repo / ".prompt-engineer"
    doc = agent.run([sys.executable, str(SCRIPT), "--step", "1", "--prompt", "support-bot.md",
                     "--goal", "it invents refund rules"])
    assert f"Run `mkdir -p {work}` first" in text_of(doc)  # before anything is written there
    assert f"save it verbatim to {work / 'original.md'}" in text_of(doc)
    doc = agent.follow(doc, "system", ORIGINAL="support-bot.md",
                       GOAL="support chat bot; good: answers from the policy only")
    assert doc.get("id") == "analyse-system"
    assert (listed(doc, "resource", "techniques") or "").endswith("resources/techniques.md")
    assert "no file name or path" in text_of(doc)  # HOW_TO_RUN serves every version
    doc = to_baseline(agent, doc)
    [brief] = prompts_of(doc)
    original_out = var(brief, "OUTPUTS")
    assert var(brief, "PROMPT") == "support-bot.md" and NEUTRAL.fullmatch(Path(original_out).name)
    assert "run-prompt.py --step 1 --parent" in brief and "30-day" not in brief  # no criteria
    assert "must not name the prompt, its path or its version" in brief
    doc = agent.follow(doc, BASELINE="outputs file, 3 inputs")
    assert doc.get("id") == "propose" and "This is pass" not in text_of(doc)
    assert f"Read the original's outputs in {original_out}" in text_of(doc)
    assert any("only if you have not read it in this run" in x.text
               for x in lines(doc.find("DO")) if x.kind == "resource")
    doc = agent.follow(doc, CHANGES="C1 answer only from the policy (persona-with-scope)")
    assert doc.get("id") == "write" and "rename" not in text_of(doc)
    assert f"Write the optimised version to {work / 'optimised.md'}" in text_of(doc)
    doc = agent.follow(doc)
    [brief] = prompts_of(doc)
    first_out = var(brief, "OUTPUTS")
    assert doc.get("id") == "trial" and var(brief, "PROMPT") == str(work / "optimised.md")
    assert NEUTRAL.fullmatch(Path(first_out).name) and first_out != original_out
    doc = agent.follow(doc, TRIAL="outputs file, 3 inputs")
    assert doc.get("id") == "judge"
    doc = agent.follow(doc, "loses", VERDICTS="I1: new - cites the rule\nI2: TIE\n"
                       "I3: original - the new one refuses the password question")
    assert doc.get("id") == "propose" and read_banner(doc.find("banner")).n == 2
    assert doc.find("memory/VERDICTS") is None  # just reported, not echoed
    said = text_of(doc)
    assert f"This is pass 2: read the last version's outputs in {first_out}" in said
    assert "CHANGES is again the full list against the original" in said
    doc = agent.follow(doc, CHANGES="C1 narrowed to refund questions\nC2 policy at the end "
                       "(placement)")
    assert (f"First rename the last version, {work / 'optimised.md'}, to "
            f"{work / 'optimised-pass1.md'}") in text_of(doc)
    doc = agent.follow(doc)
    second_out = var(prompts_of(doc)[0], "OUTPUTS")
    assert NEUTRAL.fullmatch(Path(second_out).name)
    assert second_out not in (original_out, first_out)  # each pass keeps its outputs
    doc = agent.follow(doc, TRIAL="outputs file, 3 inputs")
    doc = agent.follow(doc, "holds", VERDICTS="I1: new\nI2: TIE\nI3: TIE")
    assert doc.get("id") == "present" and doc.find("NEXT/complete") is not None
    said = text_of(doc)
    assert f"the new version is at {work / 'optimised.md'}" in said
    assert f"the original's in {original_out}, the new version's in {second_out}" in said
    assert f"pass 1's version is kept at {work / 'optimised-pass1.md'}, its outputs in " \
           f"{first_out}" in said
    assert "a sub-agent produced them by playing the target model" in said
    assert "compared them on 3 inputs" in said and "what it tests (TESTS)" in said
    assert "with the user's yes, and only then, copy the optimised file over the original" \
        in said
    assert "C2 policy at the end" in (doc.findtext("memory/CHANGES") or "")
    print(f"prompt-engineer happy path with one revision: {len(agent.printed)} steps, "
          f"{sum(len(d) for d in agent.printed)} characters")


def test_two_blind_judges_read_the_outputs_in_both_orders(agent: Agent) -> None:
    """Each judge gets the two outputs files under neutral names, in opposite orders, with the
    criteria and without a word on which version is the original or on what each input tests;
    only the orchestrator is told which order each judge has, and the outcome turns on the
    combined verdicts."""
    doc = to_baseline(agent, start(agent, "system"))
    original_out = var(prompts_of(doc)[0], "OUTPUTS")
    doc = agent.follow(agent.follow(agent.follow(doc, BASELINE="ok"), CHANGES="C1"))
    new_out = var(prompts_of(doc)[0], "OUTPUTS")
    doc = agent.follow(doc, TRIAL="ok")
    assert doc.get("id") == "judge"
    first, second = prompts_of(doc)
    assert f"Your item: A = {original_out}; B = {new_out}" in first
    assert f"Your item: A = {new_out}; B = {original_out}" in second
    for brief in (first, second):
        assert "judge.py --step 1 --parent" in brief and "- CRITERIA: I1: cites" in brief
        assert brief.startswith("Compare outputs files A and B per input against CRITERIA.")
        assert not re.search(r"original|optimised|new version|support-bot|regression|W1|TESTS",
                             brief)
    said = text_of(doc)
    assert "A is the original's outputs in item 1, the new version's in item 2" in said
    assert "if no judge picks the other version, else TIE" in said
    whens = {outcome_of(i): i.get("when") for i in offered(doc)}
    assert whens == {"holds": "no input's verdict is 'original'",
                     "loses": "an input's verdict is 'original'"}


def test_the_outputs_names_are_the_same_on_every_reprint(agent: Agent) -> None:
    """No randomness: printing the same step of the same run again names the same files."""
    doc = to_baseline(agent, start(agent, "single"))
    run = run_of(doc)
    assert run
    again = subprocess.run([sys.executable, str(SCRIPT), "--run", run, "--resume"],
                           capture_output=True, text=True, cwd=agent.repo, timeout=60)
    assert again.returncode == 0, again.stderr
    reprinted = ET.fromstring(again.stdout)
    assert reprinted.get("id") == "baseline"
    assert var(prompts_of(reprinted)[0], "OUTPUTS") == var(prompts_of(doc)[0], "OUTPUTS")


@pytest.mark.parametrize(("scope", "check"), [
    ("skill", "skillrail describe NAME"), ("chain", "Contracts: does each output"),
    ("system", "Role and scope:"), ("single", "Task: is the task stated")])
def test_each_scope_has_its_own_analysis(agent: Agent, scope: str, check: str) -> None:
    """Each of the four triage outcomes leads to an analysis step with that scope's checks."""
    doc = start(agent, scope)
    assert doc.get("id") == f"analyse-{scope}" and check in text_of(doc)
    assert {a.key for a in asked(offered(doc)[0])} == {"ANALYSIS", "HOW_TO_RUN"}


def test_the_scopes_exclude_each_other(agent: Agent) -> None:
    """Each scope after the first rules out the earlier ones, and a per-call classifier's
    system prompt is named under single, not system."""
    doc = agent.run([sys.executable, str(SCRIPT), "--step", "1", "--prompt", "support-bot.md"])
    whens = {outcome_of(i): i.get("when") or "" for i in offered(doc)}
    assert list(whens) == ["skill", "chain", "system", "single"]
    assert whens["chain"].startswith("not a skill:")
    assert all(whens[s].startswith("not a skill or chain:") for s in ("system", "single"))
    assert "classifier's system prompt" in whens["single"]
    assert "classifier" not in whens["system"]


def test_inputs_go_to_the_runners_raw_and_criteria_to_the_judges(agent: Agent) -> None:
    """The inputs step keeps three records apart: INPUTS reaches the runners verbatim, CRITERIA
    the judges, and what each input tests (TESTS) neither."""
    doc = agent.follow(start(agent, "single"), ANALYSIS="W1 vague", HOW_TO_RUN="user message")
    assert doc.get("id") == "inputs"
    said = text_of(doc)
    assert "No test inputs came with --inputs; use any the user gave in the conversation" in said
    assert "With fewer than three of theirs (or none), add your own to make three or four in " \
           "all" in said
    assert "INPUTS goes verbatim to the runners" in said
    assert "no label, no W-number and no word on what it tests" in said
    assert "CRITERIA goes verbatim to the judges" in said
    assert "The runners and judges never see TESTS" in said
    assert [a.key for a in asked(offered(doc)[0])] == ["INPUTS", "TESTS", "CRITERIA"]


def test_the_users_inputs_are_used_by_path_and_topped_up(agent: Agent) -> None:
    """Inputs the user gives with --inputs are used where they are; fewer than three are topped
    up, a regression input first, to four in all at most."""
    (agent.repo / "chats").mkdir()
    for name in ("t1.txt", "t2.txt"):
        (agent.repo / "chats" / name).write_text("customer: hi\n")
    doc = agent.run([sys.executable, str(SCRIPT), "--step", "1", "--prompt", "support-bot.md",
                     "--inputs", "chats/t1.txt chats/t2.txt"])
    doc = agent.follow(agent.follow(doc, "single", ORIGINAL="support-bot.md", GOAL="summaries"),
                       ANALYSIS="W1 vague", HOW_TO_RUN="user message")
    said = text_of(doc)
    assert "The user gave test inputs: chats/t1.txt chats/t2.txt" in said
    assert "a file stays where it is and INPUTS gives its absolute path (do not copy it)" in said
    assert "add your own to make three or four in all: first one the original already " \
           "handles well, so a regression shows" in said


def test_an_inputs_file_that_is_not_there_is_refused(agent: Agent) -> None:
    """A mistyped --inputs path stops the run before it starts, with a one-line error."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--step", "1", "--prompt",
                           "support-bot.md", "--inputs", "pasted chats/missing.txt"],
                          capture_output=True, text=True, cwd=agent.repo, timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "no file at chats/missing.txt" in proc.stderr


def test_the_runner_writes_the_inputs_as_the_judge_reads_them(agent: Agent) -> None:
    """The runner is one step that plays a typical model at the prompt's gaps and writes the
    outputs; the judge scores, then judges and replies; both describe each input in the same
    words."""
    run = agent.run([sys.executable, str(SCRIPTS / "run-prompt.py"), "--step", "1",
                     "--stateless"])
    said = text_of(run)
    assert run.find("NEXT/complete") is not None  # one step: run, write, reply
    assert "do what a typical model given only this text would most likely do" in said
    assert "do not add care the prompt does not ask for" in said
    score = agent.run([sys.executable, str(SCRIPTS / "judge.py"), "--step", "1", "--stateless"])
    shown = "the input (its text; for an input given as a file, the file's path and its first " \
            "line)"
    assert shown in said and shown in text_of(score)
    verdict = agent.follow(score)
    assert verdict.get("id") == "judge" and verdict.find("NEXT/complete") is not None
    assert any(a.out == "reply" for a in actions(verdict))


def test_when_revisions_run_out_the_weaknesses_are_presented(agent: Agent) -> None:
    """After the third judgement that the original wins an input, the run presents the latest
    version with the inputs it still loses, and the two earlier passes' files."""
    work = agent.repo / ".prompt-engineer"
    doc = to_judge(agent, to_baseline(agent, start(agent, "single")))
    for _ in range(2):
        doc = agent.follow(doc, "loses", VERDICTS="I3: original - over-refuses")
        doc = to_judge(agent, doc)
    shown = banner(doc.find("banner"))
    assert shown is not None and shown.n == 3
    doc = agent.follow(doc, "loses", VERDICTS="I3: original - over-refuses")
    assert doc.get("id") == "present-weak" and doc.find("NEXT/complete") is not None
    said = text_of(doc)
    assert "the revisions are used up and the original still wins" in said
    assert str(work / "optimised-pass2.md") in said and "compared them on 3 inputs" in said
