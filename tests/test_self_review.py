"""No tool to start sub-agents (issue 19): the orchestrator does each dispatched prompt itself,
running the sub-agent's command with --self. A whole planning run done that way ends with every
such piece of work marked as the orchestrator's own: in the reviewers' reports and the gates
that read them, in the run's trace, and in the final step's message to the user."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from skills.lib.workflow import reviewer_of
from skills.lib.workflow.protocol.reading import asked
from skills.lib.workflow.protocol.reading import decided as read_decided

from .conftest import SKILLS_ROOT
from .harness import actions, cmd_text, offered, outcome_of
from .test_commands import skillrail
from .test_planner import Agent, plan

SCRIPTS = SKILLS_ROOT / "planner" / "scripts"


class SoloAgent(Agent):
    """An agent with no sub-agent tool: it follows the printed steps, and does every dispatch
    itself the way the rules (the full mandate of the first step it was shown) say."""

    def __init__(self, repo: Path) -> None:
        super().__init__(repo)
        self.sub_runs: list[str] = []
        self.rules = ""

    def run(self, argv: list[str]) -> ET.Element:
        doc = super().run(argv)
        self.rules = doc.findtext("mandate") or self.rules
        return doc

    def follow(self, doc: ET.Element, outcome: str | None = None, **values: str) -> ET.Element:
        """Do the step's dispatch (if any) itself, then run the command for `outcome`."""
        for prompt in doc.iterfind("DO/dispatch/prompt"):
            self.do_yourself(prompt.text or "")
        found = [i for i in offered(doc) if outcome in (None, outcome_of(i))]
        assert len(found) == 1, [outcome_of(i) for i in offered(doc)]
        argv = shlex.split(cmd_text(found[0]))
        for arg in asked(found[0]):
            if arg.key not in values and arg.required:
                values[arg.key] = (arg.choices or ("done",))[0]
        return self.run(argv + [f"--set={k}={v}" for k, v in values.items()])

    def do_yourself(self, prompt: str) -> None:
        """The rules' way through: run the prompt's command with --self, to its end. The
        sub-run repeats none of the rules (the agent has them) and ends saying where its reply
        goes."""
        assert "No agent tool at all? Then do each prompt yourself" in self.rules
        assert "adding --self to its command" in self.rules
        command = re.search(r"First run this command[^:]*: (.+)", prompt)
        assert command is not None, prompt
        doc = self.run(shlex.split(command.group(1)) + ["--self"])
        assert doc.find("mandate") is None
        self.sub_runs.append(doc.get("run") or "")
        while True:
            if doc.get("title") == "Write the report":
                self.write_report(prompt, doc)
            if doc.find("NEXT/complete") is not None:
                assert "there is no one to reply to" in doc.findtext("NEXT/complete", "")
                break
            doc = self.follow(doc)

    def write_report(self, prompt: str, doc: ET.Element) -> None:
        said = " ".join(a.text or "" for a in actions(doc))
        assert '"reviewer": "self"' in said  # the run knows who is reviewing
        path = re.search(r"(/\S+/qr-[a-z-]+\.json)", prompt)
        assert path is not None, prompt
        Path(path.group(1)).write_text(json.dumps({"reviewer": "self", "items": []}))
        assert reviewer_of(path.group(1)) == "self"  # what an author's code reads


def test_an_author_reads_whether_a_review_was_independent(tmp_path: Path) -> None:
    """reviewer_of: what the report says, or None where it cannot say."""
    cases = {"self": {"reviewer": "self", "items": []},
             "independent": {"reviewer": "independent", "items": []},
             None: {"items": []}}
    for expected, report in cases.items():
        (tmp_path / "qr.json").write_text(json.dumps(report))
        assert reviewer_of(str(tmp_path / "qr.json")) == expected
    (tmp_path / "qr.json").write_text("{not json")
    assert reviewer_of(str(tmp_path / "qr.json")) is None
    assert reviewer_of(str(tmp_path / "missing.json")) is None


def test_planning_without_a_sub_agent_tool_marks_every_self_review(tmp_path: Path) -> None:
    repo = tmp_path / "sample"
    repo.mkdir()
    (repo / "greet.py").write_text("")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    agent, work = SoloAgent(repo), repo / ".planner"
    doc = agent.run([sys.executable, str(SCRIPTS / "planner.py"), "--step", "1",
                     "--request", "Add a greet function"])
    run_id = doc.get("run") or ""
    work.mkdir()
    (work / "plan.json").write_text(json.dumps(plan(diffs=False)))
    notes = []
    while doc.get("id") != "approve":
        if doc.get("id") == "fill-diffs":
            (work / "plan.json").write_text(json.dumps(plan(diffs=True)))
        doc = agent.follow(doc, **({"REQUEST": "Add greet(name)."} if doc.get("id") == "draft"
                                   else {}))
        notes += [d.note for d in read_decided(doc)]
    gates = [n for n in notes if "the review passed" in n]
    assert len(gates) == 3 and all("It is a self-review" in n for n in gates)
    sealed = agent.follow(doc, "approve")
    told = [a.text or "" for a in actions(sealed) if a.out == "reply"]
    workflows = ["explore", "plan-completeness", "fill-diffs", "plan-code", "plan-scrub",
                 "plan-docs"]
    assert any(t.startswith("Also tell the user that you did this sub-agent work yourself")
               and all(f"{w} (run " in t for w in workflows) for t in told), told
    trace = skillrail("trace", run_id, cwd=repo).stdout
    assert trace.count("self-run: ") == len(workflows) == len(agent.sub_runs)
    stats = json.loads(skillrail("stats", "--skill", "planner", "--json", cwd=repo).stdout)
    assert stats[0]["self_runs"] == len(workflows)
    assert "self-done" in skillrail("stats", "--skill", "planner", cwd=repo).stdout


def test_a_one_step_sub_run_done_with_self_says_where_its_reply_goes(tmp_path: Path) -> None:
    """What starting a --self sub-run records (its run_by) is what its first step reads: a
    sub-workflow of one step (prompt-engineer's runner and judges have one or two) ends there
    with the --self closing, not the sub-agent's own "reply as the last action says"."""
    from .hooks_support import _HEAD, make_project
    from .hooks_support import Agent as ShellAgent

    skill = make_project(tmp_path / "app")
    (skill / "scripts" / "lone.py").write_text(_HEAD + '''
WORKFLOW = register_workflow(Workflow(name="guarded-lone", steps=[
    StepDef("answer", "Answer", actions=[Action("One line: the answer.", out="reply")],
            next={"ok": None}, complete="Your run is done. Reply as the last action says."),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
''')
    agent = ShellAgent(tmp_path / "app", session=None)
    parent = agent.start().get("run") or ""
    alone = agent.start("lone.py", "--parent", parent)
    assert alone.findtext("NEXT/complete") == "Your run is done. Reply as the last action says."
    done = agent.start("lone.py", "--parent", parent, "--self")
    assert "there is no one to reply to" in done.findtext("NEXT/complete", "")
