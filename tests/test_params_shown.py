"""Protocol 1.5: a workflow's required params are shown to the agent with their values, in
`<params>`, on the entry step (a loop back to it included) and wherever the rules are printed
in full (the first step shown, a reprint); nowhere else, and never the optional ones."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest
from skills.lib.workflow import Action, Arg, Param, Rework, StepDef, Workflow, register_workflow
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.protocol.constants import PROTOCOL_VERSION
from skills.lib.workflow.protocol.schema import schema_errors

from .harness import command_argv, first_action, run, run_of

NAME = "params-shown"


@pytest.fixture(scope="module")
def workflow() -> Iterator[Workflow]:
    """ask (entry) -> work -> check, whose 'again' leads back to ask at most twice; stop."""
    wf = register_workflow(Workflow(NAME, params=[
        Param("problem", "the problem, in one line", required=True),
        Param("area", "where to look", required=True),
        Param("depth", "how deep to go", default="shallow")], steps=[
        StepDef("ask", "Ask", actions=[Action("Restate the problem.", out="SAID")],
                args=[Arg("SAID", "the problem restated")], next={"ok": "work"}),
        StepDef("work", "Work", actions=[
                    Action(lambda ctx: "Shown above." if ctx.params_shown else
                           f"The problem: {ctx.params['problem']}.")],
                next={"ok": "check"}),
        StepDef("check", "Check", actions=["Check it."],
                when={"done": "it holds", "again": "it does not"},
                next={"done": "stop", "again": Rework("ask", 2, "stop")}),
        StepDef("stop", "Stop", actions=["Stop."], next={"ok": None})]))
    yield wf
    unregister(NAME)


def printed(wf: Workflow, argv: list[str]) -> ET.Element:
    result = run(wf, argv)
    assert (result.code, result.stderr) == (0, ""), result.stderr
    assert schema_errors(result.out) == []
    return result.document()


def follow(wf: Workflow, doc: ET.Element, outcome: str | None = None,
           **values: str) -> ET.Element:
    sets = [w for key, value in values.items() for w in ("--set", f"{key}={value}")]
    return printed(wf, command_argv(doc, outcome) + sets)


def params(doc: ET.Element) -> list[tuple[str | None, str | None]]:
    return [(p.get("name"), p.text) for p in doc.iterfind("params/param")]


GIVEN = [("problem", "Tests <fail> & hang"), ("area", "jobs/")]


def test_the_entry_step_shows_the_required_params_whole_and_in_order(
        workflow: Workflow) -> None:
    """Both required params, in the declared order, the markup kept as text; the optional
    `depth` is not listed, given or not."""
    doc = printed(workflow, ["--step", "ask", "--problem", "Tests <fail> & hang",
                             "--area", "jobs/", "--depth", "deep"])
    assert doc.get("protocol") == PROTOCOL_VERSION
    assert params(doc) == GIVEN
    assert [child.tag for child in doc][:2] == ["mandate", "params"]


def test_later_steps_leave_them_out_but_a_reprint_and_a_loop_back_show_them(
        workflow: Workflow) -> None:
    """The next step shows no `<params>` (its own text then says the problem); `--resume`
    shows them again; a loop back to the entry step shows them again."""
    first = printed(workflow, ["--step", "ask", "--problem", "Tests <fail> & hang",
                               "--area", "jobs/"])
    work = follow(workflow, first, SAID="restated")
    assert work.find("params") is None
    assert first_action(work) == "The problem: Tests <fail> & hang."
    again = printed(workflow, ["--run", str(run_of(work)), "--resume"])
    assert params(again) == GIVEN and first_action(again) == "Shown above."
    check = follow(workflow, work)
    assert check.find("params") is None
    back = follow(workflow, check, "again")
    assert back.get("id") == "ask" and params(back) == GIVEN


def test_a_stateless_free_start_shows_them_and_its_next_step_does_not(
        workflow: Workflow) -> None:
    doc = printed(workflow, ["--step", "ask", "--stateless", "--problem", "p", "--area", "a"])
    assert params(doc) == [("problem", "p"), ("area", "a")]
    assert follow(workflow, doc, SAID="s").find("params") is None


def test_a_workflow_without_required_params_prints_no_params_element() -> None:
    wf = register_workflow(Workflow("no-required", params=[Param("depth", "d", default="x")],
                                    steps=[StepDef("go", "Go", actions=["Go."],
                                                   next={"ok": None})]))
    try:
        assert printed(wf, ["--step", "go"]).find("params") is None
    finally:
        unregister("no-required")
