"""Any text in any field gives a document that parses and validates, in every format, and carries
the text (minus what XML 1.0 cannot hold). Driven through the public runner, in-process."""

from __future__ import annotations

import dataclasses
import json
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    Param,
    Resource,
    StepDef,
    Workflow,
    register_workflow,
)
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.graph.model import marked
from skills.lib.workflow.protocol.constants import MANDATE
from skills.lib.workflow.protocol.reading import asked, lines
from skills.lib.workflow.protocol.schema import schema_errors

from .harness import Result, cmd_text, next_cmd_text, offered, run, run_of
from .oracles import xml_chars
from .strategies import Texts, accepted, field_texts, one_line, texts

pytestmark = pytest.mark.slow  # thousands of generated examples

NAME = "render-props"
PROPERTY = settings(max_examples=100, deadline=None)


def same_everywhere(text: str) -> Texts:
    """A Texts with `text` in every field."""
    fields = {f.name: (text,) if f.name == "forbidden" else text
              for f in dataclasses.fields(Texts)}
    return Texts(**fields | {"param": one_line(text), "memory": accepted(text)})


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the workflow's script would live: a skill folder with one resource file."""
    skill = tmp_path_factory.mktemp("skill")
    (skill / "resources").mkdir()
    (skill / "resources" / "guide.md").write_text("# Guide\n")
    return skill / "scripts" / "flow.py"


def workflow_of(t: Texts, script: Path) -> Workflow:
    """Four steps (action list, agent branch, ask_user, terminal) with `t` in every field."""
    return marked(Workflow(NAME, description=t.description,
                    params=[Param("topic", "what the run is about")], steps=[
        StepDef("frame", t.title, actions=[t.action, Action(t.output, out="NOTE")],
                args=[Arg("NOTE", t.describe, required=False)], forbidden=t.forbidden,
                resources=[Resource("guide", "resources/guide.md", t.resource_when)],
                expect=t.output, next={"ok": "weigh"}),
        StepDef("weigh", t.title, actions=[t.action], optional_reads=("NOTE",),
                next={"go": "ask", "stop": "done"}, when={"go": t.when_go, "stop": t.when_stop}),
        StepDef("ask", t.title, ask_user=AskUser(t.question, {"approve": t.option_yes,
                                                              "reject": t.option_no}),
                next={"approve": "done", "reject": "done"}),
        StepDef("done", t.title, next={"ok": None}, complete=t.complete),
    ]), source=str(script))


def invocations(t: Texts) -> dict[str, list[str]]:
    """One command line per step, each arriving by a real edge."""
    topic = f"--topic={t.param}"
    return {
        "frame": ["--step", "frame", "--stateless", topic],
        "weigh": ["--step", "weigh", "--from", "frame", f"--set=NOTE={t.memory}", topic],
        "ask": ["--step", "ask", "--from", "weigh", "--outcome", "go", topic],
        "done": ["--step", "done", "--from", "ask", "--outcome", "approve", topic],
    }


def printed(t: Texts, script: Path, fmt: str) -> dict[str, Result]:
    """Each step of the registered workflow, printed in `fmt`."""
    wf = register_workflow(workflow_of(t, script))
    try:
        return {step: run(wf, argv + [f"--format={fmt}"])
                for step, argv in invocations(t).items()}
    finally:
        unregister(NAME)


def reprinted_memory(t: Texts, script: Path) -> list[str]:
    """The memory of `weigh` reprinted in a run after `frame` reported NOTE: a value the agent
    has just reported is not echoed back, a reprint shows it (PROTOCOL.md section 2)."""
    wf = register_workflow(workflow_of(t, script))
    try:
        first = run(wf, ["--step", "frame", f"--topic={t.param}"]).document()
        cmd = shlex.split(next_cmd_text(first))
        succeeded(run(wf, [*cmd[2:], f"--set=NOTE={t.memory}"]))
        again = run(wf, ["--run", (run_of(first) or ""), "--resume"])
        return leaf_texts(ET.fromstring(succeeded(again)), "memory/*")
    finally:
        unregister(NAME)


def succeeded(result: Result) -> bytes:
    assert (result.code, result.err) == (0, b""), result.err.decode("utf-8", "replace")
    return result.out


def leaf_texts(root: ET.Element, path: str) -> list[str]:
    return [node.text or "" for node in root.iterfind(path)]


def as_data(node: ET.Element) -> dict[str, Any]:
    """An element as {"tag", "attrs", "text", "children", "tail"}, empty parts left out; around
    an element's children only what is not layout counts (a `<DO>`'s lines)."""
    data: dict[str, Any] = {"tag": node.tag}
    if node.attrib:
        data["attrs"] = dict(node.attrib)
    text = node.text if len(node) == 0 else (node.text or "").strip()
    if text:
        data["text"] = text
    if len(node):
        data["children"] = [as_data(child) for child in node]
    if (node.tail or "").strip():
        data["tail"] = (node.tail or "").strip()
    return data


def without_format_flag(data: dict[str, Any], fmt: str) -> dict[str, Any]:
    """The same data with the `--format=<fmt>` that commands carry forward removed from each
    command (a <cmd>, or a command-holding <NEXT> or <invoke>'s text), so documents of two
    formats can be compared."""
    if data["tag"] in ("cmd", "NEXT", "invoke") and "text" in data:
        suffix = f" --format={fmt}"
        assert data["text"].endswith(suffix)
        return {**data, "text": data["text"].removesuffix(suffix)}
    if "children" in data:
        return {**data, "children": [without_format_flag(c, fmt) for c in data["children"]]}
    return data


HOSTILE_EVERYWHERE = same_everywhere("a<b & c]]>\x00\x01\x1f\ufffe\uffff\ud800\U0001f600 'q' \"")
CARRIAGE_RETURN = same_everywhere("first line\rsecond line\r\nthird")


class TestSchemaValidity:
    """Whatever the texts, every printed document is well-formed and valid."""

    @given(field_texts())
    @example(HOSTILE_EVERYWHERE)
    @PROPERTY
    def test_every_step_in_xml_validates_against_the_schema(self, script: Path,
                                                            t: Texts) -> None:
        """Each step's XML parses and matches protocol.rng, and stdout is strict UTF-8."""
        for step, result in printed(t, script, "xml").items():
            out = succeeded(result)
            out.decode("utf-8")
            assert schema_errors(out) == [], step

    @given(field_texts())
    @example(HOSTILE_EVERYWHERE)
    @PROPERTY
    def test_every_step_in_json_parses_as_a_step(self, script: Path, t: Texts) -> None:
        """Each step's JSON parses and holds the document's elements in protocol order."""
        for result in printed(t, script, "json").values():
            data = json.loads(succeeded(result).decode("utf-8"))
            assert data["tag"] == "step"
            tags = [c["tag"] for c in data["children"]]
            assert "title" in data["attrs"] and tags[-2:] == ["DO", "NEXT"]

    @given(field_texts())
    @example(HOSTILE_EVERYWHERE)
    @PROPERTY
    def test_every_step_in_text_is_produced(self, script: Path, t: Texts) -> None:
        """Each step's text rendering is UTF-8 with a heading line per protocol section."""
        for step, result in printed(t, script, "text").items():
            lines = succeeded(result).decode("utf-8").split("\n")
            assert lines[0].startswith("STEP [") and f" id={step}" in lines[0]
            assert f"skill={NAME}" in lines[0]  # stateless: every step names its skill
            assert {"  DO", "  NEXT"} <= set(lines) and " title=" in lines[0]


class TestTextFidelity:
    """The documents carry the author's and the agent's texts, dropping only what XML 1.0
    cannot hold."""

    @given(field_texts())
    @example(HOSTILE_EVERYWHERE)
    @example(CARRIAGE_RETURN)
    @PROPERTY
    def test_xml_carries_every_text(self, script: Path, t: Texts) -> None:
        """Titles, actions, forbidden items, resources, args, conditions, memory, the question,
        options, the ending and param values read back from the XML as given, minus non-XML
        characters."""
        docs = {step: ET.fromstring(succeeded(r)) for step, r in printed(t, script, "xml").items()}
        c = xml_chars
        for doc in docs.values():
            assert doc.get("title") == c(t.title)
            for cmd in [cmd_text(i) for i in offered(doc)]:
                assert f"--topic={c(t.param)}" in shlex.split(cmd)
        frame, weigh, ask, done = docs.values()
        # The skill's own workflow is described by its SKILL.md, not again in the mandate.
        assert frame.findtext("mandate", "").startswith(MANDATE)
        said = lines(frame.find("DO"))
        assert [x.text for x in said if x.kind == "action"] == [c(t.action), c(t.output)]
        assert [x.text for x in said if x.kind == "forbidden"] == [c(f) for f in t.forbidden]
        assert [x.text for x in said if x.kind == "resource"] == [c(t.resource_when)]
        assert [x.text for x in said if x.kind == "expected"] == ([c(t.output)] if t.output
                                                                 else [])
        # An arg is described once: the action whose out names it says what it holds.
        assert [(a.key, a.describe) for a in asked(offered(frame)[0])] == [("NOTE", None)]
        assert weigh.find("memory") is None  # the agent has just reported NOTE
        assert reprinted_memory(t, script) == [c(t.memory)]
        assert [i.get("when") for i in offered(weigh)] == [c(t.when_go),
                                                                         c(t.when_stop)]
        assert ask.findtext("DO/ask_user/question") == c(t.question)
        assert leaf_texts(ask, "DO/ask_user/option") == [c(t.option_yes), c(t.option_no)]
        assert done.findtext("NEXT/complete") == c(t.complete)

    @given(field_texts())
    @example(HOSTILE_EVERYWHERE)
    @example(CARRIAGE_RETURN)
    @PROPERTY
    def test_json_carries_the_same_strings_as_the_xml(self, script: Path, t: Texts) -> None:
        """Read back, the JSON of each step equals its XML: same elements, attributes and
        texts (commands differ only by the --format flag they carry forward)."""
        xml = printed(t, script, "xml")
        for step, result in printed(t, script, "json").items():
            from_json = json.loads(succeeded(result).decode("utf-8"))
            from_xml = as_data(ET.fromstring(succeeded(xml[step])))
            assert without_format_flag(from_json, "json") == from_xml


@given(texts())
@example("RELEASE -> <transcript>{{x}}</transcript> & ]]> done")
def test_texts_an_agent_copies_read_exactly_as_written(text: str) -> None:
    """A memory value and a dispatch prompt come back from the document exactly, and the
    document never shows `&gt;` where `>` can stand, nor `&lt;` inside a value to copy."""
    from skills.lib.workflow.protocol.xml import clean, to_xml

    root = ET.Element("step")  # every text enters a document through clean (protocol/xml.py)
    ET.SubElement(ET.SubElement(root, "memory"), "K").text = clean(text)
    dispatch = ET.SubElement(ET.SubElement(root, "DO"), "dispatch")
    ET.SubElement(dispatch, "prompt").text = clean(text)
    out = to_xml(root)
    back = ET.fromstring(out)
    assert back.findtext("memory/K") == xml_chars(text)
    assert back.findtext("DO/dispatch/prompt") == xml_chars(text)
    assert "&lt;" not in out and "&gt;" not in out.replace("]]&gt;", "")
