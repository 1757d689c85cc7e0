"""Verification gates: a `verify=` step is decided by its check's exit status through the
gateway; the output's tail reaches the fix step's memory; the agent cannot take the pass the
check did not give; the loop is bounded; W018 catches what can never run."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from skills.lib.workflow import InvalidWorkflow, Rework, StepDef, Workflow, register_workflow
from skills.lib.workflow.authoring.registry import unregister

from .conftest import REPO
from .gateway_support import HAS_BWRAP, World
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
    world, player = agent
    doc = player.follow(start(world, player))  # type: ignore[arg-type]
    assert doc.get("id") == "check"
    verify = doc.find("DO/context[@name='verify']")
    assert verify is not None and verify.get("status") == "failed"
    assert (verify.text or "").endswith("FAILED test_total: expected 3, got 4")
    assert "[... earlier output cut]" in (verify.text or "")
    assert [i.get("outcome") for i in doc.findall("NEXT/invoke")] == [None]
    assert "--outcome fail" in doc.findtext("NEXT/invoke/cmd", "")
    # Claiming the pass instead is refused, and the run stays where it is.
    cmd = shlex.split(doc.findtext("NEXT/invoke/cmd", "").replace("--step fix", "--step report")
                      .replace("--outcome fail", "--outcome ok"))
    import subprocess

    refused = subprocess.run(cmd, capture_output=True, text=True, cwd=world.workspace)
    assert refused.returncode == 3 and "decided by the script as 'fail'" in refused.stderr
    fix = player.follow(doc)
    memory = fix.findtext("memory/item[@key='VERIFY_OUTPUT']", "")
    assert memory.endswith("expected 3, got 4") and memory.startswith("[exit 1]")
    (world.workspace / "fixed").write_text("")
    passed = player.follow(fix)
    assert passed.find("DO/context[@name='verify']").get("status") == "ok"  # type: ignore
    assert player.follow(passed).get("id") == "report"


def test_a_check_that_keeps_failing_ends_the_loop(agent: tuple) -> None:
    world, player = agent
    doc = player.follow(start(world, player))  # type: ignore[arg-type]
    seen = []
    while doc.find("NEXT/complete") is None:
        seen.append(doc.get("id"))
        doc = player.follow(doc)
    assert seen == ["check", "fix", "check", "fix"] and doc.get("id") == "stuck"


def test_a_refused_check_fails_and_says_which_rule(agent: tuple) -> None:
    world, player = agent
    world.policy_file("defaults: false\nprograms:\n  git: {subcommands: {status: {}}}\n")
    doc = player.follow(start(world, player))  # type: ignore[arg-type]
    verify = doc.find("DO/context[@name='verify']")
    assert verify is not None and verify.get("status") == "refused"
    assert "rule 'not-in-policy'" in (verify.text or "")
    assert "--outcome fail" in doc.findtext("NEXT/invoke/cmd", "")


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
    wf = register_workflow(Workflow("w018-fine", [
        StepDef("c", "C", verify="python3 ${SKILL_DIR}/scripts/t.py --k ${NAME}",
                next={"ok": None, "fail": Rework("c", 2, "d")}),
        StepDef("d", "D", reads=("VERIFY_OUTPUT",), actions=["x"], next={"ok": None})],
        source=str(tmp_path / "scripts" / "w.py")))
    unregister("w018-fine")
    assert wf.by_id["c"].decided_by == "script"


def test_w012_catches_a_verify_script_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(InvalidWorkflow) as bad:
        register_workflow(Workflow("w012-verify", [
            StepDef("c", "C", verify="python3 ${SKILL_DIR}/scripts/nope.py",
                    next={"ok": None, "fail": None})], source=str(tmp_path / "scripts" / "x.py")))
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
    check = player.follow(start(world, player))  # type: ignore[arg-type]
    verify = check.find("DO/context[@name='verify']")
    assert check.get("id") == "check" and verify is not None
    assert verify.get("status") == "failed" and "1 failed" in (verify.text or "")
    assert "assert 4 == 3" in (verify.text or "")
    fix = player.follow(check)
    (world.workspace / "calc.py").write_text("def total():\n    return 3\n")
    again = player.follow(fix)
    verify = again.find("DO/context[@name='verify']")
    assert verify is not None and verify.get("status") == "ok" and "1 passed" in (verify.text
                                                                                  or "")
    assert player.follow(again).get("id") == "report"
