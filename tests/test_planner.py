"""The planner skill end to end, the way an agent runs it: real subprocesses in a small sample
repository, following only the printed commands. The test plays the agent and its sub-agents:
it writes the plan, a malformed plan, review reports that fail and then pass, and the markers
developers leave, and checks where each printed command leads."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.protocol.schema import schema_errors

from . import harness
from .conftest import SKILLS_ROOT
from .harness import (
    actions,
    cmd_text,
    decided,
    first_action,
    listed,
    notes,
    offered,
    outcome_of,
    path_free_size,
    run_of,
    subagent_cmd,
)
from .harness import banner as read_banner

SCRIPTS = SKILLS_ROOT / "planner" / "scripts"


class Agent:
    """Runs printed commands in the sample repository, in this process as a new interpreter
    would (harness.agent), and remembers every document."""

    def __init__(self, repo: Path) -> None:
        self.repo, self.printed = repo, []  # type: list[str]

    def run(self, argv: list[str]) -> ET.Element:
        proc = harness.agent(argv, cwd=self.repo)
        assert proc.returncode == 0, proc.stderr
        assert schema_errors(proc.stdout) == []
        self.printed.append(proc.stdout)
        return ET.fromstring(proc.stdout)

    def follow(self, doc: ET.Element, outcome: str | None = None, **values: str) -> ET.Element:
        found = [i for i in offered(doc) if outcome in (None, outcome_of(i))]
        assert len(found) == 1, [outcome_of(i) for i in offered(doc)]
        argv = shlex.split(cmd_text(found[0]))
        for key, value in values.items():
            argv += ["--set", f"{key}={value}"]
        return self.run(argv)

    def sizes(self) -> list[int]:
        """Each document's length with the machine's paths (the sample repository's folder,
        the checkout, the interpreter, the temporary folder) counted as short fixed names, so
        a size limit holds in any checkout, however deep."""
        return [path_free_size(doc, self.repo.parent) for doc in self.printed]


def plan(diffs: bool, check: str = "") -> dict[str, object]:
    change = [{"file": "greet.py", "diff": "@@ -1 +1,2 @@\n+def greet(name):\n+    return name"}]
    return {"status": "draft", "request": "Add a greet function.", **({"check": check} if check
                                                                     else {}),
            "decisions": [{"decision": "One function in greet.py", "why": "Smallest change"}],
            "milestones": [{"id": "M1", "title": "greet", "goal": "greet(name) returns a greeting",
                            "files": ["greet.py"], "acceptance": ["greet('a') == 'Hello, a'"],
                            "diffs": change if diffs else []}]}


def report(path: Path, *severities: str) -> None:
    path.write_text(json.dumps({"items": [
        {"id": f"F{n}", "severity": s, "location": "plan.json", "problem": "a problem"}
        for n, s in enumerate(severities, 1)]}))


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    repo = tmp_path / "sample"
    repo.mkdir()
    (repo / "greet.py").write_text("")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return Agent(repo)


def plan_to_approval(agent: Agent, check: str = "", ahead: bool = False) -> ET.Element:
    """Drive planning from the request to the approval question (the plan naming `check`);
    `ahead`: to the step after it, which an approval the user gave in advance leads to."""
    work = agent.repo / ".planner"
    doc = agent.run([sys.executable, str(SCRIPTS / "planner.py"), "--step", "1",
                     "--request", "Add a greet function"])
    # One turn explores (a sub-agent), weighs the approaches and writes the first draft.
    assert doc.get("id") == "draft" and listed(doc, "resource", "plan-format") is not None
    assert "scripts/explore.py --step 1 --parent" in subagent_cmd(doc.find("DO/dispatch"))
    work.mkdir()
    (work / "plan.json").write_text('{"request": "x", "milestones": []}')
    # The script's schema check sends the plan back, and the step it returns to says why.
    doc = agent.follow(doc, REQUEST="Add greet(name).")
    assert doc.get("id") == "write-plan" and decided(doc) == [("check-plan", "invalid")]
    said = first_action(doc)
    assert "fails its schema check" in said and "decisions: Field required" in said
    assert "Fix exactly these problems first" in said
    (work / "plan.json").write_text(json.dumps(plan(diffs=False, check=check)))
    review = agent.follow(doc)
    assert review.get("id") == "review-plan" and decided(review) == [("check-plan", "valid")]
    # The reviewer has the user's words beside the agent's restatement of them: as typed,
    # where the hooks recorded it (a test of a hooked session), else as --request.
    prompt = review.findtext("DO/dispatch/prompt", "")
    assert "- REQUEST: Add greet(name)." in prompt
    assert re.search(r"^- USER_REQUEST: .*Add a greet function", prompt, re.M), prompt
    report(work / "qr-plan-completeness.json", "MUST", "COULD")
    fix = agent.follow(review)
    assert fix.get("id") == "write-plan" and read_banner(fix.find("banner")).mode == "fix"
    assert decided(fix) == [("plan-completeness-gate", "fail")]
    assert str(work / "qr-plan-completeness.json") in first_action(fix)
    review = agent.follow(fix)
    assert decided(review) == [("check-plan", "valid")]
    report(work / "qr-plan-completeness.json", "COULD")
    passed = "plan-completeness"
    for loop, check_step, name in (("fill-diffs", "check-diffs", "plan-code"),
                                   ("scrub-docs", "check-docs", "plan-docs")):
        doc = agent.follow(review)
        assert doc.get("id") == loop and decided(doc) == [(f"{passed}-gate", "pass")]
        (work / "plan.json").write_text(json.dumps(plan(diffs=True, check=check)))
        review = agent.follow(doc)
        assert decided(review) == [(check_step, "valid")]
        report(work / f"qr-{name}.json")
        passed = name
    approve = agent.follow(review)
    if ahead:
        return approve
    assert approve.get("id") == "approve" and approve.find("DO/ask_user") is not None
    assert decided(approve) == [("plan-docs-gate", "pass")]
    return approve


def test_planning_reaches_approval_and_seals_the_plan(agent: Agent) -> None:
    approve = plan_to_approval(agent)
    done = agent.follow(approve, "approve")
    assert done.get("id") == "seal" and done.find("NEXT/complete") is not None
    sealed = json.loads((agent.repo / ".planner" / "plan.json").read_text())
    assert sealed["status"] == "approved"
    assert (f"executor.py --step 1 --dir={agent.repo / '.planner'}"
            in first_action(done))
    # plan.md, for people, says what plan.json says.
    assert (agent.repo / ".planner" / "plan.md").read_text().startswith("# Plan (approved)")


def test_execution_runs_a_milestone_through_both_reviews(agent: Agent) -> None:
    agent.follow(plan_to_approval(agent), "approve")
    work = agent.repo / ".planner"
    doc = agent.run([sys.executable, str(SCRIPTS / "executor.py"), "--step", "1"])
    assert doc.get("id") == "survey" and decided(doc) == [("load", "valid")]
    implement = agent.follow(agent.follow(doc, BASE="abc123"))  # reconcile, then the wave
    prompts = [p.text or "" for p in implement.iter("prompt")]
    assert implement.get("id") == "implement" and decided(implement) == [("first-wave", "more")]
    assert len(prompts) == 1 and "Your item: M1" in prompts[0]
    assert implement.find("banner") is None  # the first wave is no pass of a loop yet
    (work / "progress").mkdir()
    (work / "progress" / "M1.done").write_text("")
    doc = agent.follow(implement, FAILURES="none")
    assert doc.get("id") == "verify" and decided(doc) == [("wave", "done"), ("has-check", "none")]
    for name, work_step in (("post-impl-code", "verify"), ("post-impl-docs", "write-docs")):
        assert doc.get("id") == work_step
        review = agent.follow(doc)
        report(work / f"qr-{name}.json", "COULD")
        doc = agent.follow(review)
        assert decided(doc) == [(f"{name}-gate", "pass")]
    assert doc.get("id") == "summary" and doc.find("NEXT/complete") is not None


def test_the_executor_refuses_a_plan_not_yet_approved(agent: Agent) -> None:
    (agent.repo / ".planner").mkdir()
    (agent.repo / ".planner" / "plan.json").write_text(json.dumps(plan(diffs=True)))
    doc = agent.run([sys.executable, str(SCRIPTS / "executor.py"), "--step", "1"])
    assert doc.get("id") == "not-ready" and decided(doc) == [("load", "invalid")]
    assert "is not approved (status: draft)" in " ".join(notes(doc))


def content_chars(document: str) -> int:
    """What a step says to the agent: title, DO, memory values, arg descriptions, conditions,
    the ending. The rest (mandate, markup, commands) is framing."""
    root = ET.fromstring(document)
    texts = [root.get("title", ""), "".join(root.find("DO").itertext()),
             *(i.text or "" for i in root.iterfind("memory/*")),
             *(a.get("describe", "") for a in root.iter("arg")),
             *(i.get("set", "") for i in offered(root)),
             *(i.get("when", "") for i in root.iter("invoke")),
             root.findtext("NEXT/complete", "")]
    return sum(len(t) for t in texts)


def test_the_framing_of_a_planning_run_does_not_grow(agent: Agent) -> None:
    """Framing (mandate, markup, commands) of a happy-path planning run, with this test's
    short reported values, stays under 70% (it measured 67%: a regression guard, not the goal;
    real runs report longer values, so their share is lower)."""
    plan_to_approval(agent)
    total = sum(len(d) for d in agent.printed)
    framing = total - sum(content_chars(d) for d in agent.printed)
    print(f"planning to approval: {len(agent.printed)} steps, {total} characters, "
          f"framing {framing} ({framing / total:.0%})")
    assert framing / total < 0.7



def test_a_fix_pass_sub_run_holds_the_findings_to_fix(agent: Agent) -> None:
    """The developer who fills in the diffs sees only its prompt and its own sub-run: on a fix
    pass the sub-run (started with --fix) holds the review's blocking findings and the
    report's path as FIX_FINDINGS, and its work step asks for those fixes instead of the first
    pass's work; the prompt says so in one line rather than listing them again."""
    work = agent.repo / ".planner"
    doc = agent.run([sys.executable, str(SCRIPTS / "planner.py"), "--step", "1",
                     "--request", "Add a greet function"])
    work.mkdir()
    (work / "plan.json").write_text(json.dumps(plan(diffs=False)))
    review = agent.follow(doc, REQUEST="Add greet(name).")
    report(work / "qr-plan-completeness.json", "COULD")
    fill = agent.follow(review)
    assert fill.get("id") == "fill-diffs"
    assert "fix pass" not in (fill.findtext("DO/dispatch/prompt") or "")
    (work / "plan.json").write_text(json.dumps(plan(diffs=True)))
    review = agent.follow(fill)
    long_fix = "return 'Hello, ' + name" + ", and say why in the docstring" * 30
    (work / "qr-plan-code.json").write_text(json.dumps({"items": [
        {"id": "F7", "severity": "MUST", "location": "plan.json M1",
         "problem": "greet returns the name, not a greeting", "fix": long_fix},
        {"id": "F8", "severity": "COULD", "location": "plan.json M1", "problem": "a nit"}]}))
    fix = agent.follow(review)
    assert fix.get("id") == "fill-diffs" and read_banner(fix.find("banner")).mode == "fix"
    prompt = fix.findtext("DO/dispatch/prompt") or ""
    assert prompt.startswith("This is a fix pass") and "F7" not in prompt
    assert "fix pass" not in " ".join(a.text for a in actions(fix))  # banner and prompt say it
    start = subagent_cmd(fix.find("DO/dispatch"))
    assert start.endswith(f"--parent {run_of(fix)} --fix")
    sub = agent.run(shlex.split(start))
    work_step = agent.follow(sub)
    assert work_step.get("id") == "work"
    found = work_step.findtext("memory/FIX_FINDINGS") or ""
    # Shown whole, however long: the findings are the fix pass's work.
    assert ("- F7 (MUST, plan.json M1): greet returns the name, not a greeting Fix: "
            f"{long_fix}") in found and len(found) > 1000
    assert "F8" not in found and str(work / "qr-plan-code.json") in found
    said = [a.text for a in actions(work_step)]
    assert said[0].startswith("This is a fix pass: fix each finding in FIX_FINDINGS")
    assert not any("For each milestone in order" in a for a in said)  # not the first pass's
    assert "Change only PLAN_FILE: the diffs are a proposal, not yet applied." in said
    # A first pass's sub-run holds no findings, and its work is the whole work.
    first = agent.run(shlex.split(subagent_cmd(fill.find("DO/dispatch"))))
    first_work = agent.follow(first)
    assert first_work.find("memory/FIX_FINDINGS") is None
    assert any("For each milestone in order" in (a.text or "") for a in actions(first_work))


def test_the_reviewer_gets_the_request_as_the_user_typed_it(agent: Agent,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """With the hooks installed, the run keeps what the user last typed before it started (the
    UserPromptSubmit hook records it) and the plan's reviewer gets it as USER_REQUEST, beside
    the agent's restatement and instead of the agent's --request."""
    from .hooks_support import hook, payload

    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "typed-session")
    typed = "plz add a greet() helper, keep it tiny"
    said = hook("UserPromptSubmit", payload("stop", hook_event_name="UserPromptSubmit",
                                            prompt=typed, session_id="typed-session",
                                            cwd=str(agent.repo)), "typed-session")
    assert said.returncode == 0 and said.stderr == ""
    work = agent.repo / ".planner"
    doc = agent.run([sys.executable, str(SCRIPTS / "planner.py"), "--step", "1",
                     "--request", "Add a greet function"])
    work.mkdir()
    (work / "plan.json").write_text(json.dumps(plan(diffs=False)))
    review = agent.follow(doc, REQUEST="Add greet(name).")
    prompt = review.findtext("DO/dispatch/prompt", "")
    assert "- REQUEST: Add greet(name)." in prompt
    assert f"- USER_REQUEST: {typed}" in prompt and "Add a greet function" not in prompt
    assert typed not in "".join(review.itertext()).replace(prompt, "")  # said once, to the reviewer
