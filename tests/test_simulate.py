"""`skillrail simulate`: walks real step scripts, reports coverage and the longest run, and
names the exact command of a failure."""

from __future__ import annotations

import json
from pathlib import Path

from .test_commands import BOOTSTRAP, make_skills, skillrail

#: A script-decided step whose handler crashes: the command reaching it fails.
BROKEN = BOOTSTRAP + '''
from skills.lib.workflow import StepDef, Workflow, decides, main, register_workflow

@decides("ok")
def check(ctx):
    raise RuntimeError("the check script is missing")

WORKFLOW = register_workflow(Workflow(name="broken", steps=[
    StepDef("start", "Start", actions=["Begin."], next={"ok": "check"}),
    StepDef("check", "Check", handler=check, next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''

#: A handler that never returns one of its declared outcomes: that edge stays untaken.
LOPSIDED = BOOTSTRAP + '''
from skills.lib.workflow import StepDef, Workflow, decides, main, register_workflow

@decides("same", "other")
def pick(ctx):
    return "same"

WORKFLOW = register_workflow(Workflow(name="lopsided", steps=[
    StepDef("pick", "Pick", handler=pick, next={"same": "done", "other": "rare"}),
    StepDef("rare", "Rare", actions=["Rarely."], next={"ok": "done"}),
    StepDef("done", "Done", actions=["End."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


def test_several_names_are_simulated_in_turn() -> None:
    """Names given together are each walked (test_skills covers every shipped workflow)."""
    result = skillrail("simulate", "reconciliation", "explore", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [r["workflow"] for r in json.loads(result.stdout)] == ["reconciliation", "explore"]


def test_a_failing_command_is_reported_exactly(tmp_path: Path) -> None:
    """The failure names the command an agent would have run and its error line."""
    root = make_skills(tmp_path, {"broken": BROKEN})
    result = skillrail("simulate", "broken", "--root", str(root))
    assert result.returncode == 1
    failed = result.stdout.splitlines()
    assert any("FAILED: exit 1: error: the handler raised RuntimeError: the check script is "
               "missing (skill 'broken', step 'check'" in line for line in failed)
    command = next(line for line in failed if line.strip().startswith("command:"))
    assert "--step check" in command and "--run" in command


def test_an_edge_no_walk_can_take_fails_all_edges(tmp_path: Path) -> None:
    root = make_skills(tmp_path, {"lopsided": LOPSIDED})
    result = skillrail("simulate", "lopsided", "--root", str(root), "--json")
    assert result.returncode == 1
    (report,) = json.loads(result.stdout)
    assert ["pick", "other", "rare"] in report["untaken"] and report["failures"] == []


def test_random_walks_are_reproducible_and_survive_awkward_values() -> None:
    """The same seed walks the same edges; free-text args carry quotes, newlines and $()."""
    args = ("simulate", "decision-critic", "--paths", "random", "--walks", "2", "--json")
    first, again = skillrail(*args, "--seed", "7"), skillrail(*args, "--seed", "7")
    assert first.returncode == 0, first.stdout
    assert json.loads(first.stdout) == json.loads(again.stdout)


def test_a_name_and_all_together_is_a_usage_error() -> None:
    result = skillrail("simulate", "problem-analysis", "--all")
    assert result.returncode == 2 and "name skills or workflows, or give --all" in result.stderr


REPORTED = BOOTSTRAP + '''
from skills.lib.workflow import StepDef, Workflow, main, qr_loop, register_workflow

WORKFLOW = register_workflow(Workflow(name="reported", steps=[
    *qr_loop("review", work=StepDef("draft", "Draft", actions=["Draft it."]),
             review=StepDef("check", "Review", actions=["Review it."]),
             on_pass="done", limit=2, report="reports/review.json"),
    StepDef("done", "Done", actions=["End."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


def test_a_gate_that_reads_a_file_is_walked_both_ways(tmp_path: Path) -> None:
    """The gate's own `prepare` writes the report each outcome needs, so a walk covers pass,
    fail and redo while the handler still decides from the file."""
    root = make_skills(tmp_path, {"reported": REPORTED})
    result = skillrail("simulate", "reported", "--root", str(root), "--json")
    (report,) = json.loads(result.stdout)
    assert result.returncode == 0, report
    assert report["coverage"] == 1 and report["untaken"] == []
