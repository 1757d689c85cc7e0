"""The run ledger as agents meet it, through real step scripts: runs start at the entry step,
every command must follow an edge from the current step, memory and loop counters live in the
ledger (issue 3; the rest of a run's life is test_run_lifecycle.py)."""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

from skills.lib.workflow.ledger.store import Ledger

from ..harness import cmd_text, decided, flag, invoke, offered, outcome_of, run_of
from .support import (
    banner,
    call,
    command,
    follow,
    memory,
    one_error_line,
    printed,
    refused,
    reprint_of,
    resume,
    start,
    state,
    step,
    to_review,
    to_score,
)


class TestFollowingTheChain:
    """Printed commands lead through the run; anything else is refused and changes nothing."""

    def test_printed_commands_lead_from_the_entry_step_to_complete(self, script: Path) -> None:
        """Start, run each printed command, and reach `<complete>`; the script-decided 'judge'
        is passed through (named in `<decided>`, kept in the ledger); the run is then completed."""
        doc = start(script)
        run_id = run_of(doc)
        seen = [doc.get("id")]
        for outcome, values in ((None, {"TOPIC": "caching"}), (None, {"NOTE": "a draft"}),
                                ("ok", {}), (None, {"SCORE": "7"})):
            doc = follow(doc, outcome, **values)
            seen.append(doc.get("id"))
            assert run_of(doc) == run_id
        assert seen == ["start", "draft", "review", "score", "finish"]
        assert decided(doc) == [("judge", "pass")]
        moves = [t[1:4] for t in state(str(run_id)).transitions]
        assert moves[-2:] == [("score", "ok", "judge"), ("judge", "pass", "finish")]
        assert doc.find("NEXT/complete") is not None
        assert not offered(doc)
        assert state(str(run_id)).status == "completed"

    def test_every_command_carries_the_run_and_a_branch_its_outcome(self, script: Path) -> None:
        """`--run ID` on every command; `--outcome` on the commands of a branch only."""
        review = to_review(script)
        run_id = run_of(review)
        for outcome in ("iterate", "ok"):
            argv = command(review, outcome)
            assert (flag(argv, "--run"), flag(argv, "--outcome")) == (run_id, outcome)
        draft_cmd = command(follow(review, "iterate"))
        assert flag(draft_cmd, "--run") == run_id
        assert flag(draft_cmd, "--outcome") is None

    def test_a_forged_jump_to_a_later_step_is_refused_and_the_run_is_unchanged(
            self, script: Path) -> None:
        """The printed command with --step edited to a later step: exit 3, the legal command
        listed, and the run exactly as before."""
        doc = start(script)
        run_id = str(run_of(doc))
        before = state(run_id)
        argv = command(doc, TOPIC="caching")
        argv[argv.index("--step") + 1] = "finish"
        lines = refused(call(argv), 3)
        assert "'finish' does not follow it" in lines[0]
        assert lines[1].endswith(" --resume")  # first: where the run stands
        assert lines[2:] == [cmd_text(invoke(doc))]
        assert state(run_id) == before
        assert ET.tostring(resume(script, run_id)) == ET.tostring(doc)

    def test_a_skipped_step_is_refused_and_the_run_is_unchanged(self, script: Path) -> None:
        """At 'draft', going on to 'score' as if 'review' had been done: exit 3, the run stays
        at 'draft'."""
        draft = follow(start(script), TOPIC="caching")
        run_id = str(run_of(draft))
        before = state(run_id)
        lines = refused(step(script, "--step", "score", "--run", run_id, "--outcome", "ok",
                             "--set", "NOTE=skipped"), 3)
        assert lines[1].endswith(" --resume")  # first: where the run stands
        assert lines[2:] == [cmd_text(invoke(draft))]
        assert state(run_id) == before
        assert resume(script, run_id).get("id") == "draft"

    def test_an_outcome_the_step_does_not_have_is_refused(self, script: Path) -> None:
        """A made-up --outcome is exit 3 naming it, and lists the step's real commands."""
        review = to_review(script)
        run_id = str(run_of(review))
        before = state(run_id)
        lines = refused(step(script, "--step", "score", "--run", run_id, "--outcome", "skip"), 3)
        assert "has no outcome 'skip'" in lines[0]
        assert lines[1].endswith(" --resume")  # first: where the run stands
        assert lines[2:] == [cmd_text(i) for i in offered(review)]
        assert state(run_id) == before

    def test_the_command_that_led_here_run_again_reprints_where_it_led(self, script: Path) -> None:
        """Repeating the last command with its --set values (its output was lost) reprints the
        step it led to, with the full mandate, and advances nothing."""
        first = start(script)
        argv = command(first, TOPIC="caching")
        draft = printed(call(argv))
        run_id = str(run_of(first))
        before = state(run_id)
        assert reprint_of(printed(call(argv)), draft)
        assert state(run_id) == before

    def test_a_loop_command_run_twice_takes_one_pass(self, script: Path) -> None:
        """The same `iterate` command run twice counts one pass, not two: the second run is
        recognised by its --at position."""
        review = to_review(script)
        run_id = str(run_of(review))
        argv = command(review, "iterate")
        again = printed(call(argv))
        counts = state(run_id).counts
        assert reprint_of(printed(call(argv)), again)
        assert state(run_id).counts == counts

    def test_a_stale_command_with_other_values_is_refused(self, script: Path) -> None:
        """A command printed before the run's last move, run with other values: exit 3, the
        run unchanged, pointing at the resume command."""
        first = start(script)
        printed(call(command(first, TOPIC="caching")))
        run_id = str(run_of(first))
        before = state(run_id)
        lines = refused(call(command(first, TOPIC="queues")), 3)
        assert (f"this command was printed earlier in run {run_id}, after move 1 of the 2 moves "
                "it has made: another command (yours or a teammate's) moved it on; the run is at "
                "step 'draft'") in lines[0], lines[0]
        assert shlex.split(lines[1])[2:] == ["--run", run_id, "--resume"]
        assert state(run_id) == before

    def test_a_command_from_the_future_is_not_taken_for_one_printed_earlier(
            self, script: Path) -> None:
        """An --at past the run's moves (edited, or of another run): exit 3, saying this run
        never printed it, and how to get the current step."""
        review = to_review(script)
        run_id = str(run_of(review))
        before = state(run_id)
        argv = command(review, "ok")
        argv[argv.index("--at") + 1] = "7"
        lines = refused(call(argv), 3)
        assert (f"this command was not printed by run {run_id}: its --at 7 is past the 3 moves "
                "the run has made (a wrong or edited --at); the run is at step 'review'"
                in lines[0]) and "printed earlier" not in lines[0]
        assert shlex.split(lines[1])[2:] == ["--run", run_id, "--resume"]
        assert state(run_id) == before

    def test_the_other_outcome_of_a_completed_run_says_it_is_completed(self, script: Path) -> None:
        """A branch not taken, replayed after the run ended: the run is completed, and a new
        run starts at the entry step."""
        review = to_review(script)
        run_id = str(run_of(review))
        follow(follow(review, "ok"), SCORE="7")
        assert state(run_id).status == "completed"
        lines = refused(call(command(review, "iterate")), 3)
        assert "and the run is completed (at step 'finish'): it takes no more moves" in lines[0]
        assert "start a new run with:" in lines[0]
        assert shlex.split(lines[1])[2:] == ["--step", "start"]

    def test_a_run_id_alone_reprints_the_current_step(self, script: Path) -> None:
        """`--run ID` without --step is the way back after a lost context: it resumes, with
        the full mandate and memory."""
        draft = follow(start(script), TOPIC="caching")
        again = printed(step(script, "--run", str(run_of(draft))))
        assert reprint_of(again, draft)
        assert draft.find("mandate") is None  # a step after the first: no mandate

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
            self, script: Path) -> None:
        """Review shows pass 1, 2, 3 of 3; 'iterate' on pass 3 leads to the ask_user step."""
        review = to_review(script)
        run_id = str(run_of(review))
        passes = []
        for n in (1, 2, 3):
            if n > 1:
                draft = follow(review, "iterate")
                assert (draft.get("id"), banner(draft).n) == ("draft", n)
                review = follow(draft, NOTE=f"draft {n}")
            mark = banner(review)
            passes.append((review.get("id"), str(mark.n), str(mark.limit)))
            assert state(run_id).counts.get("review:iterate", 0) == n - 1
        assert passes == [("review", "1", "3"), ("review", "2", "3"), ("review", "3", "3")]
        assert flag(command(review, "iterate"), "--step") == "ask"
        ask = follow(review, "iterate")
        assert ask.get("id") == "ask"
        assert ask.find("DO/ask_user") is not None
        assert sorted(outcome_of(i) or "" for i in offered(ask)) == [
            "approve", "reject"]

    def test_the_longest_run_the_graph_allows_reaches_complete(self, script: Path) -> None:
        """Every pass of the loop, the escalation, a failing score and the fix: the static
        step bound does not refuse a legal run, and the run ends completed."""
        review = to_review(script)
        for n in (2, 3):
            review = follow(follow(review, "iterate"), NOTE=f"draft {n}")
        score = follow(follow(review, "iterate"), "approve")
        fix = follow(score, SCORE="2")
        assert (decided(fix), fix.get("id")) == ([("judge", "fail")], "fix")
        finish = follow(fix)
        assert finish.find("NEXT/complete") is not None
        done = state(str(run_of(finish)))
        assert [t[1:4] for t in done.transitions][-4:] == [
            ("ask", "approve", "score"), ("score", "ok", "judge"), ("judge", "fail", "fix"),
            ("fix", "ok", "finish")]
        assert (done.status, done.hops) == ("completed", 12)

    def test_no_printed_command_of_a_run_carries_a_loop_flag(self, script: Path) -> None:
        """In a run the counters live in the ledger only: commands have no --loop."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second")
        cmds = [cmd_text(i) for i in offered(review)]
        assert cmds and not [c for c in cmds if "--loop" in c]

    def test_a_loop_flag_with_run_is_a_usage_error_and_changes_nothing(self, script: Path) -> None:
        """--loop belongs to stateless mode; with --run it is exit 2 and the count stays."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second")
        run_id = str(run_of(review))
        before = state(run_id)
        argv = command(review, "iterate") + ["--loop", "review:iterate=0"]
        line = one_error_line(call(argv), 2)
        assert line.startswith("error: --run cannot go with --loop")
        assert state(run_id) == before
        assert before.counts == {"review:iterate": 1}


class TestMemory:
    """Values reported with --set are kept in the run and shown to the steps that read them."""

    def test_a_value_set_on_one_step_appears_in_the_memory_of_later_readers(
            self, script: Path) -> None:
        """TOPIC, set when leaving 'start', is not echoed on 'draft' (the agent has just written
        it) but shows on 'review'; NOTE likewise; a reprint of 'review' shows both."""
        draft = follow(start(script), TOPIC="caching & <eviction>")
        assert memory(draft) == {}
        review = follow(draft, NOTE="first draft")
        assert memory(review) == {"TOPIC": "caching & <eviction>"}
        assert memory(resume(script, str(run_of(review)))) == {
            "TOPIC": "caching & <eviction>", "NOTE": "first draft"}

    def test_memory_shows_the_latest_value_of_each_key(self, script: Path) -> None:
        """After a second pass, review (reprinted) shows the second NOTE, and the ledger holds
        both."""
        review = follow(follow(to_review(script), "iterate"), NOTE="second draft")
        run_id = str(run_of(review))
        assert memory(resume(script, run_id)) == {"TOPIC": "caching", "NOTE": "second draft"}
        assert state(run_id).memory["NOTE"] == "second draft"
        with Ledger() as ledger:
            notes = [ledger.memory_at(run_id, seq).get("NOTE")
                     for seq, *_ in ledger.transitions(run_id)]
        assert [n for n in notes if n] == ["first draft", "second draft"]

    def test_a_missing_required_set_is_exit_2_naming_the_flag(self, script: Path) -> None:
        """The printed command without its required --set: exit 2 naming TOPIC, run unchanged."""
        doc = start(script)
        run_id = str(run_of(doc))
        before = state(run_id)
        line = one_error_line(call(command(doc)), 2)
        assert line.startswith("error: --set TOPIC is required")
        assert state(run_id) == before

    def test_a_value_outside_the_choices_is_refused_and_the_run_is_unchanged(
            self, script: Path) -> None:
        """SCORE=high is not a digit: exit 2, the run still asks for a score."""
        score = to_score(script)
        run_id = str(run_of(score))
        before = state(run_id)
        line = one_error_line(call(command(score, SCORE="high")), 2)
        assert "SCORE='high' is not one of the choices" in line
        assert state(run_id) == before
