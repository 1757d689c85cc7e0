"""Step text made concrete: substitutions (known, escaped, unknown with a warning) and
`` !`cmd` `` context injection through the gateway, cached per run with an audit event, a
failure shown inline while the step still prints. Played through a real step script."""

from __future__ import annotations

import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skills.lib.workflow.authoring.substitution import Substituter, expand_document, variables
from skills.lib.workflow.ledger.store import Ledger
from skills.lib.workflow.protocol.schema import schema_errors

from .conftest import REPO
from .gateway_support import World
from .harness import actions, run_of
from .test_planner import Agent

SCRIPT = f"""import os, sys
sys.path.insert(0, {str(REPO / ".claude")!r})
from skills.lib.workflow import Action, Param, StepDef, Workflow, main, register_workflow
WORKFLOW = register_workflow(Workflow("demo", [
    StepDef("look", "Look around", actions=[
        "Skill ${{SKILL_DIR}}, run ${{SESSION_ID}}, for $ARGUMENTS, on ${{DATE}}; $${{KEEP}}.",
        "Count: !`python3 ${{SKILL_DIR}}/scripts/count.py` then !`git status; touch CANARY`.",
        "Say !`python3 ${{SKILL_DIR}}/scripts/fail.py` and ${{TYPO}}.",
        Action(lambda ctx: "Asked: " + ctx.params["arguments"])],
        next={{"ok": "done"}}),
    StepDef("done", "Done", actions=["Again: !`python3 ${{SKILL_DIR}}/scripts/count.py`"],
            next={{"ok": None}}),
], params=[Param("arguments", "what the user asked for")]))
if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    made = World(tmp_path)
    monkeypatch.chdir(made.workspace)
    made.script("demo", "")
    (made.skill / "scripts" / "demo.py").write_text(SCRIPT.replace("CANARY", str(made.canary)))
    # Counts its own runs in a file, so a cached result is told from a second execution.
    made.script("count.py", "import pathlib; p = pathlib.Path('runs.txt'); "
                            "n = int(p.read_text()) + 1 if p.exists() else 1; "
                            "p.write_text(str(n)); print(f'ran {n} time(s); token=ghp_' + "
                            "'a' * 36)")
    made.script("fail.py", "import sys; print('no database'); sys.exit(2)")
    made.policy_file("programs:\n  python3: {interpreter: skill, writes: true}\n")  # count.py
    made.trust()
    return made


def contexts(doc: ET.Element) -> dict[str, tuple[str | None, str]]:
    return {c.get("name", ""): (c.get("status", "ok"), c.text or "") for c in doc.iter("context")}


def test_a_step_shows_its_variables_and_its_commands_output(world: World) -> None:
    agent = Agent(world.workspace)
    script = str(world.skill / "scripts" / "demo.py")
    proc = subprocess.run([sys.executable, script, "--step", "1", "--arguments", "a review"],
                          capture_output=True, text=True, cwd=world.workspace, timeout=60)
    assert proc.returncode == 0 and schema_errors(proc.stdout) == []
    doc = ET.fromstring(proc.stdout)
    run = (run_of(doc) or "")
    first = actions(doc)[0].text or ""
    assert first == (f"Skill {world.skill}, run {run}, for a review, on "
                     f"{time.strftime('%Y-%m-%d')}; ${{KEEP}}.")
    # the unknown variable stays visible, with one warning naming it and the step
    assert "${TYPO}" in (actions(doc)[2].text or "")
    assert "unknown variable ${TYPO} (skill 'demo', step 'look')" in proc.stderr
    found = contexts(doc)
    assert found["count"][0] == "ok"
    assert "ran 1 time(s); token=[REDACTED" in found["count"][1]  # redacted
    assert found["git-status"][0] == "refused" and "shell-syntax" in found["git-status"][1]
    assert found["fail"] == ("failed", "[exit 2]\nno database")
    assert "(output in the context 'count' above)" in (actions(doc)[1]
                                                                    .text or "")
    assert not world.canary.exists()
    # Reprinted and on the next step, the same command comes from the run's cache.
    again = agent.run([sys.executable, script, "--run", run])
    done = agent.follow(again)
    assert "ran 1 time(s)" in contexts(done)["count"][1]
    assert (world.workspace / "runs.txt").read_text() == "1"
    with Ledger() as ledger:
        audit = [d for _, kind, d in ledger.events(run) if kind == "exec"]
    assert len(audit) == 3 and any(d.endswith("-> refused") for d in audit)
    # A value inside a text computed at run time is data: never substituted, never run.
    sneaky = Agent(world.workspace).run([sys.executable, script, "--step", "1", "--stateless",
                                         "--arguments", "!`ls` ${SKILL_DIR}"])
    assert actions(sneaky)[3].text == "Asked: !`ls` ${SKILL_DIR}"
    assert "ls" not in contexts(sneaky)


def test_without_a_run_each_printing_runs_the_command(world: World) -> None:
    script = str(world.skill / "scripts" / "demo.py")
    for n in (1, 2):
        doc = Agent(world.workspace).run([sys.executable, script, "--step", "done",
                                          "--stateless"])
        assert f"ran {n} time(s)" in contexts(doc)["count"][1]


def test_a_slow_command_is_cut_at_its_timeout_and_the_step_still_prints(world: World) -> None:
    world.policy_file("programs:\n  python3: {interpreter: skill, timeout: 1}\n")
    world.script("count.py", "import time; time.sleep(30)")
    world.trust()  # the skill changed: trusted again
    doc = Agent(world.workspace).run([sys.executable, str(world.skill / "scripts" / "demo.py"),
                                      "--step", "done", "--stateless"])
    status, text = contexts(doc)["count"]
    assert status == "timeout" and text.startswith("[stopped after the 1 s timeout]")


@given(st.text())
def test_substitution_never_fails_and_leaves_unknown_names_visible(text: str) -> None:
    substitute = Substituter(variables("/skill", "pa-1", "x y"), "test")
    substitute.warned.update({"A"})  # keep hypothesis quiet about stderr noise
    out = substitute(text)
    assert isinstance(out, str)
    if "$" not in text:
        assert out == text


def test_documents_get_the_arguments_appended_when_they_never_use_them() -> None:
    substitute = Substituter(variables("/s", None, "fix the login bug"), "test")
    assert expand_document("Do this.\n", substitute) == "Do this.\n\nARGUMENTS: fix the login bug\n"
    assert expand_document("Task: $ARGUMENTS[1]", substitute) == "Task: the"
