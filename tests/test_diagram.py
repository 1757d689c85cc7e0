"""Diagrams and the generated README sections: the Mermaid and DOT texts carry exactly the
workflow's edges (parsed back), escape hostile labels, and `skillrail docs` keeps READMEs fresh
(tests/test_generated_docs.py covers SKILL.md and the repository's own files)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from skills.lib.workflow import AskUser, Rework, StepDef, Workflow, decides
from skills.lib.workflow.base.errors import SkillrailError
from skills.lib.workflow.graph.analysis import worst_case_steps
from skills.lib.workflow.graph.diagram import END, diagram, to_dot, to_mermaid
from skills.lib.workflow.graph.model import StepContext
from skills.lib.workflow.tools.generated import with_section

from .test_commands import GOOD, make_skills, skillrail
from .test_skills import WORKFLOWS

NODE = re.compile(r'^\s*(\w+)[\[({]+"(.*?)"[\])}]+$')
ARC = re.compile(r'^\s*(\w+) (-->|-\.->|==>)\|"(.*?)"\| (\w+)$')
KIND = {"-->": "plain", "-.->": "rework", "==>": "exhausted"}


@decides("yes", "no")
def _coin(ctx: StepContext) -> str:
    return "yes"


HOSTILE = Workflow("hostile", [
    StepDef("start", 'Say "hi" <b> & go', actions=["a"],
            next={"again": Rework("start", 3, "ask"), "ok": "coin"},
            when={"again": "more", "ok": "enough"}),
    StepDef("coin", "Toss", handler=_coin, next={"yes": "ask", "no": None}),
    StepDef("ask", "Ask", ask_user=AskUser("Go?", {"go": "Go", "stop": "Stop"}),
            next={"go": None, "stop": None}),
])


def parsed(text: str) -> tuple[dict[str, str], set[tuple[str, str, str]]]:
    """Nodes (key -> label) and arcs (source, target, kind) read back from Mermaid text."""
    nodes = {m[1]: m[2] for line in text.splitlines() if (m := NODE.match(line))}
    arcs = {(m[1], m[4], KIND[m[2]]) for line in text.splitlines() if (m := ARC.match(line))}
    return nodes, arcs


def expected_arcs(wf: Workflow) -> set[tuple[str, str, str]]:
    keys = {s.id: f"n{n}" for n, s in enumerate(wf.steps, 1)}
    arcs = set()
    for e in wf.edges:
        target = keys[e.target] if e.target is not None else END
        arcs.add((keys[e.source], target, "rework" if e.rework else "plain"))
        if e.rework is not None:
            arcs.add((keys[e.source], keys[e.rework.on_exhausted], "exhausted"))
    return arcs


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_mermaid_of_every_skill_has_its_steps_and_edges(name: str) -> None:
    """Every step is a node, every edge (exhaustion edges too) an arc of the right kind."""
    wf = WORKFLOWS[name]
    text = to_mermaid(wf)
    nodes, arcs = parsed(text)
    assert {label.split(":")[0] for key, label in nodes.items() if key != END} == {
        s.id for s in wf.steps}
    assert arcs == expected_arcs(wf)
    bound = worst_case_steps(wf)
    assert f"at most {bound} step{'s' * (bound != 1)} per run" in text.splitlines()[1]


def test_roles_are_styled_apart_and_loops_are_clusters() -> None:
    """ask_user is a hexagon classed ask, a handler a rhombus classed decision; the loop is a
    subgraph holding its step."""
    text = to_mermaid(HOSTILE)
    assert 'n3{{"ask: Ask"}}' in text and "class n3 ask" in text
    assert 'n2{"coin: Toss"}' in text and "class n2 decision" in text
    loop = text[text.index("subgraph loop1"):]
    assert loop.splitlines()[1].strip().startswith("n1[") and loop.splitlines()[2].strip() == "end"


def test_hostile_labels_are_escaped() -> None:
    """Quotes and markup in a title become Mermaid entity codes and DOT escapes."""
    nodes, _ = parsed(to_mermaid(HOSTILE))
    assert nodes["n1"] == "start: Say #quot;hi#quot; #lt;b#gt; #amp; go"
    assert 'label="start:\\nSay \\"hi\\" <b> & go"' in to_dot(HOSTILE)


def test_dot_has_the_same_arcs_as_the_model() -> None:
    dot = to_dot(HOSTILE)
    arcs = set(re.findall(r"^\s*(\w+) -> (\w+) \[", dot, re.MULTILINE))
    assert arcs == {(a.source, a.target) for a in diagram(HOSTILE).arcs}
    assert "subgraph cluster_0" in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_dot_accepts_every_skill(name: str) -> None:
    done = subprocess.run(["dot", "-Tsvg"], input=to_dot(WORKFLOWS[name]), text=True,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "<svg" in done.stdout


class TestGeneratedSections:
    def test_a_stale_readme_fails_the_check_and_write_keeps_the_authors_text(
            self, tmp_path: Path) -> None:
        root = make_skills(tmp_path, {"looker": GOOD.format(name="looker")})
        readme = root / "looker" / "README.md"
        readme.write_text("# looker\n\nAuthor's words.\n")
        assert skillrail("docs", "--check", "--root", str(root)).returncode == 1
        assert skillrail("docs", "--write", "--root", str(root)).returncode == 0
        text = readme.read_text()
        assert text.startswith("# looker\n\nAuthor's words.\n\n## Workflow\n")
        assert "```mermaid" in text and "n1 -.->" in text
        assert skillrail("docs", "--check", "--root", str(root)).returncode == 0

    def test_a_section_is_replaced_in_place(self) -> None:
        text = "a\n<!-- skillrail:x:start -->\nold\n<!-- skillrail:x:end -->\nb\n"
        assert with_section(text, "x", "new", "## X") == (
            "a\n<!-- skillrail:x:start -->\nnew\n<!-- skillrail:x:end -->\nb\n")

    def test_malformed_markers_are_an_error(self) -> None:
        with pytest.raises(SkillrailError, match="markers are malformed"):
            with_section("<!-- skillrail:x:end -->\n<!-- skillrail:x:start -->", "x", "n", "#")
