"""Every fix-mode dispatch hands on the findings it must fix (issue 19, item 2; issue 30, item
4): a sub-agent sees nothing of the run but its prompt and its own sub-run, so a review loop
whose work step is a dispatch must give it the last review's blocking findings (or, for a
report-gated loop, the findings and the report's path) on every fix pass. A script sub-agent's
sub-run, started with --fix, holds them as FIX_FINDINGS, and its prompt says so once.

The workflows checked are found, not listed: every shipped workflow with a review loop whose
work step dispatches. Each is walked as `skillrail simulate` walks it (real step scripts,
persisting walks that fail each loop to its cap), and every printed fix pass is read."""

from __future__ import annotations

import os
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path
from subprocess import CompletedProcess

import pytest
from skills.lib.workflow.authoring.registry import registered
from skills.lib.workflow.graph.model import Workflow
from skills.lib.workflow.protocol.reading import asked
from skills.lib.workflow.step.discovery import discover_workflows
from skills.lib.workflow.tools.simulate import Walker

from .conftest import SKILLS_ROOT
from .harness import actions, banner, cmd_text, in_process, offered, subagent_cmd

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


def fix_passes(wf: Workflow, work: str, scratch: Path
               ) -> list[tuple[ET.Element, list[str]]]:
    """The documents printed for `work` on a fix pass, each with what its sub-runs held as
    FIX_FINDINGS: each sub-agent's command is run as the pass is printed (the run must still
    be there), and followed until a step shows FIX_FINDINGS or the sub-run ends. The walks
    head for the loop's failed gate (its rework edge, then its exhaustion), which sends the
    work back in fix mode."""
    env = {**os.environ, "SKILLRAIL_HOME": str(scratch / "ledger")}
    step = wf.by_id[work]
    assert step.qr is not None
    gate = wf.reworks[step.qr.counter]
    assert gate.rework is not None
    goals = frozenset([(gate.source, "fail", gate.rework.target),
                       (gate.source, "fail", gate.rework.on_exhausted)])
    found = []

    def run(cmd: list[str], env: dict[str, str], cwd: str) -> CompletedProcess[str]:
        proc = in_process(cmd, env, cwd)
        doc = ET.fromstring(proc.stdout) if proc.returncode == 0 else None
        said = banner(doc.find("banner")) if doc is not None else None
        if doc is not None and doc.get("id") == work and said is not None and said.mode == "fix":
            held = [sub_run_findings(start, env, cwd) for start in
                    (subagent_cmd(d) for d in doc.findall("DO/dispatch")) if start]
            found.append((doc, held))
        return proc

    walker = Walker(wf, str(scratch), env, goals=goals, run=run)
    for attempt in range(6):
        walker.walk(persist=attempt % 2 == 0)
        if goals <= set(walker.seen):
            break
    return found


def sub_run_findings(start: str, env: dict[str, str], cwd: str) -> str:
    """What the sub-run `start` begins holds as FIX_FINDINGS ("" if no step shows it)."""
    cmd = shlex.split(start)
    for _ in range(10):
        proc = in_process(cmd, env, cwd)
        assert proc.returncode == 0, proc.stderr
        doc = ET.fromstring(proc.stdout)
        if doc.find("memory/FIX_FINDINGS") is not None:
            return doc.findtext("memory/FIX_FINDINGS") or ""
        found = offered(doc)
        if not found:
            return ""
        cmd = shlex.split(cmd_text(found[0])) + [
            f"--set={a.key}={a.choices[0] if a.choices else 'x'}" for a in asked(found[0])
            if a.required]
    return ""


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
    for doc, held in printed:
        prompts = [p.text or "" for p in doc.findall("DO/dispatch/prompt")]
        assert prompts, f"{work}'s fix pass dispatches nothing"
        assert len(held) == len(prompts), "every shipped dispatching loop's sub-agent has a script"
        for prompt, findings in zip(prompts, held, strict=True):
            assert prompt.startswith("This is a fix pass"), prompt[:200]
            assert SAID not in prompt and REPORTED not in prompt  # said once, in the sub-run
            carried += SAID in findings or REPORTED in findings
            # A report the reviewer left unreadable (the user chose to go on after the review
            # was redone to its cap) is named, with why, for the sub-agent to read itself.
            assert SAID in findings or ("The whole report: " in findings and (
                REPORTED in findings or UNREADABLE in findings)), findings[:600]
        said = " ".join(a.text or "" for a in actions(doc))
        assert "fix pass" not in said, said  # the banner and the prompt say it
    assert carried, f"no fix pass of {name}'s {work} handed on the review's findings"
