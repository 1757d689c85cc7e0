"""Values an agent reports come back exactly as written or are refused whole: `--set` and
`--set-file`, through the next step's memory and `skillrail show`. What an error line echoes
of its input never carries a raw control character. Properties in-process (the harness sees
the bytes a subprocess would), then the same through real step scripts."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from skills.lib.workflow import Action, Arg, StepDef, Workflow, register_workflow
from skills.lib.workflow.authoring.registry import unregister

from .conftest import REPO
from .harness import Result, command_argv, run, run_of, skillrail
from .strategies import argv_texts, refused, texts, utf8_only

#: NOTE is optional, so that an empty or blank value is a value like any other.
VALUES = Workflow("values-flow", steps=[
    StepDef("report", "Report", actions=[Action("Write what you found.", out="NOTE")],
            args=[Arg("NOTE", "what you found", required=False)], next={"ok": "review"}),
    StepDef("review", "Review", optional_reads=("NOTE",), next={"ok": "done"}),
    StepDef("done", "Done", next={"ok": None}),
])

#: Any text an argument can carry as valid UTF-8: markup, controls, CR, noncharacters, any plane.
values = st.one_of(st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",))),
                   argv_texts().map(utf8_only))


@pytest.fixture(scope="module")
def flow() -> Iterator[Workflow]:
    wf = register_workflow(VALUES)
    yield wf
    unregister(wf.name)


def raw_controls(text: str) -> list[str]:
    """The control characters (C0 with tab, DEL, C1) and line separators in `text`."""
    return [c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029"]


def refusal(result: Result) -> str:
    """The one error line of a refused invocation: exit 2, nothing on stdout."""
    assert (result.code, result.out) == (2, b""), result.stderr
    lines = result.stderr.split("\n")
    assert len(lines) == 2 and lines[1] == "" and lines[0].startswith("error: "), lines
    assert raw_controls(lines[0]) == []
    return lines[0]


class TestSetValues:
    @given(values)
    @example("tab\tand\nline feed, <markup> & ]]> \U0001f600 ")
    @example("ESC \x1b[31mred")
    @example("first line\r\nsecond")
    @example("C1 \u009b and \x85, DEL \x7f")
    @example("noncharacter \ufffe")
    @example("")
    @settings(max_examples=150, deadline=None)
    def test_a_value_round_trips_exactly_or_is_refused_naming_the_character(
            self, flow: Workflow, value: str) -> None:
        """Reported with --set in a run: the reprinted next step's memory and `skillrail show`
        give the value back unchanged; or exit 2, one line naming the first character a step
        could not show (U+XXXX) and its position, and the run stays where it was."""
        first = run(flow, ["--step", "report"]).document()
        run_id = (run_of(first) or "")
        result = run(flow, [*command_argv(first), "--set", f"NOTE={value}"])
        bad = [(n, c) for n, c in enumerate(value, 1) if refused(c)]
        if bad:
            n, c = bad[0]
            line = refusal(result)
            assert line.startswith(f"error: --set NOTE holds U+{ord(c):04X} (")
            assert f" at character {n} of its value. " in line
            assert run(flow, ["--run", run_id, "--resume"]).document().get("id") == "report"
            return
        assert (result.code, result.err) == (0, b""), result.stderr
        again = run(flow, ["--run", run_id, "--resume"]).document()
        assert again.get("id") == "review"
        assert again.findtext("memory/NOTE", "") == value
        shown = skillrail(["show", run_id, "NOTE"])
        assert (shown.code, shown.out) == (0, value.encode("utf-8"))

    def test_a_value_one_over_the_limit_names_its_exact_length(self, flow: Workflow) -> None:
        """A --set value is whole on the command line: its length is known and said."""
        line = refusal(run(flow, ["--step", "review", "--from", "report",
                                  "--set", "NOTE=" + "x" * 20_001]))
        assert line == ("error: the value of NOTE has 20001 characters, more than 20000. "
                        "Report a summary, or a file path")


#: argv items: flags and values of every kind, text with controls, ESC sequences, separators.
FLAGS = ("--step", "--from", "--outcome", "--set", "--set-file", "--run", "--format", "--at",
         "--loop", "--total-steps", "--resume", "--stateless", "-x", "--bogus=\x1b[2J")
items = st.one_of(st.sampled_from(FLAGS), argv_texts(), texts().map(utf8_only),
                  st.sampled_from(["review", "report", "1", "ok", "NOTE=x", "NOTE=\x1b]0;t\x07",
                                   "\x1b[31m", "\u009b31m", "a\u2028b", "x\x85y"]))


class TestErrorLines:
    @given(st.lists(items, max_size=6))
    @example(["--step", "\x1b[31mred"])
    @example(["--\x1b[2Jbogus"])
    @example(["--step", "review", "--from", "\u009b1m"])
    @example(["--run", "r\x1b[0m", "--resume"])
    @settings(max_examples=300, deadline=None)
    def test_no_error_line_of_a_step_holds_a_raw_control_character(
            self, flow: Workflow, argv: list[str]) -> None:
        """Whatever the argv: a step, or error lines with every control character escaped."""
        result = run(flow, [a for a in argv if not a.startswith(("-h", "--help"))])
        if result.code != 0:
            assert result.out == b""
            assert raw_controls(result.stderr[:-1].replace("\n", "")) == []

    @given(st.sampled_from(["show", "resume", "trace", "runs", "abandon", "nosuch"]),
           st.lists(items, max_size=3))
    @example("\x1b[31mshow", [])
    @example("show", ["\x1b[31m", "NOTE"])
    @settings(max_examples=100, deadline=None)
    def test_no_error_line_of_skillrail_holds_a_raw_control_character(
            self, command: str, argv: list[str]) -> None:
        """The same for the `skillrail` command, whose parser is argparse."""
        result = skillrail([command, *[a for a in argv if not a.startswith(("-h", "--help"))]])
        if result.code != 0:
            assert raw_controls(result.stderr[:-1].replace("\n", "")) == []


SCRIPT = '''import sys
sys.path.insert(0, {claude!r})
from skills.lib.workflow import Action, Arg, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow("values-flow", steps=[
    StepDef("report", "Report", actions=[Action("Write what you found.", out="NOTE")],
            args=[Arg("NOTE", "what you found")], next={{"ok": "review"}}),
    StepDef("review", "Review", reads=("NOTE",), next={{"ok": "done"}}),
    StepDef("done", "Done", next={{"ok": None}}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A working folder with a step script for VALUES."""
    script = tmp_path / "skill" / "scripts" / "values.py"
    script.parent.mkdir(parents=True)
    script.write_text(SCRIPT.format(claude=str(REPO / ".claude")))
    return tmp_path


def step(project: Path, *argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, *argv], capture_output=True, timeout=60, input=stdin,
                          cwd=project, env={"PATH": "/usr/bin:/bin",
                                            "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]})


def start(project: Path) -> tuple[str, list[str]]:
    """A new run at its first step: its id and the command of its NEXT."""
    first = step(project, str(project / "skill" / "scripts" / "values.py"), "--step", "1")
    doc = ET.fromstring(first.stdout)
    return (run_of(doc) or ""), [str(project / "skill" / "scripts" / "values.py"),
                                *command_argv(doc)]


def one_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert (proc.returncode, proc.stdout) == (2, b""), proc.stderr
    text = proc.stderr.decode("utf-8")
    assert text.count("\n") == 1 and raw_controls(text[:-1]) == [], text
    return text[:-1]


def shown(project: Path, run_id: str) -> bytes:
    proc = subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "show", run_id,
                           "NOTE"], capture_output=True, timeout=60, cwd=project,
                          env={"PYTHONPATH": str(REPO / ".claude"), "PATH": "/usr/bin:/bin",
                               "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


class TestThroughAScript:
    def test_an_escape_sequence_is_refused_and_never_echoed(self, project: Path) -> None:
        """ESC in a --set value: exit 2 naming U+001B and where; in an unknown option it is
        shown as \\x1b, never sent to the terminal."""
        _, cmd = start(project)
        assert one_line(step(project, *cmd, "--set", "NOTE=red \x1b[31m!")) == (
            "error: --set NOTE holds U+001B (escape) at character 5 of its value. Remove it: "
            "of the control characters a value may hold only tab and line break")
        line = one_line(step(project, *cmd, "--\x1b[2Jx"))
        assert line.startswith("error: unknown option '--\\x1b[2Jx'")

    def test_a_carriage_return_is_refused_with_set_file_offered(self, project: Path) -> None:
        """A CR on the command line would have become LF: refused, the fix names --set-file."""
        _, cmd = start(project)
        line = one_line(step(project, *cmd, "--set", "NOTE=one\r\ntwo"))
        assert line.startswith("error: --set NOTE holds U+000D (a carriage return) at "
                               "character 4 of its value. ")
        assert "--set-file NOTE=PATH (a file's \\r\\n line ends are read as \\n)" in line

    def test_a_file_with_crlf_line_ends_is_read_with_lf(self, project: Path) -> None:
        """--set-file: CRLF line ends become LF (the one change, documented); tabs, markup
        and a missing final line end stay; `skillrail show` prints the result."""
        run_id, cmd = start(project)
        (project / "note.txt").write_bytes("a\tb <&>\r\n\r\nsecond \u00e9".encode())
        proc = step(project, *cmd, "--set-file", "NOTE=note.txt")
        assert (proc.returncode, proc.stderr) == (0, b"")
        assert shown(project, run_id) == "a\tb <&>\n\nsecond \u00e9".encode()

    def test_standard_input_is_read_as_utf8_with_crlf_as_lf(self, project: Path) -> None:
        """--set-file NOTE=-: the same rules, whatever the locale."""
        run_id, cmd = start(project)
        proc = step(project, *cmd, "--set-file", "NOTE=-", stdin="x\r\n\u00e9\n".encode())
        assert (proc.returncode, proc.stderr) == (0, b"")
        assert shown(project, run_id) == "x\n\u00e9\n".encode()

    @pytest.mark.parametrize(("content", "named"), [
        (b"one\r\ntwo\rthree", "U+000D (a carriage return) not followed by a line feed at "
                               "character 9 (line 2). End its lines with \\n or \\r\\n"),
        (b"one\ntwo\nth\x1bree", "U+001B (escape) at character 11 (line 3). Remove it"),
        ("x\ufffe".encode(), "U+FFFE (a character XML cannot hold) at character 2 (line 1)"),
    ])
    def test_a_file_holding_a_refused_character_is_refused(
            self, project: Path, content: bytes, named: str) -> None:
        """A lone CR or a control character in a file: exit 2, the character, its line."""
        _, cmd = start(project)
        (project / "note.txt").write_bytes(content)
        line = one_line(step(project, *cmd, "--set-file", "NOTE=note.txt"))
        assert line.startswith(f"error: --set-file NOTE=note.txt holds {named}")

    def test_a_long_file_is_said_to_be_longer_than_the_limit(self, project: Path) -> None:
        """A 100,000-character file: "more than 20000", with the file's size, never the count
        of what was read."""
        _, cmd = start(project)
        (project / "big.txt").write_text("x" * 100_000)
        assert one_line(step(project, *cmd, "--set-file", "NOTE=big.txt")) == (
            "error: the value of NOTE in --set-file NOTE=big.txt has more than 20000 characters "
            "(the file has 100,000 bytes). Report a summary, or a file path")

    def test_a_file_at_the_limit_once_its_crlfs_are_lf_is_taken_whole(
            self, project: Path) -> None:
        """20,000 characters with CRLF line ends (over 20,000 in the file): accepted, whole."""
        run_id, cmd = start(project)
        value = ("x" * 99 + "\n") * 200
        (project / "crlf.txt").write_bytes(value.replace("\n", "\r\n").encode())
        proc = step(project, *cmd, "--set-file", "NOTE=crlf.txt")
        assert (proc.returncode, proc.stderr) == (0, b"")
        assert shown(project, run_id) == value.encode()
