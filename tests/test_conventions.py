"""Shared conventions: the six shipped documents, get_convention, and <convention> in a step."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow import (
    ConventionRef,
    InvalidWorkflow,
    SkillrailError,
    StepDef,
    Workflow,
    get_convention,
    register_workflow,
)
from skills.lib.workflow.authoring.conventions import CONVENTIONS_DIR, convention_names
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.protocol.reading import lines
from skills.lib.workflow.protocol.schema import schema_errors

from .conftest import REPO
from .harness import run

SHIPPED = ("structural", "temporal", "severity", "intent-markers", "documentation",
           "diff-format")


def flow(*refs: ConventionRef) -> Workflow:
    return Workflow("uses-conventions", [
        StepDef("review", "Review", actions=["Review the change."], conventions=refs,
                next={"ok": None})])


class TestShippedConventions:
    def test_the_six_conventions_are_in_the_repository(self) -> None:
        """The framework's conventions/ holds every convention the skills rely on (it ships in
        the package; the repository's top-level conventions/ links to it)."""
        assert Path(CONVENTIONS_DIR) == REPO / ".claude" / "skills" / "lib" / "conventions"
        assert (REPO / "conventions").resolve() == Path(CONVENTIONS_DIR)
        assert set(SHIPPED) <= set(convention_names())

    @pytest.mark.parametrize("name", SHIPPED)
    def test_each_convention_says_what_it_is_and_where_it_applies(self, name: str) -> None:
        """Each document opens with a title and an `Applies to:` line, and stays short enough
        to inline in a step."""
        text = get_convention(name).text
        assert text.startswith("# ")
        assert "Applies to:" in text
        assert len(text) < 12_000

    def test_an_unknown_convention_names_the_ones_there_are(self) -> None:
        """get_convention('severty') fails, listing the names and suggesting 'severity'."""
        with pytest.raises(SkillrailError, match=r"no convention 'severty'.*Did you mean "
                                                 r"'severity'\?"):
            get_convention("severty")


class TestConventionInAStep:
    def test_a_listed_convention_carries_its_path_and_when_to_read_it(self) -> None:
        """Listed (not inlined): a `<DO>` line with its path and when to read it,
        schema-valid."""
        result = run(flow(ConventionRef("severity", "Read before grading findings.")),
                     ["--step", "review", "--stateless"])
        assert result.code == 0, result.stderr
        assert schema_errors(result.out) == []
        doc = ET.fromstring(result.out)
        assert doc.find("DO/convention") is None
        [line] = [x for x in lines(doc.find("DO")) if x.kind == "convention"]
        assert line.path == str(Path(CONVENTIONS_DIR) / "severity.md")
        assert line.text == "Read before grading findings."

    def test_an_inlined_convention_carries_its_text(self) -> None:
        """inline=True puts the document's text into the element, in every format."""
        wf = flow(ConventionRef("temporal", "Apply to every comment you write.", inline=True))
        xml = run(wf, ["--step", "review", "--stateless"])
        node = ET.fromstring(xml.out).find("DO/convention")
        assert node is not None and node.get("name") == "temporal"
        assert get_convention("temporal").text.strip() in (node.text or "")
        text = run(wf, ["--step", "review", "--stateless", "--format", "text"])
        assert "CONVENTION [name=temporal" in text.out.decode()

    def test_naming_a_convention_that_does_not_exist_is_w016(self) -> None:
        """Registration refuses a step naming an unknown convention, with did-you-mean."""
        with pytest.raises(InvalidWorkflow, match=r"W016 workflow 'uses-conventions', step "
                                                  r"'review': convention 'severty' is not in "
                                                  r".*Did you mean 'severity'\?"):
            register_workflow(flow(ConventionRef("severty")))
        unregister("uses-conventions")
