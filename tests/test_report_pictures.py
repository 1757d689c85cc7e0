"""The pictures as a person gets them, drawn by Graphviz's dot and, with dot hidden from PATH, by
the built-in layout: `skillrail graph --format svg`, and the report page in a real headless
Chromium, whose DOM holds one picture per workflow with one node per step and whose screenshot
shows them drawn. A dot that fails is one error line, and the report draws without it."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import SKILLS_ROOT
from .history_support import APPROVAL, make_triage
from .pngread import ink
from .test_commands import GOOD, skillrail
from .test_report import browse, dom, needs_browser, parse, report
from .test_skills import WORKFLOWS

pytestmark = pytest.mark.slow  # Chromium loads each report

SVG = "{http://www.w3.org/2000/svg}"
SYSTEM_PATH = "/usr/bin:/bin"  # what the CLI tests run with
WINDOW = (1000, 4000)


@pytest.fixture(params=["dot", "skillrail"])
def renderer(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """A renderer's name and the PATH that makes `skillrail` use it: the system's, holding
    dot, or an empty folder, where the built-in layout draws."""
    if request.param == "dot":
        if shutil.which("dot", path=SYSTEM_PATH) is None:
            pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)")
        return "dot", SYSTEM_PATH
    (tmp_path / "no-dot").mkdir()
    return "skillrail", str(tmp_path / "no-dot")


@pytest.fixture
def skills(tmp_path: Path) -> tuple[Path, dict[str, list[str]]]:
    """Three skills (a rework loop and a question; a self-loop; a plain question) and each
    one's step ids."""
    root, triage = make_triage(tmp_path, others={"looker": GOOD.format(name="looker"),
                                                 "approval": APPROVAL})
    return root, {"triage": [s.id for s in triage.steps], "looker": ["look", "done"],
                  "approval": ["draft", "approve", "done"]}


def step_nodes(groups: list[tuple[str, str]]) -> list[str]:
    """The step ids the step nodes show, from (class, written text) pairs of <g> elements."""
    return [text.strip().split(":")[0] for cls, text in groups
            if "node" in cls.split() and "end" not in cls.split()]


def test_graph_draws_every_step(renderer: tuple[str, str]) -> None:
    """`skillrail graph --format svg`: a well-formed SVG from the renderer PATH allows, each
    step a node that says its id."""
    name, path = renderer
    wf = WORKFLOWS["problem-analysis"]
    proc = skillrail("graph", "problem-analysis", "--format", "svg", path=path)
    assert (proc.returncode, proc.stderr) == (0, "")
    root = ET.fromstring(proc.stdout)
    assert root.tag == SVG + "svg" and root.get("data-renderer") == name
    shown = step_nodes([(g.get("class", ""), "".join(t for e in g.iter(SVG + "text")
                                                     for t in e.itertext()))
                        for g in root.iter(SVG + "g")])
    assert sorted(shown) == sorted(s.id for s in wf.steps)


@needs_browser
def test_every_skill_shows_a_picture_with_one_node_per_step(
        tmp_path: Path, renderer: tuple[str, str],
        skills: tuple[Path, dict[str, list[str]]]) -> None:
    """In Chromium's DOM, each skill's section holds its workflow's picture (from the expected
    renderer), its nodes the skill's steps in order of their ids."""
    name, path = renderer
    root, steps = skills
    report(tmp_path, root, path=path)
    page = dom(tmp_path / "report.html", tmp_path / "profile")
    for skill, ids in steps.items():
        (section,) = page.find("section", id=f"skill-{skill}")
        (svg,) = section.iter("svg")
        assert svg.attrs["data-renderer"] == name
        shown = step_nodes([(g.attrs.get("class", ""), "".join(t.text() for t in g.iter("text")))
                            for g in svg.iter("g")])
        assert sorted(shown) == sorted(ids), skill
        assert section.find("pre", class_="mermaid-source"), "the Mermaid source stays"


@needs_browser
def test_a_screenshot_shows_the_pictures_drawn(
        tmp_path: Path, renderer: tuple[str, str],
        skills: tuple[Path, dict[str, list[str]]]) -> None:
    """The page, and the same page without its pictures, each whole in the window: with them,
    the page reaches further down and holds more ink, by at least a node's outline a step."""
    _, path = renderer
    root, steps = skills
    report(tmp_path, root, path=path)
    page = tmp_path / "report.html"
    bare, figures = re.subn(r'<figure class="diagram">.*?</figure>', "",
                            page.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert figures == len(steps)
    (tmp_path / "bare.html").write_text(bare, encoding="utf-8")
    shots = []
    for name in ("report", "bare"):
        shot = tmp_path / f"{name}.png"
        browse(tmp_path / f"{name}.html", tmp_path / f"profile-{name}", f"--screenshot={shot}",
               f"--window-size={WINDOW[0]},{WINDOW[1]}", "--hide-scrollbars",
               "--force-device-scale-factor=1")
        shots.append(ink(shot))
    (width, height, dark, bottom), (bare_width, bare_height, bare_dark, bare_bottom) = shots
    assert (width, height) == (bare_width, bare_height) == WINDOW
    assert bottom < height - 40, "the whole page fits the window"
    nodes = sum(len(ids) + 1 for ids in steps.values())  # the end node too
    assert bottom - bare_bottom >= 30 * nodes, "each picture takes room down the page"
    assert dark - bare_dark >= 300 * nodes, "and draws at least an outline per node"


def test_a_dot_that_fails_is_one_error_line_and_the_report_draws_without_it(
        tmp_path: Path, skills: tuple[Path, dict[str, list[str]]]) -> None:
    """A `dot` on PATH that fails: `graph --format svg` exits 1 with one line that says so;
    the report notes it and draws each workflow with the built-in layout."""
    root, steps = skills
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Error: out of ink' >&2\nexit 3\n")
    fake.chmod(0o755)
    proc = skillrail("graph", "looker", "--format", "svg", "--root", str(root),
                     path=str(fake.parent))
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.count("\n") == 1 and "dot failed: Error: out of ink" in proc.stderr
    report(tmp_path, root, path=str(fake.parent))
    page = parse((tmp_path / "report.html").read_text(encoding="utf-8"))
    for skill in steps:
        (section,) = page.find("section", id=f"skill-{skill}")
        assert [s.attrs["data-renderer"] for s in section.iter("svg")] == ["skillrail"]
        assert "dot failed" in section.find("p", class_="note")[0].text()


#: Measures, once the page is laid out, the smallest height a label of the planner's picture is
#: drawn at, in CSS pixels, and writes it into the DOM for --dump-dom to print.
MEASURE = """<script>
const sizes = [...document.querySelectorAll('#skill-planner figure.diagram svg text')]
  .map(t => t.getBoundingClientRect().height).filter(h => h > 0);
document.body.setAttribute('data-labels', String(sizes.length));
document.body.setAttribute('data-smallest', String(Math.min(...sizes)));
</script></body>"""


@needs_browser
def test_the_planners_labels_are_readable_on_the_page(tmp_path: Path,
                                                      renderer: tuple[str, str]) -> None:
    """The planner's picture, the largest shipped, as the page shows it in a window 1000 px
    wide: each label drawn at least 11 px high (scaled down to the page's width, its labels
    were about 4 px). A picture wider than the page scrolls within its figure instead."""
    _, path = renderer
    report(tmp_path, SKILLS_ROOT, path=path)
    page = tmp_path / "report.html"
    text = page.read_text(encoding="utf-8")
    assert 'id="skill-planner"' in text
    (tmp_path / "measured.html").write_text(text.replace("</body>", MEASURE, 1),
                                            encoding="utf-8")
    (body,) = dom(tmp_path / "measured.html", tmp_path / "profile").find("body")
    assert int(body.attrs["data-labels"]) > 60  # every node's and edge's label
    assert float(body.attrs["data-smallest"]) >= 11, body.attrs
