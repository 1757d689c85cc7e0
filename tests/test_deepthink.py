"""The deepthink skill, played through as an agent would (real subprocesses, only the printed
commands): full mode with parallel perspectives, independent verification, one low-confidence
round, and the answer; plus --mode deciding the branch and refusing a value it does not know."""

from __future__ import annotations

import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from skills.lib.workflow.protocol.schema import schema_errors

from .conftest import SKILLS_ROOT
from .harness import cmd_text, decided, notes, offered, outcome_of

SCRIPT = SKILLS_ROOT / "deepthink" / "scripts" / "deepthink.py"
QUESTION = "Should we split billing into a service?"


def run(argv: list[str], cwd: Path) -> tuple[ET.Element, int]:
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert schema_errors(proc.stdout) == []
    return ET.fromstring(proc.stdout), len(proc.stdout)


def follow(doc: ET.Element, cwd: Path, outcome: str | None = None,
           **values: str) -> tuple[ET.Element, int]:
    found = [i for i in offered(doc) if outcome in (None, outcome_of(i))]
    assert len(found) == 1
    argv = shlex.split(cmd_text(found[0]))
    return run(argv + [a for k, v in values.items() for a in ("--set", f"{k}={v}")], cwd)


def test_a_full_run_argues_verifies_and_answers(tmp_path: Path) -> None:
    doc, size = run([sys.executable, str(SCRIPT), "--step", "1", "--question", QUESTION],
                    tmp_path)
    printed = [size]
    path = [doc.get("id")]

    def step(outcome: str | None = None, **values: str) -> ET.Element:
        nonlocal doc
        doc, size = follow(doc, tmp_path, outcome, **values)
        printed.append(size)
        path.append(doc.get("id"))
        return doc

    step(FRAME="asked: split or not; known: billing changes weekly",
         QUESTION_TYPE="judgement", MODE="full")
    # The script takes the chosen mode on the agent's behalf: no turn for it.
    assert doc.get("id") == "perspectives" and decided(doc) == [("route", "full")]
    assert notes(doc) == ["Mode: full."]
    step(PERSPECTIVES="billing team\norders team\noperations")
    prompts = [p.text or "" for p in doc.iter("prompt")]
    assert doc.get("id") == "argue" and len(prompts) == 3
    assert "Your item: orders team" in prompts[1] and "perspective.py --step 1" in prompts[1]
    step(ARGUMENTS="billing: split; orders: keep; ops: keep")
    step(COMMON_GROUND="shared tables must be cut first either way",
         DISAGREEMENTS="how often billing and orders change together")
    step(DRAFT="Not yet: cut the shared tables first.",
         CHECKS="How many commits touched both billing/ and orders/?")
    assert "- CHECKS: How many commits" in doc.findtext("DO/dispatch/prompt", "")
    assert "Not yet" not in doc.findtext("DO/dispatch/prompt", "")  # the verifier never sees it
    step(ANSWERS="41% of billing commits")
    step("gather", REVISED="Not yet (41% of billing commits touch orders).",
         CONFIDENCE="medium", NEEDED="which queries join the tables: grep")
    assert doc.get("id") == "gather"
    step(EVIDENCE="3 queries join billing and orders")
    assert doc.get("id") == "revise"
    assert doc.find("memory/EVIDENCE") is None  # just reported, not echoed
    step("answer", REVISED="Not yet: 41% of commits and 3 queries couple them.",
         CONFIDENCE="high", OPEN_QUESTIONS="can the team run a second pipeline?")
    assert path[-1] == "answer" and doc.find("NEXT/complete") is not None
    shown = {i.tag: i.text for i in doc.iterfind("memory/*")}
    # The answer reads what earlier steps recorded; of the values just reported, the one its
    # text names (CONFIDENCE) is shown, the other (the open questions) is not echoed.
    assert "3 queries join" in shown["EVIDENCE"] and "second pipeline" not in str(shown)
    assert shown.get("CONFIDENCE") == "high" and "OPEN_QUESTIONS" not in shown
    print(f"deepthink full path: {len(printed)} steps, {sum(printed)} characters")


def test_the_mode_flag_decides_the_branch(tmp_path: Path) -> None:
    doc, _ = run([sys.executable, str(SCRIPT), "--step", "1", "--question", QUESTION,
                  "--mode", "quick"], tmp_path)
    assert "The mode was given: quick" in "".join(doc.find("DO").itertext())
    doc, _ = follow(doc, tmp_path, FRAME="f", QUESTION_TYPE="explanation", MODE="quick")
    assert doc.get("id") == "draft" and decided(doc) == [("route", "quick")]


def test_an_unknown_mode_is_refused_with_the_choices(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--step", "1", "--question", QUESTION,
                           "--mode", "deep"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("error: --mode deep is not one of the choices. Use one of: auto, "
                           "quick, full\n")
