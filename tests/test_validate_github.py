"""`skillrail validate --format github`: one GitHub annotation per problem, on the script line
that defines the step at fault, escaped as GitHub's workflow commands require."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from hypothesis import given
from hypothesis import strategies as st
from skills.lib.workflow.tools.annotations import (
    annotation,
    escape_data,
    escape_property,
    step_line,
)

from .test_commands import BROKEN, GOOD, make_skills, skillrail
from .test_skills import BOOTSTRAP

ANNOTATION = re.compile(r"::error (?P<props>[^:]*)::(?P<message>.*)\Z")

RENDER_FAILS = BOOTSTRAP + '''
from skills.lib.workflow import StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="fragile", steps=[
    StepDef("fine", "Fine", actions=["Look."], next={"ok": "boom"}),
    StepDef("boom", "Boom", actions=[lambda ctx: str(1 // 0)], next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


def annotations(stdout: str) -> list[dict[str, str]]:
    """The annotations in validate's output, each as its properties plus its message."""
    found = []
    for line in stdout.splitlines():
        if match := ANNOTATION.match(line):
            props = dict(p.split("=", 1) for p in match["props"].split(","))
            found.append({**props, "message": unquote(match["message"])})
    return found


def line_of(source: str, text: str) -> int:
    """1-based number of the first line of `source` containing `text`."""
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


class TestStepLine:
    SOURCE = ('one = StepDef(\n    "one", "One", next={"ok": "two"})\n'
              "two = StepDef('two', 'Two', next={'ok': None})\n"
              'three = StepDef(id="three", title="Three")\n'
              'WORKFLOW = qr_loop("made-by-a-helper")\n')

    def test_the_id_literal_after_stepdef_wins_over_an_earlier_mention(self) -> None:
        """'two' is routed to on line 2 but defined on line 3."""
        assert step_line(self.SOURCE, "two") == 3

    def test_the_literal_may_sit_on_the_line_after_stepdef(self) -> None:
        """The line is the id literal's, not the `StepDef(` call's."""
        assert step_line(self.SOURCE, "one") == 2

    def test_an_id_keyword_is_found(self) -> None:
        """`StepDef(id="three", ...)` counts as a definition."""
        assert step_line(self.SOURCE, "three") == 4

    def test_without_a_stepdef_the_first_literal_is_used(self) -> None:
        """Steps a helper builds (qr_loop, legacy STEPS) are placed at their id's mention."""
        assert step_line(self.SOURCE, "made-by-a-helper") == 5

    def test_an_id_never_written_is_placed_on_line_1(self) -> None:
        """A generated id (e.g. 'plan-review-gate') that the source never spells: line 1."""
        assert step_line(self.SOURCE, "nowhere") == 1

    def test_an_id_is_not_matched_inside_a_longer_one(self) -> None:
        """'on' does not match the literal "one"."""
        assert step_line(self.SOURCE + 'StepDef("on", "On")\n', "on") == 6


class TestEscaping:
    def test_a_message_escapes_percent_and_line_breaks(self) -> None:
        """`%` -> %25, CR -> %0D, LF -> %0A; colons and commas stay in a message."""
        assert escape_data("100%\r\nnext: a, b") == "100%25%0D%0Anext: a, b"

    def test_a_property_also_escapes_colon_and_comma(self) -> None:
        """`:` and `,` separate properties, so a value encodes them."""
        assert escape_property("C:\\a,b%") == "C%3A\\a%2Cb%25"

    @given(st.text())
    def test_escaping_round_trips_and_leaves_no_separator(self, text: str) -> None:
        """Decoding an escaped property gives the text back; no raw separator survives."""
        escaped = escape_property(text)
        assert not set(escaped) & set(":,\r\n")
        assert unquote(escaped) == text == unquote(escape_data(text))

    def test_an_annotation_without_a_file_has_only_a_title(self) -> None:
        """Properties that are not known are left out."""
        assert annotation("no skills", title="no-skills") == "::error title=no-skills::no skills"


class TestValidateGithub:
    def test_each_finding_is_annotated_on_its_steps_line(self, tmp_path: Path) -> None:
        """A broken graph: exit 1, one annotation per finding, titled by code, on the line of
        the step's definition, with a path relative to the repository root."""
        root = make_skills(tmp_path, {"good": GOOD.format(name="good"), "broken": BROKEN})
        proc = skillrail("validate", "--root", str(root), "--format", "github")
        assert proc.returncode == 1
        found = annotations(proc.stdout)
        text = json.loads(skillrail("validate", "--root", str(root), "--json").stdout)
        assert [a["title"] for a in found] == [f["code"] for f in text["findings"]]
        assert {a["file"] for a in found} == {".claude/skills/broken/scripts/broken.py"}
        for a, finding in zip(found, text["findings"], strict=True):
            assert a["line"] == str(line_of(BROKEN, f'StepDef("{finding["step"]}"'))
            assert a["message"].startswith(f"{finding['code']} workflow 'broken'")
        assert proc.stdout.splitlines()[-1] == f"{len(found)} problems"

    def test_a_script_that_fails_to_import_is_annotated_on_line_1(self, tmp_path: Path) -> None:
        """No step to point at: the script's first line, titled load-error."""
        root = make_skills(tmp_path, {"crash": BOOTSTRAP + "raise RuntimeError('boom')\n"})
        found = annotations(skillrail("validate", "--root", str(root), "--format",
                                      "github").stdout)
        assert [(a["file"], a["line"], a["title"]) for a in found] == [
            (".claude/skills/crash/scripts/crash.py", "1", "load-error")]
        assert "RuntimeError: boom" in found[0]["message"]

    def test_a_step_whose_text_fails_is_annotated_on_its_line(self, tmp_path: Path) -> None:
        """A render failure names its step, so it lands on that step's definition."""
        root = make_skills(tmp_path, {"fragile": RENDER_FAILS})
        found = annotations(skillrail("validate", "--root", str(root), "--format",
                                      "github").stdout)
        assert [(a["line"], a["title"]) for a in found] == [
            (str(line_of(RENDER_FAILS, 'StepDef("boom"')), "render-error")]

    def test_a_clean_root_prints_no_annotation_and_exits_0(self, tmp_path: Path) -> None:
        """Nothing to report: exit 0 and only the summary line."""
        root = make_skills(tmp_path, {"good": GOOD.format(name="good")})
        proc = skillrail("validate", "--root", str(root), "--format", "github")
        assert proc.returncode == 0
        assert proc.stdout.startswith("1 workflows valid") and proc.stdout.count("\n") == 1

    def test_json_is_an_alias_of_format_json(self, tmp_path: Path) -> None:
        """`--json` and `--format json` print the same report; giving both is a usage error."""
        root = make_skills(tmp_path, {"good": GOOD.format(name="good"), "broken": BROKEN})
        alias, explicit = (skillrail("validate", "--root", str(root), *flag)
                           for flag in (["--json"], ["--format", "json"]))
        assert alias.returncode == explicit.returncode == 1
        assert json.loads(alias.stdout) == json.loads(explicit.stdout)
        both = skillrail("validate", "--root", str(root), "--json", "--format", "text")
        assert both.returncode == 2
