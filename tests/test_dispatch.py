"""Sub-agent dispatch: the verbatim prompt, the sub-agent's start command as a sub-run of this
run, parallel dispatch per item, free-form briefs, and W012 for a missing sub-agent script."""

from __future__ import annotations

import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow import Dispatch, InvalidWorkflow, StepDef, Workflow, register_workflow
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.model import marked
from skills.lib.workflow.ledger.store import Ledger
from skills.lib.workflow.protocol.schema import schema_errors

from .conftest import REPO
from .harness import next_cmd_text, run, subagent_cmd

HEAD = f"""import os, sys
sys.path.insert(0, {str(REPO / ".claude")!r})
from skills.lib.workflow import (Action, Arg, Dispatch, StepDef, Workflow, main,
                                 register_workflow)
"""

ORCHESTRATOR = HEAD + '''
WORKFLOW = register_workflow(Workflow("orchestrate", [
    StepDef("areas", "List the areas", actions=[Action("List the areas.", out="AREAS")],
            args=[Arg("AREAS", "the areas, one per line")], next={"ok": "review"}),
    StepDef("review", "Have it reviewed", reads=("AREAS",),
            dispatch=Dispatch("quality-reviewer", "Review the plan at plan.md.",
                              "PASS, or FAIL and the report path", script="scripts/qr/review.py",
                              vars={"PLAN": "plan.md"}),
            args=[Arg("REPLY", "the sub-agent's reply")], next={"ok": "explore"}),
    StepDef("explore", "Explore each area", reads=("AREAS",),
            dispatch=Dispatch("explore", "Explore this area of the codebase.",
                              "a summary with file references",
                              items=lambda ctx: ctx.values["AREAS"].splitlines()),
            args=[Arg("SUMMARIES", "the replies")], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

REVIEWER = HEAD + '''
WORKFLOW = register_workflow(Workflow("plan-review", [
    StepDef("read", "Read the plan", actions=["Read it."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    """A skill folder with an orchestrator script and its sub-agent's review script."""
    (tmp_path / "scripts" / "qr").mkdir(parents=True)
    (tmp_path / "scripts" / "orchestrate.py").write_text(ORCHESTRATOR)
    (tmp_path / "scripts" / "qr" / "review.py").write_text(REVIEWER)
    return tmp_path


def step(argv: list[str]) -> ET.Element:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert schema_errors(proc.stdout) == []
    return ET.fromstring(proc.stdout)


def follow(doc: ET.Element, **values: str) -> ET.Element:
    argv = shlex.split(next_cmd_text(doc))
    for key, value in values.items():
        argv += ["--set", f"{key}={value}"]
    return step(argv)


class TestDispatch:
    def test_a_script_dispatch_starts_a_linked_sub_run(self, skill: Path,
                                                       ledger_home: Path) -> None:
        """The prompt carries the brief, the variables, the start command and the reply
        format, each said once (no <subagent_cmd> or <expected_output> repeating them); the
        command starts a sub-run whose parent is this run."""
        first = step([sys.executable, str(skill / "scripts" / "orchestrate.py"), "--step", "1"])
        review = follow(first, AREAS="parser\nstorage")
        node = review.find("DO/dispatch")
        assert node is not None
        assert (node.get("agent"), node.get("count")) == (
            "quality-reviewer", None)  # count 1 is the default
        cmd = subagent_cmd(node)
        prompt = node.findtext("prompt", "")
        assert cmd.endswith(f"--step 1 --parent {first.get('run')}")
        assert "Review the plan at plan.md." in prompt and "- PLAN: plan.md" in prompt
        assert prompt.count("PASS, or FAIL and the report path") == 1
        assert [c.tag for c in node] == ["prompt"]  # how to dispatch: the mandate, once
        sub = step(shlex.split(cmd))
        with Ledger(str(ledger_home / "runs.sqlite3")) as ledger:
            found = ledger.run(str(sub.get("run")))
            assert found is not None and found.parent == first.get("run")

    def test_a_dispatch_per_item_gives_each_sub_agent_its_own_prompt(self, skill: Path) -> None:
        """items=...: one <prompt> per area, count equal to the items, and no start command
        in free-form mode."""
        first = step([sys.executable, str(skill / "scripts" / "orchestrate.py"), "--step", "1"])
        explore = follow(follow(first, AREAS="parser\nstorage"), REPLY="PASS")
        node = explore.find("DO/dispatch")
        assert node is not None
        assert node.get("count") == "2"
        prompts = [p.text or "" for p in node.findall("prompt")]
        assert not any("First run this command" in p for p in prompts)
        assert ["Your item: parser" in prompts[0], "Your item: storage" in prompts[1]] == [
            True, True]

    def test_a_missing_sub_agent_script_is_w012(self, tmp_path: Path) -> None:
        """Registering a dispatch whose script does not exist is refused, naming the path."""
        source = tmp_path / "scripts" / "x.py"
        source.parent.mkdir()
        source.write_text("")
        wf = marked(Workflow("w012-missing", [
            StepDef("go", "Go", dispatch=Dispatch("a", "Do it.", "done", script="scripts/no.py"),
                    next={"ok": None})]), source=str(source))
        with pytest.raises(InvalidWorkflow, match=r"W012 workflow 'w012-missing', step 'go': "
                                                  r"the dispatch names scripts/no.py, which "
                                                  r"does not exist"):
            register_workflow(wf)
        unregister("w012-missing")

    def test_a_stateless_dispatch_starts_the_sub_agent_stateless(self) -> None:
        """Without a run there is no parent: the start command carries --stateless."""
        wf = marked(Workflow("free", [StepDef("go", "Go", dispatch=Dispatch(
            "a", "Do it.", "done", script="scripts/free.py"), next={"ok": None})]),
                source=str(REPO / "tests" / "scripts" / "free.py"))
        doc = ET.fromstring(run(wf, ["--step", "go", "--stateless"]).out)
        assert subagent_cmd(doc.find("DO/dispatch")).endswith("--step 1 --stateless")


def test_validate_renders_a_dispatch_that_reads_memory(skill: Path) -> None:
    """skillrail validate's samples give memory example values, so a per-item dispatch built
    from memory renders (and validates) without a run."""
    from skills.lib.workflow.step.discovery import load_script
    from skills.lib.workflow.tools.samples import render_samples

    (wf,) = [w for w in load_script(skill / "scripts" / "orchestrate.py")
             if w.name == "orchestrate"]
    documents = dict(render_samples(wf))
    assert all(schema_errors(doc) == [] for doc in documents.values())
    explore = ET.fromstring(documents["orchestrate:explore"])
    assert len(explore.findall("DO/dispatch/prompt")) > 0
    unregister("orchestrate")
