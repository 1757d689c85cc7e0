"""The step runner's edge: whatever the argv, it prints one valid document and exits 0, or
prints nothing on stdout and one `error:` line on stderr and exits 2 or 3. Fuzzed in-process;
then the same contract checked through real subprocesses of a tiny skill script."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Param,
    Rework,
    StepDef,
    Workflow,
    main,
    register_workflow,
)
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.protocol.reading import asked
from skills.lib.workflow.protocol.schema import schema_errors

from .conftest import REPO
from .harness import Result, actions, command_argv, next_cmd_text, offered, run, run_of
from .strategies import argv_texts

pytestmark = pytest.mark.slow  # thousands of generated examples

FUZZ = Workflow("fuzz-flow", params=[Param("topic", "what the run is about")], steps=[
    StepDef("start", "Start", actions=[Action("Rate the evidence.", out="LEVEL")],
            args=[Arg("LEVEL", "how sure you are", choices=("low", "high"))],
            next={"ok": "review"}),
    StepDef("review", "Review", reads=("LEVEL",), args=[Arg("NOTE", "what changed", False)],
            next={"iterate": Rework("review", 3, "ask"), "ok": "finish"},
            when={"iterate": "not yet convincing", "ok": "convincing"}),
    StepDef("ask", "Ask", ask_user=AskUser("Go on?", {"approve": "yes", "reject": "no"}),
            next={"approve": "finish", "reject": "finish"}),
    StepDef("finish", "Finish", next={"ok": None}),
])

FLAGS = ("--step", "--from", "--outcome", "--set", "--set-file", "--loop", "--format",
         "--total-steps", "--topic", "--run", "--resume", "--stateless", "--no-run", "-x", "--",
         "-", "--step=", "--set=", "--loop=", "--format=json", "--format=text", "--topic=")
#: Files of every kind --set-file may be pointed at: empty, a directory, missing, UTF-8 text
#: (this file), binary (the interpreter).
PATHS = ("/dev/null", "/", "/nonexistent/value.txt", __file__, sys.executable)
VALUES = (
    "start", "review", "ask", "finish", "Review", "revew", "1", "2", "4", "5", "0", "-1", "007",
    "99999999999999999999", "²", "٣", "\uff11", "ok", "iterate", "approve", "reject", "okk",
    "LEVEL=high", "LEVEL=low", "LEVEL=medium", "LEVEL=", "LEVEL= high ", "NOTE=x", "NOTE=a\nb",
    "=x", "NOTE", "review:iterate=1", "review:iterate=2", "review:iterate=3",
    "review:iterate=x", "review:iterate=²", "start:ok=1", "xml", "json", "text", "bogus",
    *(f"{key}={path}" for key in ("LEVEL", "NOTE") for path in PATHS),
)
token = st.one_of(st.sampled_from(FLAGS), st.sampled_from(VALUES), argv_texts())
step_refs = st.sampled_from([*(s.id for s in FUZZ.steps), "1", "2", "3", "4"])
outcomes = st.sampled_from(["ok", "iterate", "approve", "reject", "okk"])
values = st.one_of(
    st.sampled_from(["LEVEL=high", "LEVEL=low", " LEVEL=high", "LEVEL=HIGH"]),
    argv_texts().map(lambda v: f"NOTE={v}"), argv_texts().map(lambda v: f"LEVEL={v}"))


@st.composite
def plausible(draw: st.DrawFn) -> list[str]:
    """An argv shaped like a printed command plus its --set flags, each part maybe wrong."""
    argv = ["--step", draw(step_refs)]
    if draw(st.booleans()):
        argv += ["--from", draw(step_refs)]
    if draw(st.booleans()):
        argv += ["--outcome", draw(outcomes)]
    for value in draw(st.lists(values, max_size=2)):
        argv += ["--set", value]
    if draw(st.booleans()):
        argv.append(f"--loop=review:iterate={draw(st.integers(0, 4))}")
    if draw(st.booleans()):
        argv.append(f"--format={draw(st.sampled_from(['xml', 'json', 'text']))}")
    if draw(st.booleans()):
        argv.append(f"--topic={draw(argv_texts())}")
    return argv


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    """Junk, a plausible command, or a plausible command with junk mixed in; never -h."""
    junk = draw(st.lists(token, max_size=6))
    argv = draw(st.one_of(st.just(junk), plausible(),
                          plausible().map(lambda words: words + junk)))
    return [w for w in argv if not w.startswith(("-h", "--help"))]


@pytest.fixture(scope="module")
def fuzz_flow() -> Iterator[Workflow]:
    wf = register_workflow(FUZZ)
    yield wf
    unregister(wf.name)


def error_lines(result: Result) -> list[str]:
    """stderr's lines; the text must end with a newline."""
    assert result.err.endswith(b"\n"), result.err
    return result.stderr[:-1].split("\n")


def assert_printed_a_step(result: Result) -> None:
    """Exit 0: nothing on stderr, and one step in whichever format was asked for."""
    assert result.err == b""
    out = result.stdout
    if out.startswith("<"):
        assert schema_errors(result.out) == []
    elif out.startswith("{"):
        assert json.loads(out)["tag"] == "step"
    else:
        assert out.startswith("STEP [")  # the protocol is named where the mandate is


def assert_refused(result: Result) -> None:
    """Exit 2 or 3: empty stdout, one `error:` line (exit 3 adds the legal commands)."""
    assert result.out == b""
    lines = error_lines(result)
    assert lines[0].startswith("error: ") and "\r" not in lines[0]
    if result.code == 2:
        assert len(lines) == 1, lines
    else:
        assert all(line.startswith(shlex.quote(sys.executable) + " ") for line in lines[1:])


class TestFuzzedArgv:
    """No argv makes the runner print a traceback, a partial document or a multi-line error."""

    @given(argvs())
    @settings(max_examples=800, deadline=None)
    def test_every_argv_prints_a_step_or_one_error_line(self, fuzz_flow: Workflow,
                                                        argv: list[str]) -> None:
        """Exit 0 with a valid document, or exit 2/3 with empty stdout and an error line."""
        result = run(fuzz_flow, argv)
        assert b"Traceback" not in result.err
        assert result.code in (0, 2, 3), result.err
        if result.code == 0:
            assert_printed_a_step(result)
        else:
            assert_refused(result)


class TestEdgeCases:
    """The fuzzer's findings, pinned one by one."""

    def test_a_step_number_in_superscript_digits_is_a_usage_error(
            self, fuzz_flow: Workflow) -> None:
        """'²' is a digit to str.isdigit but not to int(): it is an unknown step, exit 2."""
        result = run(fuzz_flow, ["--step", "²"])
        assert result.code == 2, result.stderr
        assert error_lines(result)[0].startswith("error: unknown step '²'")

    def test_an_unknown_step_with_a_newline_is_reported_on_one_line(
            self, fuzz_flow: Workflow) -> None:
        """Text the agent typed is echoed in the error without breaking it into lines."""
        result = run(fuzz_flow, ["--step", "no\nsuch step"])
        assert result.code == 2
        assert len(error_lines(result)) == 1, result.stderr

    def test_a_value_outside_choices_with_a_newline_is_reported_on_one_line(
            self, fuzz_flow: Workflow) -> None:
        """A refused multi-line --set value does not split the error line."""
        result = run(fuzz_flow, ["--step", "review", "--from", "start", "--set", "LEVEL=x\ny"])
        assert result.code == 2
        assert len(error_lines(result)) == 1, result.stderr

    def test_arriving_from_a_step_that_ends_the_run_says_so_and_lists_a_way_on(
            self, fuzz_flow: Workflow) -> None:
        """`--from` a final step: exit 3 whose fix is not left pointing at an empty list."""
        result = run(fuzz_flow, ["--step", "review", "--from", "finish"])
        assert result.code == 3
        lines = error_lines(result)
        promises_commands = lines[0].endswith("instead:")
        assert len(lines) > 1 or not promises_commands, result.stderr

    def test_a_multi_line_param_is_refused_so_commands_stay_one_per_line(
            self, fuzz_flow: Workflow) -> None:
        """A param value with a line break is a usage error naming the param: every printed
        command, and every legal command listed on exit 3, stays on one line."""
        result = run(fuzz_flow, ["--step", "finish", "--from", "start", "--set", "LEVEL=low",
                                 "--topic=first line\nsecond line"])
        assert result.code == 2
        assert error_lines(result) == ["error: --topic holds U+000A (a line break) at character "
                                       "11. Give --topic as one line of plain text"]

    def test_an_argument_that_is_not_utf8_is_refused_in_one_line(
            self, fuzz_flow: Workflow) -> None:
        """Undecodable bytes (a lone surrogate in Python) in --run or --set: exit 2, one line,
        and no ledger is touched with text it could not store."""
        for argv in (["--run", "\ud800"], ["--step", "start", "--set", "LEVEL=\udcff"]):
            result = run(fuzz_flow, argv)
            assert result.code == 2
            assert error_lines(result) == ["error: argument 2 holds bytes that are not UTF-8 "
                                           "text. Pass every flag and value as UTF-8"] or \
                error_lines(result)[0].startswith("error: argument 4 holds bytes")

    def test_a_param_with_a_control_character_is_refused(self, fuzz_flow: Workflow) -> None:
        """A param the sanitizer would alter is refused, so commands carry it unaltered."""
        result = run(fuzz_flow, ["--step", "start", "--topic=bell\x07"])
        assert result.code == 2
        assert error_lines(result)[0].startswith("error: --topic holds")

    def test_a_forged_loop_count_past_the_cap_is_refused(self, fuzz_flow: Workflow) -> None:
        """--loop beyond the rework edge's cap is exit 2, naming the cap."""
        result = run(fuzz_flow, ["--step", "review", "--from", "review", "--outcome", "iterate",
                                 "--loop", "review:iterate=3"])
        assert result.code == 2
        assert error_lines(result) == ["error: --loop review:iterate=3 is past the loop's cap "
                                       "of 3 passes. Run the printed command unchanged"]


class TestHelp:
    """--help lists the steps and exits 0 (excluded from fuzzing)."""

    def test_help_in_process_returns_zero(self, fuzz_flow: Workflow,
                                          capsys: pytest.CaptureFixture[str]) -> None:
        """main() returns 0 for --help instead of raising SystemExit."""
        assert main(fuzz_flow, ["--help"]) == 0
        assert "--step ID|N" in capsys.readouterr().out


TINY = '''import sys
sys.path.insert(0, {claude!r})
from skills.lib.workflow import Action, Arg, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="tiny", steps=[
    StepDef("report", "Report", actions=[Action("Write what you found.", out="FINDING"),
                                         Action("Rate it.", out="LEVEL")],
            args=[Arg("FINDING", "what you found"),
                  Arg("LEVEL", choices=("low", "high"))],  # "Rate it." says what it is
            next={{"ok": "review"}}),
    StepDef("review", "Review", reads=("FINDING", "LEVEL"), next={{"ok": "done"}}),
    StepDef("done", "Done", next={{"ok": None}}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-file skill script that bootstraps the framework from this repository."""
    script = tmp_path_factory.mktemp("tiny") / "scripts" / "tiny.py"
    script.parent.mkdir()
    script.write_text(TINY.format(claude=str(REPO / ".claude")))
    return script


def spawn(argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, capture_output=True, timeout=60, env=bare_env())


def step_of(tiny: Path, *flags: str) -> subprocess.CompletedProcess[bytes]:
    return spawn([sys.executable, str(tiny), *flags])


def one_error_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.stdout == b""
    lines = proc.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    return lines[0]


class TestSubprocess:
    """A real skill script, run as the agent runs it."""

    def test_missing_required_value_exits_2_with_one_line(self, tiny: Path) -> None:
        """A required --set left out is refused, saying which and how to supply it."""
        proc = step_of(tiny, "--step", "review", "--from", "report", "--set", "LEVEL=high")
        assert proc.returncode == 2
        assert one_error_line(proc) == ("error: --set FINDING is required (step 'report'). "
                                        "Add --set FINDING='...' (what you found)")

    def test_an_arg_the_action_describes_is_described_once(self, tiny: Path) -> None:
        """LEVEL has no description of its own: the action with out='LEVEL' is it. FINDING
        has one, and an action says it too: the document says it once, by the action; the
        invoke names both keys alone. The error for a missing value says what it holds."""
        report = ET.fromstring(step_of(tiny, "--step", "report", "--stateless").stdout)
        assert [a.text for a in actions(report) if a.out == "LEVEL"] == ["Rate it."]
        said = {a.key: a.describe for i in offered(report) for a in asked(i)}
        assert said == {"LEVEL": None, "FINDING": None}
        proc = step_of(tiny, "--step", "review", "--from", "report", "--set", "FINDING=x")
        assert one_error_line(proc) == ("error: --set LEVEL is required (step 'report'). Add "
                                        "--set LEVEL='...' (what the step's action out='LEVEL' "
                                        "asks for)")

    def test_illegal_transition_exits_3_listing_the_legal_command(self, tiny: Path) -> None:
        """Jumping past a step is refused; stderr lists the command the step really prints."""
        report = ET.fromstring(step_of(tiny, "--step", "report", "--stateless").stdout)
        legal = next_cmd_text(report)
        proc = step_of(tiny, "--step", "done", "--from", "report")
        assert (proc.returncode, proc.stdout) == (3, b"")
        lines = proc.stderr.decode("utf-8").splitlines()
        assert lines[0].startswith("error: step 'report' with outcome 'ok' leads to 'review', "
                                   "not to 'done'")
        assert lines[1:] == [legal]

    def test_value_outside_choices_is_refused(self, tiny: Path) -> None:
        """LEVEL=medium is not one of low, high: exit 2, listing the choices."""
        proc = step_of(tiny, "--step", "review", "--from", "report", "--set", "FINDING=x",
                       "--set", "LEVEL=medium")
        assert proc.returncode == 2
        line = one_error_line(proc)
        assert line.startswith("error: --set LEVEL='medium' is not one of the choices (step "
                               "'report'")
        assert line.endswith("use one of: low high")

    def test_set_file_reads_a_multi_line_value(self, tiny: Path, tmp_path: Path) -> None:
        """--set-file KEY=PATH puts the file's whole text into the run's memory: a reprint of
        the next step shows it exactly."""
        value = "line one\n  line two, indented\n\nline four <&>\n"
        (tmp_path / "finding.txt").write_text(value)

        def in_project(*argv: str) -> subprocess.CompletedProcess[bytes]:
            return subprocess.run([sys.executable, *argv], capture_output=True, timeout=60,
                                  cwd=tmp_path, env=bare_env())

        first = ET.fromstring(in_project(str(tiny), "--step", "1").stdout)
        cmd = shlex.split(next_cmd_text(first))
        proc = in_project(*cmd[1:], "--set-file", f"FINDING={tmp_path / 'finding.txt'}",
                          "--set", "LEVEL=low")
        assert (proc.returncode, proc.stderr) == (0, b"")
        reprint = in_project(str(tiny), "--run", (run_of(first) or ""), "--resume")
        memory = ET.fromstring(reprint.stdout).find("memory")
        assert memory is not None
        assert {i.tag: i.text for i in memory} == {"FINDING": value, "LEVEL": "low"}

    def test_unknown_flag_exits_2(self, tiny: Path) -> None:
        """A flag the runner does not have is a usage error, named in one line."""
        proc = step_of(tiny, "--step", "report", "--stateless", "--bogus")
        assert proc.returncode == 2
        assert one_error_line(proc).startswith("error: unknown option '--bogus'")

    @pytest.mark.parametrize(("given", "suggested"), [
        ("--resum", "--resume"), ("--stateles", "--stateless"), ("--problem", None),
        ("--foo", None)])
    def test_an_unknown_flag_is_matched_only_to_a_close_one(self, tiny: Path, given: str,
                                                            suggested: str | None) -> None:
        """The suggestion compares the words after the dashes: `--problem` is not `--from`."""
        line = one_error_line(step_of(tiny, "--step", "report", "--stateless", given))
        assert line.endswith(f"Did you mean '{suggested}'?") if suggested else \
            "Did you mean" not in line

    def test_help_exits_0_and_lists_the_step_ids(self, tiny: Path) -> None:
        """--help prints usage and every step, numbered, and exits 0."""
        proc = step_of(tiny, "--help")
        assert (proc.returncode, proc.stderr) == (0, b"")
        text = proc.stdout.decode("utf-8")
        listed = re.findall(r"^\s+(\d+)\. (\S+)", text, re.MULTILINE)
        assert listed == [("1", "report"), ("2", "review"), ("3", "done")]
        assert "steps (start with --step report):" in text.splitlines()

    def test_printed_command_runs_as_is(self, tiny: Path) -> None:
        """The <cmd> of a step, plus its --set flags, is a working command line."""
        report = ET.fromstring(step_of(tiny, "--step", "report", "--stateless").stdout)
        argv = shlex.split(next_cmd_text(report))
        proc = spawn(argv + ["--set", "FINDING=it works", "--set", "LEVEL=high"])
        assert (proc.returncode, proc.stderr) == (0, b"")
        review = ET.fromstring(proc.stdout)
        assert review.get("id") == "review"
        assert command_argv(review)[:2] == ["--step", "done"]


def bare_env() -> dict[str, str]:
    """A bare environment, as an agent's may be, but for the test's own ledger (conftest's
    SKILLRAIL_HOME): no run lands in the user's ledger."""
    return {"PATH": "/usr/bin:/bin", "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]}
