"""Routing along the printed commands: loop counters advance pass by pass and a used-up loop
leads to its on_exhausted step; a handler's outcome is the one command printed; a step that ends
the run prints <complete>. Every hop runs the command the previous step printed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator

import pytest
from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Rework,
    StepContext,
    StepDef,
    Workflow,
    decides,
    register_workflow,
)
from skills.lib.workflow.authoring.registry import unregister

from .harness import banner as read_banner
from .harness import command_argv, decided, flag, invoke, offered, run

EXHAUSTED_NOTE = " (the loop's passes are used up, so this leads on instead of back)"


def escalate() -> StepDef:
    return StepDef("escalate", "Ask the user", ask_user=AskUser(
        "The loop ran out of passes. Go on?", {"approve": "yes", "reject": "no"}),
        next={"approve": "finish", "reject": "finish"})


def finish() -> StepDef:
    return StepDef("finish", "Finish", next={"ok": None}, complete="Report the result.")


SELF_LOOP = Workflow("self-loop", [
    StepDef("start", "Start", next={"ok": "review"}),
    StepDef("review", "Review", next={"iterate": Rework("review", 4, "escalate"), "ok": "finish"},
            when={"iterate": "more to check", "ok": "nothing left to check"}),
    escalate(), finish()])

TWO_STEP_LOOP = Workflow("two-step-loop", [
    StepDef("draft", "Draft", next={"ok": "check"}),
    StepDef("check", "Check", next={"redo": Rework("draft", 3, "escalate"), "ok": "finish"},
            when={"redo": "the draft falls short", "ok": "the draft holds"}),
    escalate(), finish()])


@decides("pass", "fail")
def verdict(ctx: StepContext) -> str:
    return "pass" if ctx.values.get("SCORE") == "high" else "fail"


@decides("pass", "fail")
def confused(ctx: StepContext) -> str:
    return "maybe"


def gated(name: str, handler: Callable[[StepContext], str]) -> Workflow:
    return Workflow(name, [
        StepDef("score", "Score", actions=[Action("Score the change.", out="SCORE")],
                args=[Arg("SCORE", "how good the change is", choices=("low", "high"))],
                next={"ok": "gate"}),
        StepDef("gate", "Gate", handler=handler, next={"pass": None, "fail": "fix"},
                complete="The change passed; tell the user."),
        StepDef("fix", "Fix", next={"ok": None}, complete="Report what you fixed.")])


GATED = gated("gated", verdict)

#: Two loops back into `write`: a failed check, and a review that finds the text vague.
TWO_LOOPS = Workflow("two-loops", [
    StepDef("write", "Write", next={"ok": "check"}),
    StepDef("check", "Check", next={"bad": Rework("write", 3, "escalate"), "good": "review"},
            when={"bad": "the text fails", "good": "the text holds"}),
    StepDef("review", "Review", next={"vague": Rework("write", 2, "finish"), "sharp": "finish"},
            when={"vague": "an item is vague", "sharp": "every item is sharp"}),
    escalate(), finish()])


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    """The workflows are valid: registration (validation) accepts them."""
    for wf in (SELF_LOOP, TWO_STEP_LOOP, GATED, TWO_LOOPS):
        register_workflow(wf)
    yield
    for wf in (SELF_LOOP, TWO_STEP_LOOP, GATED, TWO_LOOPS):
        unregister(wf.name)


def step(wf: Workflow, argv: list[str]) -> ET.Element:
    """The document `argv` prints; the invocation must succeed."""
    result = run(wf, argv)
    assert (result.code, result.err) == (0, b""), result.stderr
    return result.document()


def banner(doc: ET.Element) -> tuple[int, int]:
    """(iteration, limit) of the step's one loop banner."""
    banners = doc.findall("banner")
    assert len(banners) == 1
    said = read_banner(banners[0])
    assert said is not None
    return said.n, said.limit


class TestReworkLoop:
    """Loop counters travel in the printed commands and cannot be forgotten."""

    def test_iteration_counts_up_to_the_limit_then_leads_to_on_exhausted(self) -> None:
        """Following `iterate` shows passes 1, 2, 3, 4 of 4; the last `iterate` escalates."""
        doc = step(SELF_LOOP, command_argv(step(SELF_LOOP, ["--step", "start", "--stateless"])))
        passes = []
        while True:
            assert doc.get("id") == "review"
            passes.append(banner(doc))
            argv = command_argv(doc, "iterate")
            if flag(argv, "--step") != "review":
                break
            doc = step(SELF_LOOP, argv)
        assert passes == [(1, 4), (2, 4), (3, 4), (4, 4)]
        assert flag(argv, "--step") == "escalate"
        assert invoke(doc, "iterate").get("when") == "more to check" + EXHAUSTED_NOTE
        escalated = step(SELF_LOOP, argv)
        assert escalated.get("id") == "escalate" and escalated.findall("banner") == []

    def test_a_two_step_loop_counts_passes_on_both_steps(self) -> None:
        """draft and check show the same pass number once the loop was entered (before that,
        only the deciding step shows it); `redo` at the last pass escalates."""
        doc = step(TWO_STEP_LOOP, ["--step", "draft", "--stateless"])
        seen = []
        while doc.get("id") in ("draft", "check"):
            shown = banner(doc)[0] if doc.findall("banner") else None
            seen.append((doc.get("id"), shown))
            doc = step(TWO_STEP_LOOP, command_argv(doc, "redo" if doc.get("id") == "check"
                                                   else None))
        assert seen == [("draft", None), ("check", 1), ("draft", 2), ("check", 2),
                        ("draft", 3), ("check", 3)]
        assert doc.get("id") == "escalate"

    def test_a_loops_first_step_shows_the_banner_of_the_edge_that_led_back(self) -> None:
        """`write` is the target of two loops; coming back from `review` it speaks of the
        review's loop only, not of the check's (which was entered before)."""
        doc = step(TWO_LOOPS, ["--step", "write", "--stateless"])
        assert doc.findall("banner") == []  # no loop entered yet
        doc = step(TWO_LOOPS, command_argv(step(TWO_LOOPS, command_argv(doc)), "bad"))
        assert [b.text for b in doc.findall("banner")] == [
            "Pass 2 of at most 3; after that, 'Check' ending with 'bad' leads to a question to the "
            "user."]
        doc = step(TWO_LOOPS, command_argv(step(TWO_LOOPS, command_argv(doc)), "good"))
        doc = step(TWO_LOOPS, command_argv(doc, "vague"))
        assert doc.get("id") == "write"
        assert [(b.text or "")[:9] for b in doc.findall("banner")] == ["Pass 2 of"]
        assert "'Review' ending with 'vague'" in doc.findtext("banner", "")

    def test_leaving_the_loop_keeps_its_count(self) -> None:
        """`ok` after two passes carries --loop on, so the finish step was reached by a legal
        edge."""
        doc = step(SELF_LOOP, ["--step", "review", "--stateless"])
        doc = step(SELF_LOOP, command_argv(doc, "iterate"))
        argv = command_argv(doc, "ok")
        assert flag(argv, "--loop") == "review:iterate=1"
        assert step(SELF_LOOP, argv).get("id") == "finish"

    def last_pass(self) -> list[str]:
        """The `iterate` command printed at the last pass of SELF_LOOP."""
        doc = step(SELF_LOOP, ["--step", "review", "--stateless"])
        for _ in range(3):
            doc = step(SELF_LOOP, command_argv(doc, "iterate"))
        return command_argv(doc, "iterate")

    def test_a_pass_beyond_the_limit_is_refused(self) -> None:
        """Sending the last pass's `iterate` back into the loop, one count up, is exit 2."""
        argv = self.last_pass()
        assert flag(argv, "--loop") == "review:iterate=3"
        beyond = ["--step", "review"] + argv[2:-1] + ["--loop=review:iterate=4"]
        result = run(SELF_LOOP, beyond)
        assert (result.code, result.out) == (2, b"")
        assert result.stderr.startswith("error: --loop review:iterate=4 is past the loop's cap ")

    def test_dropping_the_loop_count_is_refused(self) -> None:
        """The last pass's `iterate` sent back into the loop without its --loop is exit 3."""
        argv = self.last_pass()
        dropped = ["--step", "review"] + [w for w in argv[2:] if not w.startswith("--loop")]
        result = run(SELF_LOOP, dropped)
        assert (result.code, result.out) == (3, b"")
        assert result.stderr.startswith("error: the --loop counts do not match the run so far")


class TestScriptDecided:
    """A handler picks the outcome; the agent sees only where it leads."""

    def test_a_handler_step_is_passed_through_to_where_its_outcome_leads(self) -> None:
        """SCORE=low makes the handler say `fail`: the gate is not printed; fix is, naming the
        gate's decision, and fix's command names the edge it follows from fix."""
        score = step(GATED, ["--step", "score", "--stateless"])
        doc = step(GATED, command_argv(score) + ["--set", "SCORE=low"])
        assert (doc.get("id"), decided(doc)) == ("fix", [("gate", "fail")])
        assert doc.findtext("NEXT/complete") == "Report what you fixed."

    def test_handler_outcome_that_ends_the_run_prints_complete(self) -> None:
        """SCORE=high makes the handler say `pass`, which ends the run: <complete>, no invoke."""
        score = step(GATED, ["--step", "score", "--stateless"])
        doc = step(GATED, command_argv(score) + ["--set", "SCORE=high"])
        assert (doc.get("id"), decided(doc)) == ("gate", [])  # printed: the run ends there
        assert offered(doc) == []
        assert doc.findtext("NEXT/complete") == "The change passed; tell the user."

    def test_handler_returning_an_unmapped_outcome_is_one_error_line(self) -> None:
        """A handler bug is exit 1 with one error line naming the step, never a traceback."""
        wf = gated("confused", confused)
        result = run(wf, ["--step", "gate", "--from", "score", "--set", "SCORE=high"])
        assert (result.code, result.out) == (1, b"")
        assert result.stderr == ("error: the handler returned outcome 'maybe', which the step "
                                 "does not map (skill 'confused', step 'gate'). This is a bug in "
                                 "the skill: fix its handler or its next\n")


class TestTerminal:
    """A step whose only outcome ends the run."""

    def test_terminal_step_prints_complete_with_its_text(self) -> None:
        """<NEXT> holds only <complete>, with the step's complete text."""
        doc = step(GATED, ["--step", "fix", "--from", "gate", "--outcome", "fail"])
        nxt = doc.find("NEXT")
        assert nxt is not None and [child.tag for child in nxt] == ["complete"]
        assert doc.findtext("NEXT/complete") == "Report what you fixed."


BRANCHED = Workflow("branched-args", [
    StepDef("rate", "Rate", actions=["Rate it."], args=[
        Arg("LEVEL", "how sure", choices=("low", "medium"), outcomes=("iterate",)),
        Arg("LEVEL", "how sure", choices=("high",), outcomes=("ok",)),
        Arg("NOTE", "a note"), Arg("WHY", "the reason")],
        next={"iterate": Rework("rate", 3, "done"), "ok": "done"},
        when={"iterate": "unsure", "ok": "sure"}),
    StepDef("done", "Done", next={"ok": None}),
])


class TestReportedValues:
    """What the agent reports with --set is checked against the edge's args, all at once."""

    def test_every_missing_required_value_is_named_in_one_error(self) -> None:
        """Two required keys left out: one exit 2 naming both, so one retry fixes it."""
        result = run(BRANCHED, ["--step", "done", "--from", "rate", "--outcome", "ok",
                                "--set", "LEVEL=high"])
        assert result.code == 2
        assert result.stderr.startswith("error: --set NOTE, WHY are required")

    def test_an_empty_value_is_called_empty_not_missing(self) -> None:
        """`--set NOTE=` is reported as empty, since the flag was given."""
        result = run(BRANCHED, ["--step", "done", "--from", "rate", "--outcome", "ok",
                                "--set", "LEVEL=high", "--set", "NOTE= ", "--set", "WHY=x"])
        assert result.code == 2
        assert result.stderr.startswith("error: --set NOTE is empty")

    def test_a_value_of_another_outcome_points_to_that_command(self) -> None:
        """LEVEL=high on the iterate command: refused, naming outcome ok as the way."""
        result = run(BRANCHED, ["--step", "rate", "--from", "rate", "--outcome", "iterate",
                                "--loop=rate:iterate=1", "--set", "LEVEL=high", "--set",
                                "NOTE=x", "--set", "WHY=y"])
        assert result.code == 2
        assert "LEVEL=high belongs to outcome 'ok'" in result.stderr

    def test_a_lowercase_key_suggests_the_uppercase_one(self) -> None:
        """`--set note=x` was not asked for; the error suggests NOTE."""
        result = run(BRANCHED, ["--step", "done", "--from", "rate", "--outcome", "ok",
                                "--set", "note=x"])
        assert result.code == 2
        assert "Did you mean 'NOTE'?" in result.stderr
