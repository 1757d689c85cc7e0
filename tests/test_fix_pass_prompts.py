"""Every fix-mode dispatch carries the findings it must fix (issue 19, item 2): a sub-agent sees
nothing of the run but its prompt, so a review loop whose work step is a dispatch must put the
last review's blocking findings (or, for a report-gated loop, the findings and the report's
path) into the prompt it prints on every fix pass.

The workflows checked are found, not listed: every shipped workflow with a review loop whose
work step dispatches. Each is walked as `skillrail simulate` walks it (real step scripts,
persisting walks that fail each loop to its cap), and every printed fix pass is read."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.authoring.registry import registered
from skills.lib.workflow.graph.model import Workflow
from skills.lib.workflow.step.discovery import discover_workflows
from skills.lib.workflow.tools.simulate import Walker

from .conftest import SKILLS_ROOT
from .harness import actions, banner, in_process

#: What the simulated review reports (simulate's value for a free-text arg, and the blocking
#: finding the simulated report file holds).
SAID = "simulated value for QR_FINDINGS"
REPORTED = "a simulated blocking finding"
UNREADABLE = "is not a readable JSON file"


def dispatching_loops() -> list[tuple[str, str]]:
    """(workflow, work step) for each review loop whose work is done by a sub-agent."""
    discover_workflows(SKILLS_ROOT)
    return sorted((wf.name, s.id) for wf in registered().values() for s in wf.steps
                  if s.qr is not None and s.qr.role == "work" and s.dispatch is not None)


def fix_passes(wf: Workflow, work: str, scratch: Path) -> list[ET.Element]:
    """The documents printed for `work` on a fix pass: the walks head for the loop's failed
    gate (its rework edge, then its exhaustion), which sends the work back in fix mode."""
    env = {**os.environ, "SKILLRAIL_HOME": str(scratch / "ledger")}
    step = wf.by_id[work]
    assert step.qr is not None
    gate = wf.reworks[step.qr.counter]
    assert gate.rework is not None
    goals = frozenset([(gate.source, "fail", gate.rework.target),
                       (gate.source, "fail", gate.rework.on_exhausted)])
    walker = Walker(wf, str(scratch), env, goals=goals, run=in_process)
    found = []
    for attempt in range(6):
        for hop in walker.walk(persist=attempt % 2 == 0):
            said = banner(hop.root.find("banner"))
            if hop.root.get("id") == work and said is not None and said.mode == "fix":
                found.append(hop.root)
        if goals <= set(walker.seen):
            break
    return found


def test_the_shipped_skills_have_dispatching_review_loops() -> None:
    """The check below is not empty: the planner's and the executor's loops are among them."""
    assert {("planner", "fill-diffs"), ("planner", "scrub-docs"),
            ("executor", "write-docs")} <= set(dispatching_loops())


@pytest.mark.parametrize(("name", "work"), dispatching_loops())
def test_every_fix_pass_prompt_carries_the_findings(name: str, work: str,
                                                    tmp_path: Path) -> None:
    wf = registered()[name]
    printed = fix_passes(wf, work, tmp_path)
    assert printed, f"no walk printed a fix pass of {name}'s {work}"
    carried = 0
    for doc in printed:
        prompts = [p.text or "" for p in doc.findall("DO/dispatch/prompt")]
        assert prompts, f"{work}'s fix pass dispatches nothing"
        for prompt in prompts:
            assert prompt.startswith("This is a fix pass"), prompt[:200]
            carried += SAID in prompt or REPORTED in prompt
            # A report the reviewer left unreadable (the user chose to go on after the review
            # was redone to its cap) is named, with why, for the sub-agent to read itself.
            assert SAID in prompt or ("The whole report: " in prompt and (
                REPORTED in prompt or UNREADABLE in prompt)), prompt[:600]
        said = " ".join(a.text or "" for a in actions(doc))
        assert "prompt below carries the findings" in said, said
    assert carried, f"no fix pass of {name}'s {work} listed the review's findings"
