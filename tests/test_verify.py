"""Verification gates: a `verify=` step is decided by its check's exit status through the
gateway, as the run passes it; the output's tail reaches the fix step's memory; the agent
cannot take the pass the check did not give; the loop is bounded; W018 catches what can never
run."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from skills.lib.workflow import InvalidWorkflow, Rework, StepDef, Workflow, register_workflow
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.model import marked

from .conftest import REPO
from .gateway_support import HAS_BWRAP, World
from .harness import decided, next_cmd_text, notes
from .test_planner import Agent

SCRIPT = f"""import os, sys
sys.path.insert(0, {str(REPO / ".claude")!r})
from skills.lib.workflow import Action, Arg, Rework, StepDef, Workflow, main, register_workflow
WORKFLOW = register_workflow(Workflow("gated", [
    StepDef("change", "Make the change", actions=["Edit the code."], next={{"ok": "check"}}),
    StepDef("check", "Run the tests", verify="python3 ${{SKILL_DIR}}/scripts/tests.py ${{TARGET}}",
            next={{"ok": "report", "fail": "fix"}}),
    StepDef("fix", "Fix what failed", reads=("VERIFY_OUTPUT",), actions=["Fix it."],
            next={{"ok": Rework("check", 2, "stuck")}}),
    StepDef("stuck", "Tell the user", actions=[Action("Say what still fails.", out="reply")],
            next={{"ok": None}}),
    StepDef("report", "Report", actions=[Action("Say it passes.", out="reply")],
            next={{"ok": None}}),
], params=[]))
if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
"""
# The check: passes once the file 'fixed' exists; its output ends with the failure's cause.
CHECK = ("import os, sys\nprint('collected 12 items')\nprint('x' * 9000)\n"
         "ok = os.path.exists('fixed')\nprint('all passed' if ok else 'FAILED test_total: "
         "expected 3, got 4')\nsys.exit(0 if ok else 1)")


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[World, Agent]:
    world = World(tmp_path)
    monkeypatch.chdir(world.workspace)
    (world.skill / "scripts" / "gated.py").write_text(SCRIPT.replace(" ${TARGET}", ""))
    world.script("tests.py", CHECK)
    world.trust()
    return world, Agent(world.workspace)


def start(world: World, agent: Agent) -> object:
    return agent.run([sys.executable, str(world.skill / "scripts" / "gated.py"), "--step", "1"])


def test_a_failing_check_routes_to_the_fix_step_with_its_output(agent: tuple) -> None:
    """The check runs as the run passes it: the fix step is printed, naming the check's
    failure, with the output's tail in its memory; claiming the pass instead is refused."""
    world, player = agent
    fix = player.follow(start(world, player))  # type: ignore[arg-type]
    assert (fix.get("id"), decided(fix)) == ("fix", [("check", "fail")])
    assert " ".join(notes(fix)).startswith("[exit 1]")
    memory = fix.findtext("memory/VERIFY_OUTPUT", "")
    assert memory.endswith("expected 3, got 4") and memory.startswith("[exit 1]")
    assert "[... earlier output cut]" in memory
    # Claiming the pass instead is refused, and the run stays where it is.
    cmd = shlex.split(next_cmd_text(fix).replace("--step check",
                                                                  "--step report"))
    refused = subprocess.run(cmd, capture_output=True, text=True, cwd=world.workspace)
    assert refused.returncode == 3 and "'report' does not follow it" in refused.stderr
    (world.workspace / "fixed").write_text("")
    report = player.follow(fix)
    assert (report.get("id"), decided(report)) == ("report", [("check", "ok")])


def test_a_check_that_keeps_failing_ends_the_loop(agent: tuple) -> None:
    """Each failing check leads back to the fix step, until the loop's passes are used up."""
    world, player = agent
    doc = player.follow(start(world, player))  # type: ignore[arg-type]
    seen = []
    while doc.find("NEXT/complete") is None:
        seen.append((doc.get("id"), decided(doc)))
        doc = player.follow(doc)
    assert seen == [("fix", [("check", "fail")])] * 2
    assert (doc.get("id"), decided(doc)) == ("stuck", [])  # the fix's loop edge used up


def test_a_refused_check_fails_and_says_which_rule(agent: tuple) -> None:
    """A check the policy refuses is a failure, and the fix step sees which rule refused it."""
    world, player = agent
    world.policy_file("defaults: false\nprograms:\n  git: {subcommands: {status: {}}}\n")
    fix = player.follow(start(world, player))  # type: ignore[arg-type]
    assert decided(fix) == [("check", "fail")]
    assert "rule 'not-in-policy'" in fix.findtext("memory/VERIFY_OUTPUT", "")


def test_the_decided_note_says_how_the_check_ended_or_why_it_did_not_run(
        agent: tuple) -> None:
    """The author's note of a check step is followed by the check's end (`[exit 1]`), and
    left out when the check did not run at all: 'The tests ran' would not be true."""
    world, player = agent
    script = world.skill / "scripts" / "gated.py"
    script.write_text(script.read_text().replace(
        'StepDef("check", "Run the tests", ', 'StepDef("check", "Run the tests", '
        'actions=["The tests ran."], '))
    world.trust()
    fix = player.follow(start(world, player))  # type: ignore[arg-type]
    assert " ".join(notes(fix)) == "The tests ran. [exit 1]"
    (world.workspace / "fixed").write_text("")
    assert " ".join(notes(player.follow(fix))) == "The tests ran. [exit 0]"
    (world.workspace / "fixed").unlink()
    world.script("tests.py", CHECK + "\n")  # a change to the skill revokes its trust
    fix = player.follow(start(world, player))  # type: ignore[arg-type]
    said = " ".join(notes(fix))
    assert decided(fix) == [("check", "fail")] and said.startswith("the check was not run: ")
    assert "has changed since the user trusted it" in said and "The tests ran" not in said


@pytest.mark.parametrize("step, expected", [
    (StepDef("c", "C", verify="pytest -q | tee log", next={"ok": None, "fail": None}),
     "verify command would be refused by the gateway's rule 'shell-syntax'"),
    (StepDef("c", "C", verify="pytest", handler=lambda ctx: "ok",
             next={"ok": None, "fail": None}), "both verify and a handler"),
])
def test_w018_catches_a_check_that_cannot_work(step: StepDef, expected: str) -> None:
    with pytest.raises(InvalidWorkflow) as bad:
        register_workflow(Workflow("w018-demo", [step]))
    unregister("w018-demo")
    assert any(f.code == "W018" and expected in f.message for f in bad.value.findings)


def test_a_check_may_use_variables_and_stays_valid(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "t.py").write_text("")
    wf = register_workflow(marked(Workflow("w018-fine", [
        StepDef("c", "C", verify="python3 ${SKILL_DIR}/scripts/t.py --k ${NAME}",
                next={"ok": None, "fail": "d"}),
        StepDef("d", "D", reads=("VERIFY_OUTPUT",), actions=["x"],
                next={"ok": Rework("c", 2, "e")}),
        StepDef("e", "E", actions=["y"], next={"ok": None})]),
            source=str(tmp_path / "scripts" / "w.py")))
    unregister("w018-fine")
    assert wf.by_id["c"].decided_by == "script"


def test_w012_catches_a_verify_script_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(InvalidWorkflow) as bad:
        register_workflow(marked(Workflow("w012-verify", [
            StepDef("c", "C", verify="python3 ${SKILL_DIR}/scripts/nope.py",
                    next={"ok": None, "fail": None})]), source=str(tmp_path / "scripts" / "x.py")))
    unregister("w012-verify")
    assert any(f.code == "W012" and "runs scripts/nope.py" in f.message
               for f in bad.value.findings)


@pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap is not installed (apt-get install "
                                          "bubblewrap)")
def test_a_check_that_runs_the_projects_tests_works_in_the_sandbox(agent: tuple) -> None:
    """`python3 -m pytest -q test_calc.py`, allowed by the project's policy, decides the step inside
    bubblewrap: it fails on a failing test, and passes once the code is fixed."""
    world, player = agent
    script = world.skill / "scripts" / "gated.py"
    script.write_text(script.read_text().replace(
        "python3 ${SKILL_DIR}/scripts/tests.py", "python3 -m pytest -q test_calc.py"))
    world.unrestricted()  # its allowed-tools name only its own scripts
    world.policy_file("sandbox: required\nprograms:\n  python3: {interpreter: skill, modules: "
                      "[pytest], writes: true, timeout: 300}\n")
    world.trust()
    (world.workspace / "calc.py").write_text("def total():\n    return 4\n")
    (world.workspace / "test_calc.py").write_text(
        "from calc import total\n\ndef test_total():\n    assert total() == 3\n")
    fix = player.follow(start(world, player))  # type: ignore[arg-type]
    assert (fix.get("id"), decided(fix)) == ("fix", [("check", "fail")])
    output = fix.findtext("memory/VERIFY_OUTPUT", "")
    assert "1 failed" in output and "assert 4 == 3" in output
    # A different size: the failing run cached calc.py's bytecode, which Python trusts while
    # the source keeps its size and its mtime's second (a same-size fix within that second
    # made this test flaky).
    (world.workspace / "calc.py").write_text("def total():\n    return 3  # fixed\n")
    report = player.follow(fix)
    assert (report.get("id"), decided(report)) == ("report", [("check", "ok")])
