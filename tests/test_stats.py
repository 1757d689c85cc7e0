"""`skillrail stats`: per skill, how its runs went: outcomes, success rate, loops, escalations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from skills.lib.workflow import StepDef, Workflow, qr_loop
from skills.lib.workflow.tools.history import is_escalation

from .history_support import APPROVAL, approved, escalated, loaded, make_triage, started, straight
from .test_commands import GOOD, make_skills, skillrail


def stats(*args: str) -> list[dict[str, Any]]:
    proc = skillrail("stats", "--json", *args)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows


@pytest.fixture
def ledger_of_four(tmp_path: Path) -> Path:
    """A skills root with 'triage' and an unused skill 'other', and four triage runs: one
    escalated and completed, one completed straight, one abandoned, one active."""
    root, triage = make_triage(tmp_path, others={"other": GOOD.format(name="other")})
    escalated(triage)
    straight(triage)
    assert skillrail("abandon", started(triage)).returncode == 0
    started(triage)
    return root


def test_counts_runs_by_status_with_the_success_rate(ledger_of_four: Path) -> None:
    """2 completed, 1 abandoned, 1 active: success is 2 of the 3 that ended."""
    (row,) = stats("--root", str(ledger_of_four), "--skill", "triage")
    assert {k: row[k] for k in ("skill", "runs", "completed", "abandoned", "active")} == {
        "skill": "triage", "runs": 4, "completed": 2, "abandoned": 1, "active": 1}
    assert row["success_rate"] == pytest.approx(2 / 3, abs=0.001)


def test_loop_passes_average_and_worst_against_the_cap(ledger_of_four: Path) -> None:
    """Runs that left 'check' made 2 and 1 passes (cap 2); one ran out of passes."""
    (row,) = stats("--root", str(ledger_of_four), "--skill", "triage")
    assert row["loops"] == [{"workflow": "triage", "edge": "check:iterate", "cap": 2, "runs": 2,
                             "average_passes": 1.5, "worst_passes": 2, "exhausted": 1}]


def test_escalations_count_moves_into_ask_user_steps(ledger_of_four: Path) -> None:
    """The exhausted loop's move into the ask_user step 'confirm' is one escalation."""
    (row,) = stats("--root", str(ledger_of_four), "--skill", "triage")
    assert row["escalations"] == 1


def test_a_plain_move_into_a_question_is_no_escalation(tmp_path: Path) -> None:
    """Two approval runs, each moved by an ordinary edge into the ask_user step 'approve':
    no escalation, in JSON and in the table; the triage run whose loop ran out into its
    question still counts one."""
    root, triage = make_triage(tmp_path, others={"approval": APPROVAL})
    approval = loaded(root, "approval")
    approved(approval)
    approved(approval)
    escalated(triage)
    rows = {r["skill"]: r for r in stats("--root", str(root))}
    assert {name: (r["runs"], r["escalations"]) for name, r in rows.items()} == {
        "approval": (2, 0), "triage": (1, 1)}
    lines = skillrail("stats", "--root", str(root)).stdout.splitlines()
    assert lines[1].split() == ["approval", "2", "2", "0", "0", "100%", "0%", "0", "0"]


def test_a_review_loop_escalates_only_by_running_out() -> None:
    """In a qr_loop, the gate's failed last pass into '<checkpoint>-escalate' is the
    escalation; its passing move, and the escalation step's answers, are not."""
    steps = qr_loop("draft-review", work=StepDef("draft", "Draft", actions=["Draft."]),
                    review=StepDef("review", "Review", actions=["Review."]),
                    on_pass="done", limit=2)
    wf = Workflow(name="qr-escalation", steps=[
        *steps, StepDef("done", "Done", actions=["Report."], next={"ok": None})])
    assert is_escalation(wf, "draft-review-gate", "fail", "draft-review-escalate")
    assert not is_escalation(wf, "draft-review-gate", "fail", "draft")
    assert not is_escalation(wf, "draft-review-gate", "pass", "done")
    assert not is_escalation(wf, "draft-review-escalate", "accept", "done")


def test_without_the_workflow_only_the_ledger_speaks(ledger_of_four: Path,
                                                     tmp_path: Path) -> None:
    """Where discovery does not find the workflow, escalations go by step name ('confirm' is
    not '*-escalate') and loops by the ledger's counts alone, without a cap."""
    empty = make_skills(tmp_path / "empty", {})
    (row,) = stats("--root", str(empty), "--skill", "triage")
    assert row["escalations"] == 0
    assert row["loops"] == [{"workflow": "triage", "edge": "check:iterate", "cap": None,
                             "runs": 1, "average_passes": 2.0, "worst_passes": 2,
                             "exhausted": 0}]


def test_a_step_named_escalate_is_an_escalation_without_the_graph() -> None:
    """Any step id ending in '-escalate' counts, even when no workflow is known."""
    assert is_escalation(None, "plan-review-gate", "fail", "plan-review-escalate")
    assert not is_escalation(None, "report", "ok", "escalated-report")


def test_skills_without_runs_show_zero_and_na(ledger_of_four: Path) -> None:
    """A discovered skill with no runs has a row of zeros; its success rate is n/a (null)."""
    rows = {r["skill"]: r for r in stats("--root", str(ledger_of_four))}
    assert set(rows) == {"triage", "other"}
    assert (rows["other"]["runs"], rows["other"]["success_rate"]) == (0, None)
    lines = skillrail("stats", "--root", str(ledger_of_four)).stdout.splitlines()
    table = {line.split()[0]: line.split()[1:] for line in lines[1:3]}
    assert table["other"] == ["0", "0", "0", "0", "n/a", "n/a", "0", "0"]
    assert table["triage"] == ["4", "2", "1", "1", "67%", "0%", "1", "0"]


def test_unknown_skill_is_a_usage_error_with_a_suggestion(ledger_of_four: Path) -> None:
    """A misspelt --skill: exit 2, one line, did-you-mean."""
    proc = skillrail("stats", "--root", str(ledger_of_four), "--skill", "triag")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.count("\n") == 1 and "Did you mean 'triage'?" in proc.stderr
