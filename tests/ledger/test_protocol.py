"""The run ledger as agents meet it, through real step scripts: runs start at the entry step,
every command must follow an edge from the current step, memory and loop counters live in the
ledger, reprints change nothing, finished and changed runs are refused (issue 3).
"""

from __future__ import annotations

import shlex
import sqlite3
import xml.etree.ElementTree as ET
from contextlib import closing
from pathlib import Path

from skills.lib.workflow.ledger import SCHEMA_VERSION, Ledger

from ..harness import flag, invoke
from .support import (
    DRAFT_NEXT_WITH_SKIP,
    banner,
    call,
    command,
    follow,
    memory,
    one_error_line,
    printed,
    refused,
    resume,
    start,
    state,
    step,
    to_finish,
    to_review,
    to_score,
    write_script,
)


class TestFollowingTheChain:
    """Printed commands lead through the run; anything else is refused and changes nothing."""

    def test_printed_commands_lead_from_the_entry_step_to_complete(
            self, script: Path, ledger_file: Path) -> None:
        """Start, run each printed command, and reach `<complete>`; the run is then completed."""
        doc = start(script)
        run_id = doc.get("run")
        seen = [doc.get("id")]
        for outcome, values in ((None, {"TOPIC": "caching"}), (None, {"NOTE": "a draft"}),
                                ("ok", {}), (None, {"SCORE": "7"}), (None, {})):
            doc = follow(doc, outcome, **values)
            seen.append(doc.get("id"))
            assert doc.get("run") == run_id
        assert seen == ["start", "draft", "review", "score", "judge", "finish"]
        assert doc.find("NEXT/complete") is not None
        assert doc.find("NEXT/invoke") is None
        assert state(ledger_file, str(run_id)).status == "completed"

    def test_every_command_carries_the_run_and_a_branch_its_outcome(self, script: Path) -> None:
        """`--run ID` on every command; `--outcome` on the commands of a branch only."""
        review = to_review(script)
        run_id = review.get("run")
        for outcome in ("iterate", "ok"):
            argv = command(review, outcome)
            assert (flag(argv, "--run"), flag(argv, "--outcome")) == (run_id, outcome)
        draft_cmd = command(follow(review, "iterate"))
        assert flag(draft_cmd, "--run") == run_id
        assert flag(draft_cmd, "--outcome") is None

    def test_a_forged_jump_to_a_later_step_is_refused_and_the_run_is_unchanged(
            self, script: Path, ledger_file: Path) -> None:
        """The printed command with --step edited to a later step: exit 3, the legal command
        listed, and the run exactly as before."""
        doc = start(script)
        run_id = str(doc.get("run"))
        before = state(ledger_file, run_id)
        argv = command(doc, TOPIC="caching")
        argv[argv.index("--step") + 1] = "finish"
        lines = refused(call(argv), 3)
        assert "'finish' does not follow it" in lines[0]
        assert lines[1].endswith(" --resume")  # first: where the run stands
        assert lines[2:] == [invoke(doc).findtext("cmd")]
        assert state(ledger_file, run_id) == before
        assert ET.tostring(resume(script, run_id)) == ET.tostring(doc)

    def test_a_skipped_step_is_refused_and_the_run_is_unchanged(
            self, script: Path, ledger_file: Path) -> None:
        """At 'draft', going on to 'score' as if 'review' had been done: exit 3, the run stays
        at 'draft'."""
        draft = follow(start(script), TOPIC="caching")
        run_id = str(draft.get("run"))
        before = state(ledger_file, run_id)
        lines = refused(step(script, "--step", "score", "--run", run_id, "--outcome", "ok",
                             "--set", "NOTE=skipped"), 3)
        assert lines[1].endswith(" --resume")  # first: where the run stands
        assert lines[2:] == [invoke(draft).findtext("cmd")]
        assert state(ledger_file, run_id) == before
        assert resume(script, run_id).get("id") == "draft"

    def test_an_outcome_the_step_does_not_have_is_refused(
            self, script: Path, ledger_file: Path) -> None:
        """A made-up --outcome is exit 3 naming it, and lists the step's real commands."""
        review = to_review(script)
        run_id = str(review.get("run"))
        before = state(ledger_file, run_id)
        lines = refused(step(script, "--step", "score", "--run", run_id, "--outcome", "skip"), 3)
        assert "has no outcome 'skip'" in lines[0]
        assert lines[1].endswith(" --resume")  # first: where the run stands
        assert lines[2:] == [i.findtext("cmd") for i in review.findall("NEXT/invoke")]
        assert state(ledger_file, run_id) == before

    def test_the_command_that_led_here_run_again_reprints_where_it_led(
            self, script: Path, ledger_file: Path) -> None:
        """Repeating the last command with its --set values (its output was lost) prints the
        step it led to again and advances nothing."""
        first = start(script)
        argv = command(first, TOPIC="caching")
        draft = printed(call(argv))
        run_id = str(first.get("run"))
        before = state(ledger_file, run_id)
        assert ET.tostring(printed(call(argv))) == ET.tostring(draft)
        assert state(ledger_file, run_id) == before

    def test_a_loop_command_run_twice_takes_one_pass(
            self, script: Path, ledger_file: Path) -> None:
        """The same `iterate` command run twice counts one pass, not two: the second run is
        recognised by its --at position."""
        review = to_review(script)
        run_id = str(review.get("run"))
        argv = command(review, "iterate")
        again = printed(call(argv))
        counts = state(ledger_file, run_id).counts
        assert ET.tostring(printed(call(argv))) == ET.tostring(again)
        assert state(ledger_file, run_id).counts == counts

    def test_a_stale_command_with_other_values_is_refused(
            self, script: Path, ledger_file: Path) -> None:
        """A command printed before the run's last move, run with other values: exit 3, the
        run unchanged, pointing at the resume command."""
        first = start(script)
        printed(call(command(first, TOPIC="caching")))
        run_id = str(first.get("run"))
        before = state(ledger_file, run_id)
        lines = refused(call(command(first, TOPIC="queues")), 3)
        assert "this command was printed earlier in run" in lines[0]
        assert shlex.split(lines[1])[2:] == ["--run", run_id, "--resume"]
        assert state(ledger_file, run_id) == before

    def test_a_run_id_alone_reprints_the_current_step(self, script: Path) -> None:
        """`--run ID` without --step is the way back after a lost context: it resumes."""
        draft = follow(start(script), TOPIC="caching")
        again = printed(step(script, "--run", str(draft.get("run"))))
        assert ET.tostring(again) == ET.tostring(draft)

    def test_an_unknown_run_is_a_usage_error(self, script: Path) -> None:
        """`--run` naming no run: exit 2, one line naming the id."""
        start(script)
        line = one_error_line(step(script, "--step", "draft", "--run", "zz-000000"), 2)
        assert "no run 'zz-000000'" in line

    def test_a_run_starts_only_at_the_entry_step(self, script: Path) -> None:
        """A later step without --run is not a way into the middle of a workflow: exit 2."""
        line = one_error_line(step(script, "--step", "review"), 2)
        assert "starts at the entry step 'start'" in line


class TestLoopCounters:
    """The ledger counts passes through a rework loop; the agent cannot reset or forge them."""

    def test_the_banner_counts_passes_up_to_the_cap_then_iterate_asks_the_user(
            self, script: Path, ledger_file: Path) -> None:
        """Review shows pass 1, 2, 3 of 3; 'iterate' on pass 3 leads to the ask_user step."""
        review = to_review(script)
        run_id = str(review.get("run"))
        passes = []
        for n in (1, 2, 3):
            if n > 1:
                draft = follow(review, "iterate")
                assert (draft.get("id"), banner(draft).get("iteration")) == ("draft", str(n))
                review = follow(draft, NOTE=f"draft {n}")
            mark = banner(review)
            passes.append((review.get("id"), mark.get("iteration"), mark.get("limit")))
            assert state(ledger_file, run_id).counts.get("review:iterate", 0) == n - 1
        assert passes == [("review", "1", "3"), ("review", "2", "3"), ("review", "3", "3")]
        assert flag(command(review, "iterate"), "--step") == "ask"
        ask = follow(review, "iterate")
        assert ask.get("id") == "ask"
        assert ask.find("DO/ask_user") is not None
        assert sorted(i.get("outcome") or "" for i in ask.findall("NEXT/invoke")) == [
            "approve", "reject"]

    def test_the_longest_run_the_graph_allows_reaches_complete(
            self, script: Path, ledger_file: Path) -> None:
        """Every pass of the loop, the escalation, a failing score and the fix: the static
        step bound does not refuse a legal run, and the run ends completed."""
        review = to_review(script)
        for n in (2, 3):
            review = follow(follow(review, "iterate"), NOTE=f"draft {n}")
        score = follow(follow(review, "iterate"), "approve")
        judge = follow(score, SCORE="2")
        fix = follow(judge)
        assert (judge.get("id"), fix.get("id")) == ("judge", "fix")
        finish = follow(fix)
        assert finish.find("NEXT/complete") is not None
        done = state(ledger_file, str(finish.get("run")))
        assert [t[1:4] for t in done.transitions][-4:] == [
            ("ask", "approve", "score"), ("score", "ok", "judge"), ("judge", "fail", "fix"),
            ("fix", "ok", "finish")]
        assert (done.status, done.hops) == ("completed", 12)

    def test_no_printed_command_of_a_run_carries_a_loop_flag(self, script: Path) -> None:
        """In a run the counters live in the ledger only: commands have no --loop."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second")
        cmds = [i.findtext("cmd", "") for i in review.findall("NEXT/invoke")]
        assert cmds and not [c for c in cmds if "--loop" in c]

    def test_a_loop_flag_with_run_is_a_usage_error_and_changes_nothing(
            self, script: Path, ledger_file: Path) -> None:
        """--loop belongs to stateless mode; with --run it is exit 2 and the count stays."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second")
        run_id = str(review.get("run"))
        before = state(ledger_file, run_id)
        argv = command(review, "iterate") + ["--loop", "review:iterate=0"]
        line = one_error_line(call(argv), 2)
        assert line.startswith("error: --run cannot go with --loop")
        assert state(ledger_file, run_id) == before
        assert before.counts == {"review:iterate": 1}


class TestMemory:
    """Values reported with --set are kept in the run and shown to the steps that read them."""

    def test_a_value_set_on_one_step_appears_in_the_memory_of_later_readers(
            self, script: Path) -> None:
        """TOPIC, set when leaving 'start', shows on 'draft' and 'review'; NOTE on 'review'."""
        draft = follow(start(script), TOPIC="caching & <eviction>")
        assert memory(draft) == {"TOPIC": "caching & <eviction>"}
        review = follow(draft, NOTE="first draft")
        assert memory(review) == {"TOPIC": "caching & <eviction>", "NOTE": "first draft"}

    def test_memory_shows_the_latest_value_of_each_key(
            self, script: Path, ledger_file: Path) -> None:
        """After a second pass, review shows the second NOTE, and the ledger holds both."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second draft")
        run_id = str(review.get("run"))
        assert memory(review) == {"TOPIC": "caching", "NOTE": "second draft"}
        assert state(ledger_file, run_id).memory["NOTE"] == "second draft"
        with Ledger(str(ledger_file)) as ledger:
            notes = [ledger.memory_at(run_id, seq).get("NOTE")
                     for seq, *_ in ledger.transitions(run_id)]
        assert [n for n in notes if n] == ["first draft", "second draft"]

    def test_a_missing_required_set_is_exit_2_naming_the_flag(
            self, script: Path, ledger_file: Path) -> None:
        """The printed command without its required --set: exit 2 naming TOPIC, run unchanged."""
        doc = start(script)
        run_id = str(doc.get("run"))
        before = state(ledger_file, run_id)
        line = one_error_line(call(command(doc)), 2)
        assert line.startswith("error: --set TOPIC is required")
        assert state(ledger_file, run_id) == before

    def test_a_value_outside_the_choices_is_refused_and_the_run_is_unchanged(
            self, script: Path, ledger_file: Path) -> None:
        """SCORE=high is not a digit: exit 2, the run still asks for a score."""
        score = to_score(script)
        run_id = str(score.get("run"))
        before = state(ledger_file, run_id)
        line = one_error_line(call(command(score, SCORE="high")), 2)
        assert "SCORE='high' is not one of the choices" in line
        assert state(ledger_file, run_id) == before


class TestReprint:
    """Naming the current step again, or --resume, reprints it and advances nothing."""

    def test_reinvoking_the_current_step_reprints_it_and_advances_nothing(
            self, script: Path, ledger_file: Path) -> None:
        """`--step review --run ID` at review prints the same document; hops and transitions
        are unchanged."""
        review = to_review(script)
        run_id = str(review.get("run"))
        before = state(ledger_file, run_id)
        again = step(script, "--step", "review", "--run", run_id)
        assert ET.tostring(printed(again)) == ET.tostring(review)
        after = state(ledger_file, run_id)
        assert (after.hops, after.transitions) == (before.hops, before.transitions)
        assert after == before

    def test_resume_reprints_the_current_step_and_advances_nothing(
            self, script: Path, ledger_file: Path) -> None:
        """`--run ID --resume`, twice, prints the current step each time; the run stays."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second")
        run_id = str(review.get("run"))
        before = state(ledger_file, run_id)
        for _ in range(2):
            assert ET.tostring(resume(script, run_id)) == ET.tostring(review)
        assert state(ledger_file, run_id) == before

    def test_the_current_step_by_number_also_reprints(
            self, script: Path, ledger_file: Path) -> None:
        """`--step 3` names review as well as `--step review` does."""
        review = to_review(script)
        run_id = str(review.get("run"))
        before = state(ledger_file, run_id)
        assert printed(step(script, "--step", "3", "--run", run_id)).get("id") == "review"
        assert state(ledger_file, run_id) == before


class TestFinishedRun:
    """A completed run takes no further step but can still be looked at."""

    def test_a_completed_run_refuses_a_further_step(
            self, script: Path, ledger_file: Path) -> None:
        """Any step of a completed run: exit 3, saying the run is completed, offering a new
        run."""
        finish = to_finish(script)
        run_id = str(finish.get("run"))
        before = state(ledger_file, run_id)
        assert before.status == "completed"
        lines = refused(step(script, "--step", "start", "--run", run_id), 3)
        assert f"run {run_id} is completed" in lines[0]
        assert shlex.split(lines[1])[2:] == ["--step", "start"]
        assert state(ledger_file, run_id) == before

    def test_resume_of_a_completed_run_reprints_its_last_step(self, script: Path) -> None:
        """--resume of a completed run prints the finish step with its `<complete>`."""
        finish = to_finish(script)
        again = resume(script, str(finish.get("run")))
        assert again.get("id") == "finish"
        assert again.find("NEXT/complete") is not None
        assert ET.tostring(again) == ET.tostring(finish)


class TestGraphFingerprint:
    """A run is bound to the graph it began with; prose may change under it, routing not."""

    def test_a_changed_graph_refuses_the_run_naming_skillrail_abandon(
            self, script: Path, ledger_file: Path) -> None:
        """One more outcome on 'draft' after the run began: exit 3 with `skillrail abandon ID`
        and the command that starts afresh."""
        doc = start(script)
        run_id = str(doc.get("run"))
        before = state(ledger_file, run_id)
        write_script(script, draft_next=DRAFT_NEXT_WITH_SKIP)
        lines = refused(call(command(doc, TOPIC="caching")), 3)
        assert f"skillrail abandon {run_id}" in lines[0]
        assert shlex.split(lines[1])[1:] == [str(script.resolve()), "--step", "start"]
        assert state(ledger_file, run_id) == before

    def test_resume_of_a_run_whose_graph_changed_is_refused_too(self, script: Path) -> None:
        """Even reprinting would show a step of another graph: exit 3."""
        run_id = str(start(script).get("run"))
        write_script(script, draft_next=DRAFT_NEXT_WITH_SKIP)
        lines = refused(step(script, "--run", run_id, "--resume"), 3)
        assert "skillrail abandon" in lines[0]

    def test_changing_only_an_action_text_keeps_the_run_going(self, script: Path) -> None:
        """A reworded action is not a new graph: the run continues and shows the new text."""
        doc = start(script)
        write_script(script, action="Write a short draft, then stop.")
        draft = follow(doc, TOPIC="caching")
        assert draft.get("run") == doc.get("run")
        assert draft.findtext("DO/action") == "Write a short draft, then stop."


class TestScriptDecidedSteps:
    """A handler's decision is recorded; the agent cannot take the other outcome."""

    def test_a_decided_step_prints_only_the_decided_command(
            self, script: Path, ledger_file: Path) -> None:
        """SCORE=7 passes: judge prints one command, to 'finish' with outcome 'pass'."""
        judge = follow(to_score(script), SCORE="7")
        argv = command(judge)
        assert (flag(argv, "--step"), flag(argv, "--outcome")) == ("finish", "pass")
        assert state(ledger_file, str(judge.get("run"))).decided == "pass"

    def test_forging_the_other_outcome_is_refused(self, script: Path, ledger_file: Path) -> None:
        """`--step fix --outcome fail` after the script decided 'pass': exit 3, listing the
        decided command only, the run unchanged."""
        judge = follow(to_score(script), SCORE="7")
        run_id = str(judge.get("run"))
        before = state(ledger_file, run_id)
        lines = refused(step(script, "--step", "fix", "--run", run_id, "--outcome", "fail"), 3)
        assert "decided by the script as 'pass'" in lines[0]
        assert lines[1].endswith(" --resume")  # first: where the run stands
        assert lines[2:] == [invoke(judge).findtext("cmd")]
        assert state(ledger_file, run_id) == before

    def test_resume_of_a_decided_step_shows_the_recorded_decision(
            self, script: Path, tmp_path: Path) -> None:
        """Reprinting does not run the handler again: the recorded outcome is shown."""
        judge = follow(to_score(script), SCORE="3")
        marker = tmp_path / "handler-ran"
        again = step(script, "--run", str(judge.get("run")), "--resume",
                     env={"LEDGER_TEST_MARKER": str(marker)}, timeout=20)
        assert ET.tostring(printed(again)) == ET.tostring(judge)
        assert flag(command(judge), "--outcome") == "fail"
        assert not marker.exists()


class TestSubRuns:
    """A sub-agent's run names its orchestrator's run."""

    def test_a_sub_run_records_its_parent(self, script: Path, ledger_file: Path) -> None:
        """--parent ID on the entry step: a new run whose parent is ID."""
        parent = str(start(script).get("run"))
        sub = str(start(script, "--parent", parent).get("run"))
        assert sub != parent
        with Ledger(str(ledger_file)) as ledger:
            sub_run, parent_run = ledger.run(sub), ledger.run(parent)
        assert sub_run is not None and parent_run is not None
        assert (sub_run.parent, parent_run.parent) == (parent, None)

    def test_an_unknown_parent_is_a_usage_error_and_starts_no_run(
            self, script: Path, ledger_file: Path) -> None:
        """--parent naming no run: exit 2, one line naming it, and no run recorded."""
        start(script)
        line = one_error_line(step(script, "--step", "start", "--parent", "zz-000000"), 2)
        assert "--parent zz-000000" in line
        with Ledger(str(ledger_file)) as ledger:
            assert len(ledger.runs()) == 1

    def test_parent_with_run_is_a_usage_error(self, script: Path) -> None:
        """--parent belongs to the first step only."""
        run_id = str(start(script).get("run"))
        line = one_error_line(step(script, "--step", "start", "--run", run_id,
                                   "--parent", run_id), 2)
        assert line.startswith("error: --parent is only for starting a run")


class TestSchemaVersion:
    """The ledger's schema version is recorded and a newer one is never used blindly."""

    def test_a_fresh_ledger_has_the_current_schema_version(
            self, script: Path, ledger_file: Path) -> None:
        """The first run creates the ledger at PRAGMA user_version == SCHEMA_VERSION."""
        start(script)
        with closing(sqlite3.connect(ledger_file)) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION

    def test_a_ledger_from_a_newer_skillrail_is_refused(
            self, script: Path, ledger_file: Path) -> None:
        """user_version above SCHEMA_VERSION: `--run` is exit 1 naming the version; a new run
        warns and stays stateless; the ledger is not touched."""
        run_id = str(start(script).get("run"))
        newer = SCHEMA_VERSION + 1
        with closing(sqlite3.connect(ledger_file)) as db:
            db.execute(f"PRAGMA user_version = {newer}")
        line = one_error_line(step(script, "--run", run_id, "--resume"), 1)
        assert f"schema version {newer}" in line
        fresh = step(script, "--step", "start")
        assert fresh.returncode == 0, fresh.stderr
        assert fresh.stderr.decode("utf-8").startswith("warning: ")
        assert ET.fromstring(fresh.stdout).get("run") is None
        with closing(sqlite3.connect(ledger_file)) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == newer
            assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
