"""Step text from jinja2 templates in a skill's resources/: rendered with the run's params and
memory, strict about undefined variables, checked for existence at registration."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow import (
    Action,
    Arg,
    InvalidWorkflow,
    Param,
    StepDef,
    Template,
    Workflow,
    register_workflow,
)
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.model import marked

from .harness import actions, run


def skill(tmp_path: Path, template: str) -> Path:
    """A skill folder whose resources/focus.md.j2 holds `template`; returns the script path."""
    (tmp_path / "resources").mkdir()
    (tmp_path / "resources" / "focus.md.j2").write_text(template)
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "t.py"
    script.write_text("")
    return script


def flow(script: Path) -> Workflow:
    return marked(Workflow("templated", [
        StepDef("ask", "Ask", actions=[Action("Name the area.", out="AREA")],
                args=[Arg("AREA", "the area")], next={"ok": "look"}),
        StepDef("look", "Look", reads=("AREA",),
                actions=[Action(Template("resources/focus.md.j2"), out="reply")],
                next={"ok": None}),
    ], params=[Param("topic", "the topic", default="caching")]), source=str(script))


class TestTemplates:
    def test_a_template_renders_with_params_and_memory(self, tmp_path: Path) -> None:
        """{{ params.topic }} and {{ memory.AREA }} come from the run; the text is escaped
        into the element like any other."""
        wf = flow(skill(tmp_path, "Study {{ memory.AREA }} for {{ params.topic }} <carefully>."))
        result = run(wf, ["--step", "look", "--from", "ask", "--set", "AREA=the parser"])
        assert result.code == 0, result.stderr
        assert [a.text for a in actions(ET.fromstring(result.out))] == [
            "Study the parser for caching <carefully>."]

    def test_an_undefined_variable_is_a_one_line_error(self, tmp_path: Path) -> None:
        """StrictUndefined: a missing value fails naming the template, never renders empty."""
        wf = flow(skill(tmp_path, "Study {{ memory.NOPE }}."))
        result = run(wf, ["--step", "look", "--from", "ask", "--set", "AREA=x"])
        assert (result.code, result.out) == (1, b"")
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and "focus.md.j2" in lines[0] and "NOPE" in lines[0]

    def test_a_missing_template_is_w016(self, tmp_path: Path) -> None:
        """Registration refuses an action whose template file does not exist."""
        script = skill(tmp_path, "x")
        (tmp_path / "resources" / "focus.md.j2").unlink()
        with pytest.raises(InvalidWorkflow, match=r"W016 workflow 'templated', step 'look': "
                                                  r"template resources/focus.md.j2 does not "
                                                  r"exist"):
            register_workflow(flow(script))
        unregister("templated")
