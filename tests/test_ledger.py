"""The run ledger through real step scripts: runs start at the entry step, every command must follow
an edge from the run's current step, memory and loop counters live in the ledger, and the ledger
survives races, killed processes and damaged files (issue 3, PROTOCOL.md sections 2, 6, 7).

Each test writes its own small skill script to a temporary folder and runs it as the agent does:
the printed `<cmd>`, split with shlex, plus the `--set` flags its `<arg>`s ask for.
"""

from __future__ import annotations

import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest
from skills.lib.workflow.ledger import SCHEMA_VERSION, Ledger

from .conftest import REPO
from .harness import flag, invoke

#: A skill script exercising every kind of step a run goes through: values reported with --set,
#: a counted rework loop escalating to the user, a script-decided step, a completion. The
#: handler sleeps when LEDGER_TEST_MARKER names a file (touched first), so a test can kill the
#: process while it holds the ledger's write transaction.
SCRIPT = '''import os
import sys
import time

sys.path.insert(0, @CLAUDE@)
from skills.lib.workflow import (Action, Arg, AskUser, Rework, StepDef, Workflow, decides, main,
                                 register_workflow)


@decides("pass", "fail")
def judge(ctx):
    marker = os.environ.get("LEDGER_TEST_MARKER")
    if marker:
        open(marker, "w").close()
        time.sleep(30)
    return "pass" if int(ctx.values["SCORE"]) >= 5 else "fail"


WORKFLOW = register_workflow(Workflow(name="chain", steps=[
    StepDef("start", "Start", actions=[Action("Name the topic.", out="TOPIC")],
            args=[Arg("TOPIC", "the topic")], next={"ok": "draft"}),
    StepDef("draft", "Draft", actions=[Action(@DRAFT_ACTION@, out="NOTE")], reads=("TOPIC",),
            args=[Arg("NOTE", "what the draft says")], @DRAFT_NEXT@),
    StepDef("review", "Review", actions=["Review the draft."], reads=("TOPIC", "NOTE"),
            next={"iterate": Rework("draft", 3, "ask"), "ok": "score"},
            when={"iterate": "the draft needs another pass", "ok": "the draft is good"}),
    StepDef("ask", "Ask", ask_user=AskUser("Accept the draft anyway?",
                                           {"approve": "yes", "reject": "no"}),
            next={"approve": "score", "reject": "finish"}),
    StepDef("score", "Score", actions=[Action("Score the draft from 0 to 9.", out="SCORE")],
            args=[Arg("SCORE", "the score", choices=tuple("0123456789"))], next={"ok": "judge"}),
    StepDef("judge", "Judge", handler=judge, reads=("SCORE",),
            next={"pass": "finish", "fail": "fix"}),
    StepDef("fix", "Fix", actions=["Fix the draft."], next={"ok": "finish"}),
    StepDef("finish", "Finish", actions=["Report the result."], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''
DRAFT_ACTION = "Write a draft."
DRAFT_NEXT = 'next={"ok": "review"}'
#: The same workflow with one more outcome on 'draft': a different graph.
DRAFT_NEXT_WITH_SKIP = ('next={"ok": "review", "skip": "score"}, '
                        'when={"ok": "there is a draft", "skip": "nothing to draft"}')


def write_script(path: Path, *, action: str = DRAFT_ACTION, draft_next: str = DRAFT_NEXT) -> Path:
    """(Re)write the skill script at `path`, bootstrapping the framework from this repository."""
    text = (SCRIPT.replace("@CLAUDE@", repr(str(REPO / ".claude")))
            .replace("@DRAFT_ACTION@", repr(action)).replace("@DRAFT_NEXT@", draft_next))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """This test's own copy of the skill script (tests that rewrite it touch no other test)."""
    return write_script(tmp_path / "chain" / "scripts" / "chain.py")


@pytest.fixture
def ledger_file(ledger_home: Path) -> Path:
    """Where the step scripts of this test keep their ledger."""
    return ledger_home / "runs.sqlite3"


# -- running steps ---------------------------------------------------------------------------

def call(argv: list[str], env: dict[str, str] | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Run a command as the agent does; the test's SKILLRAIL_HOME is inherited."""
    return subprocess.run(argv, capture_output=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def step(script: Path, *flags: str, env: dict[str, str] | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Invoke the skill script with `flags`."""
    return call([sys.executable, str(script), *flags], env, timeout)


def printed(proc: subprocess.CompletedProcess[bytes]) -> ET.Element:
    """The `<step>` a successful invocation printed (exit 0, nothing on stderr)."""
    assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr
    return ET.fromstring(proc.stdout)


def command(doc: ET.Element, outcome: str | None = None, **values: str) -> list[str]:
    """The argv of the printed command for `outcome`, plus the --set flags for `values`."""
    argv = shlex.split(invoke(doc, outcome).findtext("cmd", ""))
    for key, value in values.items():
        argv += ["--set", f"{key}={value}"]
    return argv


def follow(doc: ET.Element, outcome: str | None = None, **values: str) -> ET.Element:
    """Run the printed command and return the step it prints."""
    return printed(call(command(doc, outcome, **values)))


def start(script: Path, *flags: str) -> ET.Element:
    """A new run at the entry step."""
    doc = printed(step(script, "--step", "start", *flags))
    assert doc.get("run")
    return doc


def resume(script: Path, run_id: str) -> ET.Element:
    return printed(step(script, "--run", run_id, "--resume"))


def to_review(script: Path) -> ET.Element:
    """A new run, walked to its first review."""
    doc = follow(start(script), TOPIC="caching")
    return follow(doc, NOTE="first draft")


def to_score(script: Path) -> ET.Element:
    """A new run, walked to the step that asks for a score."""
    return follow(to_review(script), "ok")


def to_finish(script: Path) -> ET.Element:
    """A new run, walked to its last step: the run is then completed."""
    judged = follow(to_score(script), SCORE="7")
    return follow(judged)


def refused(proc: subprocess.CompletedProcess[bytes], code: int) -> list[str]:
    """stderr's lines of a refused invocation: exit `code`, empty stdout, an `error:` line, no
    traceback."""
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == code, err
    assert proc.stdout == b""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines and lines[0].startswith("error: "), err
    return lines


def one_error_line(proc: subprocess.CompletedProcess[bytes], code: int) -> str:
    lines = refused(proc, code)
    assert len(lines) == 1, lines
    return lines[0]


# -- reading the ledger ----------------------------------------------------------------------

class State(NamedTuple):
    """What an invocation may change about a run."""

    step: str
    status: str
    hops: int
    decided: str | None
    counts: dict[str, int]
    memory: dict[str, str]
    transitions: list[tuple[int, str, str, str, float]]


def state(ledger_file: Path, run_id: str) -> State:
    with Ledger(str(ledger_file)) as ledger:
        run = ledger.run(run_id)
        assert run is not None, f"no run {run_id}"
        return State(run.step, run.status, run.hops, run.decided, run.counts, run.memory,
                     ledger.transitions(run_id))


def integrity(ledger_file: Path) -> str:
    with Ledger(str(ledger_file)) as ledger:
        return ledger.integrity()


def banner(doc: ET.Element) -> ET.Element:
    found = doc.find("banner")
    assert found is not None, f"step '{doc.get('id')}' has no banner"
    return found


def memory(doc: ET.Element) -> dict[str, str | None]:
    return {item.get("key", ""): item.text for item in doc.findall("memory/item")}


# -- the tests ---------------------------------------------------------------------------------

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
        assert lines[1:] == [invoke(doc).findtext("cmd")]
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
        assert lines[1:] == [invoke(draft).findtext("cmd")]
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
        assert lines[1:] == [i.findtext("cmd") for i in review.findall("NEXT/invoke")]
        assert state(ledger_file, run_id) == before

    def test_the_command_that_led_here_run_again_is_refused(
            self, script: Path, ledger_file: Path) -> None:
        """Repeating the last command with its --set values does not advance twice: exit 3,
        pointing at the resume command."""
        first = start(script)
        argv = command(first, TOPIC="caching")
        printed(call(argv))
        run_id = str(first.get("run"))
        before = state(ledger_file, run_id)
        lines = refused(call(argv), 3)
        assert "already at step 'draft'" in lines[0]
        assert shlex.split(lines[1])[2:] == ["--run", run_id, "--resume"]
        assert state(ledger_file, run_id) == before

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
        assert lines[1:] == [invoke(judge).findtext("cmd")]
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


class TestConcurrency:
    """Two agents advancing one run at once serialize: one wins, the other is refused."""

    ROUNDS = 20

    @staticmethod
    def race(*argvs: list[str],
             env: dict[str, str] | None = None) -> list[subprocess.CompletedProcess[bytes]]:
        """Start the commands together (a barrier right before each Popen) and wait for all."""
        barrier = threading.Barrier(len(argvs))
        results: list[subprocess.CompletedProcess[bytes] | None] = [None] * len(argvs)

        def run(i: int) -> None:
            barrier.wait()
            proc = subprocess.Popen(argvs[i], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env={**os.environ, **(env or {})})
            out, err = proc.communicate(timeout=60)
            results[i] = subprocess.CompletedProcess(argvs[i], proc.returncode, out, err)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(argvs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(r is not None for r in results)
        return [r for r in results if r is not None]

    def test_two_processes_advancing_one_run_at_once_exactly_one_wins(
            self, script: Path, ledger_file: Path) -> None:
        """The same command with different values, twice at once, 20 times: one exit 0, one
        exit 3 each time; the winner's value is the run's; one transition per win."""
        wins = 0
        for _ in range(self.ROUNDS):
            doc = start(script)
            run_id = str(doc.get("run"))
            results = self.race(command(doc, TOPIC="first"), command(doc, TOPIC="second"))
            codes = sorted(r.returncode for r in results)
            assert codes == [0, 3], [r.stderr for r in results]
            winner = next(i for i, r in enumerate(results) if r.returncode == 0)
            loser = results[1 - winner]
            refused(loser, 3)
            assert printed(results[winner]).get("id") == "draft"
            now = state(ledger_file, run_id)
            assert now.memory == {"TOPIC": ("first", "second")[winner]}
            assert len(now.transitions) == 1
            wins += 1
        assert integrity(ledger_file) == "ok"
        with Ledger(str(ledger_file)) as ledger:
            runs = ledger.runs()
            assert sum(len(ledger.transitions(r.id)) for r in runs) == wins == self.ROUNDS

    def test_two_different_outcomes_at_once_take_exactly_one_edge(
            self, script: Path, ledger_file: Path) -> None:
        """'iterate' and 'ok' from one review at once: one edge is taken, the other refused."""
        for _ in range(8):
            review = to_review(script)
            run_id = str(review.get("run"))
            results = self.race(command(review, "iterate"), command(review, "ok"))
            assert sorted(r.returncode for r in results) == [0, 3], [r.stderr for r in results]
            winner = next(i for i, r in enumerate(results) if r.returncode == 0)
            now = state(ledger_file, run_id)
            assert now.step == ("draft", "score")[winner]
            assert len(now.transitions) == 3
            assert now.counts == ({"review:iterate": 1}, {})[winner]
        assert integrity(ledger_file) == "ok"

    def test_two_new_runs_on_a_fresh_ledger_both_start(self, script: Path,
                                                       tmp_path: Path) -> None:
        """Creating the ledger file is itself raced safely: two first runs, two run ids."""
        argv = [sys.executable, str(script), "--step", "start"]
        for n in range(8):
            home = tmp_path / f"home-{n}"
            results = self.race(argv, argv, env={"SKILLRAIL_HOME": str(home)})
            ids = {printed(r).get("run") for r in results}
            assert len(ids) == 2 and None not in ids
            with Ledger(str(home / "runs.sqlite3")) as ledger:
                assert {r.id for r in ledger.runs()} == ids
                assert ledger.integrity() == "ok"


@contextmanager
def inside_handler(score: ET.Element, marker: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run score's command (SCORE=8) until judge's handler is running; SIGKILL it on the way
    out."""
    proc = subprocess.Popen(command(score, SCORE="8"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            env={**os.environ, "LEDGER_TEST_MARKER": str(marker)})
    try:
        deadline = time.monotonic() + 20
        while not marker.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the handler never started"
            time.sleep(0.02)
        yield proc
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()


class TestKilledInvocation:
    """A process killed mid-invocation leaves the ledger sound and the run resumable."""

    def test_sigkill_while_the_handler_runs_leaves_the_run_resumable(
            self, script: Path, ledger_file: Path, tmp_path: Path) -> None:
        """Killed while judge's handler runs (the advance to judge committed, its decision not
        yet recorded): integrity ok, the run at 'judge' with no decision, leaving it refused
        until resume has decided; resume prints judge with the decided command, which then
        advances."""
        score = to_score(script)
        run_id = str(score.get("run"))
        before = state(ledger_file, run_id)
        with inside_handler(score, tmp_path / "inside-handler") as proc:
            # The handler runs outside any transaction: a reader sees the committed advance.
            assert state(ledger_file, run_id).step == "judge"
        assert proc.returncode == -signal.SIGKILL
        assert integrity(ledger_file) == "ok"
        killed = state(ledger_file, run_id)
        assert (killed.step, killed.decided, killed.hops) == ("judge", None, before.hops + 1)
        forged = step(script, "--step", "fix", "--run", run_id, "--outcome", "fail")
        assert "has not recorded its decision yet" in refused(forged, 3)[0]
        judge = resume(script, run_id)
        assert judge.get("id") == "judge"
        assert state(ledger_file, run_id).decided is not None
        after = follow(judge)
        assert after.get("id") in {"fix", "finish"}
        assert state(ledger_file, run_id).hops == before.hops + 2


class TestWaitingForTheLedger:
    """Another process holding the ledger's lock is waited for, never taken for damage."""

    def test_resume_of_another_run_is_not_blocked_by_a_running_handler(
            self, script: Path, tmp_path: Path) -> None:
        """While one run's handler runs (say, a slow verification command), reprinting a
        different run reads the ledger and prints its step."""
        other = follow(start(script), TOPIC="other")
        with inside_handler(to_score(script), tmp_path / "inside-transaction"):
            again = step(script, "--run", str(other.get("run")), "--resume", timeout=30)
            assert ET.tostring(printed(again)) == ET.tostring(other)

    def test_a_busy_ledger_is_never_reported_as_damaged(
            self, script: Path, tmp_path: Path) -> None:
        """Advancing another run while a handler holds the lock either succeeds or fails
        saying the ledger is busy; it never tells the agent to move the ledger aside."""
        other = follow(start(script), TOPIC="other")
        with inside_handler(to_score(script), tmp_path / "inside-transaction"):
            proc = call(command(other, NOTE="a draft"), timeout=30)
        if proc.returncode != 0:
            line = one_error_line(proc, 1)
            assert "mv " not in line and ".bad" not in line, line

    def test_a_new_run_waits_for_a_lock_on_a_ledger_being_created(
            self, script: Path, ledger_file: Path) -> None:
        """A first run while another process holds the write lock of the just-created ledger
        file waits for it (within the busy timeout) and starts a real run, not a stateless
        one."""
        holder = sqlite3.connect(ledger_file, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            proc = subprocess.Popen([sys.executable, str(script), "--step", "start"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(0.5)
            holder.execute("COMMIT")
        finally:
            holder.close()
        out, err = proc.communicate(timeout=60)
        doc = printed(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert doc.get("run")
        with Ledger(str(ledger_file)) as ledger:
            assert [r.id for r in ledger.runs()] == [doc.get("run")]


JUNK = b"this is not an SQLite database\n" * 64


class TestDamagedLedger:
    """A ledger that cannot be used gives one clear line, never a traceback or a lost run."""

    def test_a_corrupted_ledger_is_one_error_line_naming_the_file_for_a_run(
            self, script: Path, ledger_file: Path) -> None:
        """Junk bytes in runs.sqlite3: `--run ID` exits 1 with one line that names the file
        and how to move it aside."""
        run_id = str(start(script).get("run"))
        ledger_file.write_bytes(JUNK)
        line = one_error_line(step(script, "--run", run_id, "--resume"), 1)
        assert str(ledger_file) in line
        assert f"mv {ledger_file} {ledger_file}.bad" in line

    def test_a_corrupted_ledger_lets_a_new_run_go_on_stateless_with_a_warning(
            self, script: Path, ledger_file: Path) -> None:
        """A new run over a junk ledger: a warning naming the file, then a stateless step;
        the damaged file is left as it was."""
        start(script)
        ledger_file.write_bytes(JUNK)
        proc = step(script, "--step", "start")
        assert (proc.returncode, proc.stdout != b"") == (0, True), proc.stderr
        warnings = proc.stderr.decode("utf-8").splitlines()
        assert len(warnings) == 1 and warnings[0].startswith("warning: ")
        assert str(ledger_file) in warnings[0]
        doc = ET.fromstring(proc.stdout)
        assert doc.get("run") is None
        assert flag(command(doc), "--from") == "start"
        assert flag(command(doc), "--run") is None
        assert ledger_file.read_bytes() == JUNK

    def test_a_damaged_table_met_while_advancing_is_a_ledger_error_naming_the_file(
            self, script: Path, ledger_file: Path) -> None:
        """The transitions table's page overwritten: the advance fails with the ledger's own
        one-line error (file, how to move it aside), not as an internal error."""
        doc = start(script)
        with closing(sqlite3.connect(ledger_file)) as db:
            page_size = db.execute("PRAGMA page_size").fetchone()[0]
            root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'transitions'"
                              ).fetchone()[0]
        with ledger_file.open("r+b") as handle:
            handle.seek((root - 1) * page_size)
            handle.write(b"\x5a" * page_size)
        line = one_error_line(call(command(doc, TOPIC="caching")), 1)
        assert str(ledger_file) in line
        assert f"mv {ledger_file} {ledger_file}.bad" in line

    def test_a_ledger_folder_that_cannot_be_created_gives_a_warning_and_a_stateless_step(
            self, script: Path, tmp_path: Path) -> None:
        """SKILLRAIL_HOME under a regular file (fails even for root): a new run warns and runs
        stateless; a `--run` invocation is exit 1 with one line."""
        blocker = tmp_path / "a-file"
        blocker.write_text("")
        env = {"SKILLRAIL_HOME": str(blocker / "skillrail")}
        proc = step(script, "--step", "start", env=env)
        assert proc.returncode == 0, proc.stderr
        warnings = proc.stderr.decode("utf-8").splitlines()
        assert len(warnings) == 1 and warnings[0].startswith("warning: ")
        assert str(blocker / "skillrail" / "runs.sqlite3") in warnings[0]
        assert ET.fromstring(proc.stdout).get("run") is None
        line = one_error_line(step(script, "--run", "ch-000000", "--resume", env=env), 1)
        assert str(blocker / "skillrail" / "runs.sqlite3") in line

    def test_a_read_only_ledger_folder_gives_a_warning_and_a_stateless_step(
            self, script: Path, ledger_home: Path) -> None:
        """A ledger folder without write permission: the new run warns and runs stateless."""
        if os.geteuid() == 0:
            pytest.skip("running as root: file permissions do not stop root from writing")
        ledger_home.chmod(0o500)
        try:
            proc = step(script, "--step", "start")
        finally:
            ledger_home.chmod(0o700)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.decode("utf-8").startswith("warning: ")
        assert ET.fromstring(proc.stdout).get("run") is None


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
