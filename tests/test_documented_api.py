"""The original system's documented API works as documented (issue 18): each example script of
tests/documented_examples.py is dropped into a skill folder of a temporary checkout and run as
a subprocess, the way an agent runs it. Each prints a well-formed step (XML valid against the
protocol's schema) or is refused at registration with its finding and fix; none raises."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.protocol.reading import lines
from skills.lib.workflow.protocol.schema import schema_errors

from . import documented_examples as examples
from .conftest import SKILLS_ROOT
from .harness import actions, cmd_text, decided, first_action, offered, outcome_of, run_of
from .harness import banner as read_banner
from .harness import notes as read_notes
from .test_commands import make_skills, skillrail
from .test_skills import BOOTSTRAP

BOOT = BOOTSTRAP.rstrip("\n")


def checkout(tmp_path: Path, **scripts: str) -> Path:
    """A temporary checkout with one skill folder per script (name -> source)."""
    sources = {name.replace("_", "-"): source.format(bootstrap=BOOT)
               for name, source in scripts.items()}
    return make_skills(tmp_path, sources)


def script_of(root: Path, name: str) -> Path:
    return root / name / "scripts" / f"{name}.py"


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """One command, as an agent runs it: it must not print a traceback."""
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def step(argv: list[str], cwd: Path) -> ET.Element:
    """Run a printed command; it must print one schema-valid step."""
    proc = run(argv, cwd)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert schema_errors(proc.stdout) == []
    return ET.fromstring(proc.stdout)


def commands(doc: ET.Element) -> dict[str | None, list[str]]:
    """Each invoke's command, by outcome (None for a single one)."""
    found = offered(doc)
    return {outcome_of(i) if len(found) > 1 else None: shlex.split(cmd_text(i))
            for i in found}


def test_a_two_step_text_skill_prints_plain_text_steps(tmp_path: Path) -> None:
    root = checkout(tmp_path, bisect_notes=examples.TEXT_STEPS)
    script = str(script_of(root, "bisect-notes"))
    first = run([sys.executable, script, "--step", "1", "--total-steps", "2"], tmp_path)
    last = run([sys.executable, script, "--step", "2", "--total-steps", "2"], tmp_path)
    assert (first.returncode, first.stderr, last.returncode, last.stderr) == (0, "", 0, "")
    assert first.stdout.startswith("STEP 1 of 2: Find a good and a bad commit\n")
    assert "Narrow a regression to one commit." in first.stdout
    assert "1. Name one commit" in first.stdout and "2. Write both hashes" in first.stdout
    assert "NEXT: step 2 of 2, Bisect between them." in first.stdout
    assert "NEXT: this is the last step." in last.stdout and "<" not in last.stdout


class TestTheOriginalShape:
    """A script with its own argparse prints the formatters' documents; every command they
    print is one its parser accepts, and the review loop ends."""

    def walk(self, tmp_path: Path, verdicts: list[str]) -> list[ET.Element]:
        """Follow the printed commands from step 1, answering each review with the next
        verdict (through the gate's verdict commands, as the document asks)."""
        root = checkout(tmp_path, release_notes=examples.QR_GATE)
        doc = step([sys.executable, str(script_of(root, "release-notes")), "--step", "1",
                    "--total-steps", "4"], tmp_path)
        seen = [doc]
        answers = iter(verdicts)
        while doc.find("NEXT/complete") is None and len(seen) < 40:
            cmds = commands(doc)
            doc = step(cmds[next(answers)] if set(cmds) == {"pass", "fail"} else cmds[None],
                       tmp_path)
            seen.append(doc)
        return seen

    def test_a_review_that_passes_goes_on_to_publish(self, tmp_path: Path) -> None:
        seen = self.walk(tmp_path, ["pass"])
        assert [d.get("title") for d in seen] == [
            "Draft", "Review the draft", "Notes gate", "Notes gate", "Publish"]
        assert seen[1].findtext("banner") == "NOTES REVIEW: Review the work for issues."
        assert "The notes are ready." in (first_action(seen[3]) or "")

    def test_failed_reviews_count_their_iterations_and_end_with_the_user(
            self, tmp_path: Path) -> None:
        """Each failed review sends the work back in fix mode with the next iteration; after
        the fifth the document ends and hands the findings to the user."""
        seen = self.walk(tmp_path, ["fail"] * 5)
        reviews = [d for d in seen if d.get("title") == "Review the draft"]
        assert reviews[0].findtext("banner") == "NOTES REVIEW: Review the work for issues."
        assert [str(read_banner(d.find("banner")).n) for d in reviews[1:]] == ["2", "3", "4", "5"]
        second = reviews[1].findtext("banner") or ""
        assert "iteration 2" in second and "fresh review" in second
        fixes = [d for d in seen if d.get("title") == "Draft"][1:]
        assert all(read_banner(d.find("banner")).mode == "fix" for d in fixes) and len(fixes) == 4
        assert "failed on all 5 passes" in (seen[-1].findtext("NEXT/complete") or "")
        banners = [d.find("banner") for d in seen if d.find("banner") is not None]
        # One loop, one name (the first review's banner is the original's own words).
        assert {read_banner(b).loop for b in banners} - {None} == {"notes-review"}


def test_the_documented_form_runs_and_keeps_the_step_state(tmp_path: Path) -> None:
    """Workflow("name", StepDef(...), ...): the mode param branches, and the confidence loop's
    handler returns (Outcome, dict) and reads its state back on its second pass."""
    root = checkout(tmp_path, triage=examples.TRIAGE)
    script = str(script_of(root, "triage"))
    quick = step([sys.executable, script, "--step", "scope", "--mode", "quick"], tmp_path)
    assert (quick.get("id"), decided(quick)[0][1]) == ("verdict", "skip")
    doc = step([sys.executable, script, "--step", "scope"], tmp_path)
    notes = []
    for confidence in ("low", "low", "high"):
        assert doc.get("id") == "investigate"
        doc = step(commands(doc)[None] + ["--set", f"CONFIDENCE={confidence}"], tmp_path)
        notes.append(read_notes(doc)[0])
    assert notes == ["Assessed on pass 1.", "Assessed on pass 2.", "Assessed on pass 3."]
    assert doc.get("id") == "verdict" and decided(doc)[0][1] == "ok"
    shown = skillrail("show", run_of(doc) or "", "step_state:assess", cwd=tmp_path)
    assert json.loads(shown.stdout) == {"iteration": 4}, shown.stderr


def test_composed_blocks_become_the_steps_parts(tmp_path: Path) -> None:
    """Formatter blocks in actions print as the elements they stand for, not as text."""
    root = checkout(tmp_path, api_audit=examples.COMPOSED)
    script = str(script_of(root, "api-audit"))
    first = step([sys.executable, script, "--step", "collect"], tmp_path)
    said = lines(first.find("DO"))
    assert [x.text for x in said if x.kind == "forbidden"] == [
        "Do not edit the API while auditing it."]
    assert any("METHOD PATH" in x.text for x in said if x.kind == "expected")
    assert "pagination" in "".join(a.text or "" for a in actions(first))
    second = step(commands(first)[None], tmp_path)
    assert second.find("DO/dispatch").get("agent") == "explore"
    assert "without rereading the claim" in (first_action(second) or "")


def test_an_unbounded_documented_loop_is_refused_with_the_fix(tmp_path: Path) -> None:
    root = checkout(tmp_path, hunch=examples.UNBOUNDED)
    proc = run([sys.executable, str(script_of(root, "hunch")), "--step", "investigate"],
               tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "W007" in proc.stderr and "Rework" in proc.stderr


def test_a_dispatch_handler_lets_the_reviewers_verdict_decide(tmp_path: Path) -> None:
    """handler=Dispatch(agent=AgentRole.QUALITY_REVIEWER): the step dispatches the reviewer
    with the step's actions as its brief, and offers one command per verdict."""
    root = checkout(tmp_path, migration_check=examples.REVIEWED)
    script = str(script_of(root, "migration-check"))
    first = step([sys.executable, script, "--step", "write"], tmp_path)
    review = step(commands(first)[None], tmp_path)
    dispatch = review.find("DO/dispatch")
    assert dispatch is not None and dispatch.get("agent") == "quality-reviewer"
    prompt = dispatch.findtext("prompt") or ""
    assert "rollback are inverse" in prompt and "PASS or FAIL" in prompt
    assert {outcome_of(i): i.get("when") for i in offered(review)} == {
        "ok": "the sub-agent's verdict is PASS", "fail": "the sub-agent's verdict is FAIL"}


def test_the_planners_shared_import_is_the_documented_formatters(tmp_path: Path) -> None:
    root = checkout(tmp_path, planner=examples.PLANNER_SHARED)
    (root / "planner" / "scripts" / "shared").symlink_to(
        SKILLS_ROOT / "planner" / "scripts" / "shared")
    doc = step([sys.executable, str(script_of(root, "planner"))], tmp_path)
    assert doc.get("title") == "Outline the plan" and doc.find("NEXT/complete") is not None


class TestTheCommandsOnTheDocumentedForm:
    """validate, describe, graph and simulate on a skill in the documented form."""

    @pytest.fixture
    def root(self, tmp_path: Path) -> Path:
        return checkout(tmp_path, triage=examples.TRIAGE, migration_check=examples.REVIEWED)

    def test_validate_and_describe(self, root: Path) -> None:
        valid = skillrail("validate", "--root", str(root))
        assert valid.returncode == 0, valid.stdout + valid.stderr
        described = skillrail("describe", "triage", "--root", str(root))
        assert described.returncode == 0, described.stderr
        assert "iterate -> investigate  rework, at most 3 passes, then verdict" in \
            described.stdout
        assert "assess  Assess  [script-decided]" in described.stdout

    def test_graph(self, root: Path) -> None:
        drawn = skillrail("graph", "triage", "--root", str(root))
        assert drawn.returncode == 0, drawn.stderr
        assert "investigate" in drawn.stdout and "assess" in drawn.stdout

    @pytest.mark.slow  # every edge, each step in a process
    def test_simulate_walks_every_edge(self, root: Path) -> None:
        """The reviewed skill's edges in one all-edges simulation; the triage's in random
        walks of each mode together (its loop's exhaustion needs three low confidences in one
        walk, and its quick edge the other mode)."""
        sim = skillrail("simulate", "migration-check", "--root", str(root), "--json")
        assert sim.returncode == 0, sim.stdout + sim.stderr
        untaken = []
        for mode in ("thorough", "quick"):
            sim = skillrail("simulate", "triage", "--root", str(root), "--param",
                            f"mode={mode}", "--paths", "random", "--walks", "20", "--json")
            assert sim.returncode == 0, sim.stdout + sim.stderr
            [report] = json.loads(sim.stdout)
            assert report["failures"] == [] and report["longest"] <= report["bound"]
            untaken.append({tuple(edge) for edge in report["untaken"]})
        assert untaken[0] & untaken[1] == set()


def test_the_bootstrap_lines_find_skills_at_either_depth(tmp_path: Path) -> None:
    """skills/_bootstrap.py documents the pattern; its function agrees with the two lines."""
    from skills._bootstrap import skills_parent

    for script in ("skills/a/scripts/a.py", "skills/a/scripts/qr/b.py"):
        path = tmp_path / ".claude" / script
        assert skills_parent(str(path)) == str((tmp_path / ".claude").resolve())


BROKEN_HANDLERS = '''#!/usr/bin/env python3
"""Broken: handlers that break their contract, to see the runner refuse them."""
{bootstrap}
import sys

from skills.lib.workflow import main
from skills.lib.workflow.core import Outcome, StepContext, StepDef, Workflow, register_workflow


def unkeepable(ctx: StepContext):
    return Outcome.OK, {{"seen": {{"a set"}}}}


def unmapped(ctx: StepContext):
    return Outcome.ITERATE


WORKFLOW = Workflow(
    "broken",
    StepDef(id="start", title="Start", actions=["Begin."], next={{Outcome.OK: "keep"}}),
    StepDef(id="keep", title="Keep", handler=unkeepable, next={{Outcome.OK: "route"}}),
    StepDef(id="route", title="Route", handler=unmapped, next={{Outcome.OK: None}}),
)
register_workflow(WORKFLOW)

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


@pytest.mark.parametrize(("fix", "message", "at"), [
    (None, "the handler's step state cannot be kept: Object of type set is not JSON "
           "serializable", "keep"),
    ("{{\"seen\": [\"a list\"]}}", "the handler returned outcome 'iterate', which the step does "
                                   "not map", "route"),
])
def test_a_handler_breaking_its_contract_is_one_error_line_and_the_run_stays(
        tmp_path: Path, fix: str | None, message: str, at: str) -> None:
    """A state that cannot be kept, an outcome next does not map: exit 1, one line naming the
    step, no traceback; the agent's own (legal) move is kept, the script's decision is not."""
    source = BROKEN_HANDLERS if fix is None else BROKEN_HANDLERS.replace(
        '{{"seen": {{"a set"}}}}', fix)
    root = checkout(tmp_path, broken=source)
    first = step([sys.executable, str(script_of(root, "broken")), "--step", "start"], tmp_path)
    proc = run(commands(first)[None], tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.count("\n") == 1 and message in proc.stderr
    assert "This is a bug in the skill" in proc.stderr
    trace = skillrail("trace", run_of(first) or "", cwd=tmp_path)
    assert f"active at '{at}'" in trace.stdout, trace.stdout + trace.stderr
    again = run(commands(first)[None], tmp_path)  # the same command: the same refusal
    assert (again.returncode, again.stderr) == (1, proc.stderr)
