"""A run's life in the ledger, through real step scripts: reprints change nothing, finished runs
and runs whose graph changed are refused, script-decided steps record their decision, sub-runs
belong to their parent, and a ledger of a newer schema is refused (issue 3)."""

from __future__ import annotations

import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from skills.lib.workflow.ledger.listing import page
from skills.lib.workflow.ledger.store import SCHEMA_VERSION, Ledger

from ..harness import cmd_text, decided, first_action, invoke, run_of
from ..hooks_support import SKILLRAIL, env
from .support import (
    DRAFT_NEXT_WITH_SKIP,
    call,
    command,
    follow,
    one_error_line,
    printed,
    raw,
    refused,
    reprint_of,
    resume,
    schema_version,
    start,
    state,
    step,
    to_finish,
    to_review,
    to_score,
    write_script,
)


class TestReprint:
    """Naming the current step again, or --resume, reprints it and advances nothing."""

    def test_reinvoking_the_current_step_reprints_it_and_advances_nothing(
            self, script: Path) -> None:
        """`--step review --run ID` at review reprints it (with the full mandate); hops and
        transitions are unchanged."""
        review = to_review(script)
        run_id = str(run_of(review))
        before = state(run_id)
        again = step(script, "--step", "review", "--run", run_id)
        assert reprint_of(printed(again), review)
        after = state(run_id)
        assert (after.hops, after.transitions) == (before.hops, before.transitions)
        assert after == before

    def test_resume_reprints_the_current_step_and_advances_nothing(self, script: Path) -> None:
        """`--run ID --resume`, twice, prints the current step each time; the run stays."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second")
        run_id = str(run_of(review))
        before = state(run_id)
        first = resume(script, run_id)
        assert reprint_of(first, review)
        assert ET.tostring(resume(script, run_id)) == ET.tostring(first)
        assert state(run_id) == before

    def test_the_current_step_by_number_also_reprints(self, script: Path) -> None:
        """`--step 3` names review as well as `--step review` does."""
        review = to_review(script)
        run_id = str(run_of(review))
        before = state(run_id)
        assert printed(step(script, "--step", "3", "--run", run_id)).get("id") == "review"
        assert state(run_id) == before


class TestFinishedRun:
    """A completed run takes no further step but can still be looked at."""

    def test_a_completed_run_refuses_a_further_step(self, script: Path) -> None:
        """Any step of a completed run: exit 3, saying the run is completed, offering a new
        run."""
        finish = to_finish(script)
        run_id = str(run_of(finish))
        before = state(run_id)
        assert before.status == "completed"
        lines = refused(step(script, "--step", "start", "--run", run_id), 3)
        assert f"run {run_id} is completed" in lines[0]
        assert shlex.split(lines[1])[2:] == ["--step", "start"]
        assert state(run_id) == before

    def test_resume_of_a_completed_run_reprints_its_last_step(self, script: Path) -> None:
        """--resume of a completed run prints the finish step with its `<complete>`."""
        finish = to_finish(script)
        again = resume(script, str(run_of(finish)))
        assert again.get("id") == "finish"
        assert again.find("NEXT/complete") is not None
        assert reprint_of(again, finish)


class TestGraphFingerprint:
    """A run is bound to the graph it began with; prose may change under it, routing not."""

    def test_a_changed_graph_refuses_the_run_naming_skillrail_abandon(self, script: Path) -> None:
        """One more outcome on 'draft' after the run began: exit 3 with `skillrail abandon ID`
        and the command that starts afresh."""
        doc = start(script)
        run_id = str(run_of(doc))
        before = state(run_id)
        write_script(script, draft_next=DRAFT_NEXT_WITH_SKIP)
        lines = refused(call(command(doc, TOPIC="caching")), 3)
        assert f"skillrail abandon {run_id}" in lines[0]
        assert shlex.split(lines[1])[1:] == [str(script.resolve()), "--step", "start"]
        assert state(run_id) == before

    def test_resume_of_a_run_whose_graph_changed_is_refused_too(self, script: Path) -> None:
        """Even reprinting would show a step of another graph: exit 3."""
        run_id = str(run_of(start(script)))
        write_script(script, draft_next=DRAFT_NEXT_WITH_SKIP)
        lines = refused(step(script, "--run", run_id, "--resume"), 3)
        assert "skillrail abandon" in lines[0]

    def test_the_advice_about_an_ended_run_whose_graph_changed_ends_there(
            self, script: Path) -> None:
        """resume of a finished run of an old graph does not send to abandon (which takes only
        an active run), and abandon does not send back: both end at trace and a new run."""
        run_id = str(run_of(to_finish(script)))
        write_script(script, draft_next=DRAFT_NEXT_WITH_SKIP)
        lines = refused(step(script, "--run", run_id, "--resume"), 3)
        assert "changed since run" in lines[0] and "the run is completed" in lines[0]
        assert "abandon" not in lines[0] and f"trace {run_id}` shows its history" in lines[0]
        assert shlex.split(lines[1])[2:] == ["--step", "start"]
        line = one_error_line(call([*SKILLRAIL, "abandon", run_id], env(session=None)), 1)
        assert f"run {run_id} is already completed" in line and "resume" not in line
        assert f"trace {run_id}` shows its history" in line

    def test_resume_of_an_abandoned_run_says_so_instead_of_printing_dead_commands(
            self, script: Path) -> None:
        run_id = str(run_of(start(script)))
        assert call([*SKILLRAIL, "abandon", run_id], env(session=None)).returncode == 0
        for argv in ([*SKILLRAIL, "resume", run_id], [sys.executable, str(script), "--run",
                                                      run_id, "--resume"]):
            lines = refused(call(argv, env(session=None)), 3)
            assert lines[0].startswith(f"error: run {run_id} was abandoned at step 'start': it "
                                       "takes no more steps")
            assert "abandon" not in lines[0].split("takes no more steps")[1]
            assert shlex.split(lines[1])[2:] == ["--step", "start"]

    def test_changing_only_an_action_text_keeps_the_run_going(self, script: Path) -> None:
        """A reworded action is not a new graph: the run continues and shows the new text."""
        doc = start(script)
        write_script(script, action="Write a short draft, then stop.")
        draft = follow(doc, TOPIC="caching")
        assert run_of(draft) == run_of(doc)
        assert first_action(draft) == "Write a short draft, then stop."


class TestScriptDecidedSteps:
    """A handler decides, the run passes the step and the agent cannot take the other
    outcome."""

    def test_a_decided_step_is_passed_through_and_recorded(self, script: Path) -> None:
        """SCORE=7 passes: 'judge' is not printed; 'finish' is, naming judge's decision, and
        the ledger holds both moves."""
        finish = follow(to_score(script), SCORE="7")
        assert (finish.get("id"), decided(finish)) == ("finish", [("judge", "pass")])
        done = state(str(run_of(finish)))
        assert [t[1:4] for t in done.transitions][-2:] == [
            ("score", "ok", "judge"), ("judge", "pass", "finish")]
        assert done.decided is None

    def test_forging_the_other_outcome_is_refused(self, script: Path) -> None:
        """After the script decided 'fail' (the run now at 'fix'), a command claiming judge
        passed: exit 3, the run unchanged."""
        fix = follow(to_score(script), SCORE="3")
        run_id = str(run_of(fix))
        before = state(run_id)
        lines = refused(step(script, "--step", "finish", "--run", run_id, "--outcome",
                             "pass"), 3)
        assert "has no outcome 'pass'" in lines[0]
        assert lines[2:] == [cmd_text(invoke(fix))]
        assert state(run_id) == before

    def test_a_run_parked_at_a_decided_step_takes_only_that_outcome(self, script: Path) -> None:
        """A run an earlier version left at 'judge' with its decision recorded: the other
        outcome is refused, and a resume passes judge the recorded way."""
        fix = follow(to_score(script), SCORE="3")
        run_id = str(run_of(fix))
        park(run_id, "judge", "pass")
        forged = step(script, "--step", "fix", "--run", run_id, "--outcome", "fail")
        assert "decided by the script as 'pass'" in refused(forged, 3)[0]
        finish = resume(script, run_id)
        assert (finish.get("id"), decided(finish)) == ("finish", [("judge", "pass")])

    def test_resume_does_not_run_the_handler_again(self, script: Path, tmp_path: Path) -> None:
        """Reprinting the step the decision led to does not run the handler again."""
        fix = follow(to_score(script), SCORE="3")
        marker = tmp_path / "handler-ran"
        again = step(script, "--run", str(run_of(fix)), "--resume",
                     env={"LEDGER_TEST_MARKER": str(marker)})
        assert reprint_of(printed(again), fix)
        assert not marker.exists()


def park(run_id: str, step_id: str, outcome: str) -> None:
    """Put the run back at a script-decided step with its decision recorded, as protocol 1.1
    left runs (the agent then ran the decided command itself)."""
    with raw() as db:
        seq = db.execute("SELECT MAX(seq) FROM transitions WHERE run = ?", (run_id,)).fetchone()[0]
        db.execute("DELETE FROM transitions WHERE run = ? AND seq = ?", (run_id, seq))
        db.execute("UPDATE runs SET step = ?, decided = ?, hops = hops - 1 WHERE id = ?",
                   (step_id, outcome, run_id))


class TestSubRuns:
    """A sub-agent's run names its orchestrator's run."""

    def test_a_sub_run_records_its_parent(self, script: Path) -> None:
        """--parent ID on the entry step: a new run whose parent is ID."""
        parent = str(run_of(start(script)))
        sub = str(run_of(start(script, "--parent", parent)))
        assert sub != parent
        with Ledger() as ledger:
            sub_run, parent_run = ledger.run(sub), ledger.run(parent)
        assert sub_run is not None and parent_run is not None
        assert (sub_run.parent, parent_run.parent) == (parent, None)

    def test_an_unknown_parent_is_a_usage_error_and_starts_no_run(self, script: Path) -> None:
        """--parent naming no run: exit 2, one line naming it, and no run recorded."""
        start(script)
        line = one_error_line(step(script, "--step", "start", "--parent", "zz-000000"), 2)
        assert "--parent zz-000000" in line
        with Ledger() as ledger:
            assert len(page(ledger).runs) == 1

    def test_parent_with_run_is_a_usage_error(self, script: Path) -> None:
        """--parent belongs to the first step only."""
        run_id = str(run_of(start(script)))
        line = one_error_line(step(script, "--step", "start", "--run", run_id,
                                   "--parent", run_id), 2)
        assert line.startswith("error: --parent is only for starting a run")


class TestSchemaVersion:
    """The ledger's schema version is recorded and a newer one is never used blindly."""

    def test_a_fresh_ledger_has_the_current_schema_version(self, script: Path) -> None:
        """The first run creates the ledger at SCHEMA_VERSION (SQLite's PRAGMA user_version;
        PostgreSQL's skillrail_schema table)."""
        start(script)
        assert schema_version() == SCHEMA_VERSION

    def test_a_ledger_from_a_newer_skillrail_is_refused(self, script: Path) -> None:
        """A schema version above SCHEMA_VERSION: `--run` is exit 1 naming the version and the
        upgrade command; a new run warns and stays stateless; the ledger is not touched."""
        run_id = str(run_of(start(script)))
        newer = SCHEMA_VERSION + 1
        with raw() as db:
            db.execute(f"PRAGMA user_version = {newer}")
        line = one_error_line(step(script, "--run", run_id, "--resume"), 1)
        assert f"schema version {newer}" in line
        assert "pip install --upgrade skillrail" in line
        fresh = step(script, "--step", "start")
        assert fresh.returncode == 0, fresh.stderr
        warnings = fresh.stderr.decode("utf-8").splitlines()
        assert len(warnings) == 1 and warnings[0].startswith("warning: "), warnings
        assert f"schema version {newer}" in warnings[0]
        assert run_of(ET.fromstring(fresh.stdout)) is None
        assert schema_version() == newer
        with raw() as db:
            assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
