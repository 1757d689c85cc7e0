"""`skillrail report --html FILE`: one self-contained page, parsed back with the standard
library's `html.parser` and checked as structure: skills with diagrams and step tables, the run
timeline, each run's redacted summary."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from skills.lib.workflow import Workflow
from skills.lib.workflow.commands import main as skillrail_main
from skills.lib.workflow.ledger.store import Ledger
from skills.lib.workflow.tools.htmlpage import el, serialize, svg

from .history_support import GITHUB_TOKEN, PASSWORD, escalated, make_triage, started, straight
from .test_commands import skillrail

VOID = {"meta", "br", "hr", "img", "link", "input"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self, tag: str | None = None) -> list[Element]:
        found = [self] if tag in (None, self.tag) else []
        for child in self.children:
            if isinstance(child, Element):
                found += child.iter(tag)
        return found

    def find(self, tag: str, **attrs: str) -> list[Element]:
        return [e for e in self.iter(tag)
                if all(e.attrs.get(k.rstrip("_")) == v for k, v in attrs.items())]


class _TreeBuilder(HTMLParser):
    """The page as a tree; fails on a closing tag that does not match the open element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Element:
    builder = _TreeBuilder()
    builder.feed(page)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    assert builder.doctype.lower() == "doctype html"
    return builder.root


def rows(table: Element) -> list[list[str]]:
    return [[td.text() for td in tr.iter("td")] for tr in table.find("tbody")[0].iter("tr")]


@pytest.fixture
def skills(tmp_path: Path) -> tuple[Path, Workflow]:
    return make_triage(tmp_path)


def report(tmp_path: Path, root: Path, *args: str, path: str = "/usr/bin:/bin") -> Element:
    out = tmp_path / "report.html"
    proc = skillrail("report", "--html", str(out), "--root", str(root), *args, path=path)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    return parse(out.read_text(encoding="utf-8"))


class TestStructure:
    def test_each_skill_has_its_diagram_and_step_table(self, tmp_path: Path,
                                                       skills: tuple[Path, Workflow]) -> None:
        """Per discovered skill: a section with the picture, the Mermaid source and one row
        per step."""
        root, triage = skills
        page = report(tmp_path, root)
        (section,) = page.find("section", id="skill-triage")
        (figure,) = section.find("figure", class_="diagram")
        assert len(figure.iter("svg")) == 1
        (diagram,) = section.find("pre", class_="mermaid-source")
        assert diagram.text().lstrip().startswith(("---", "flowchart", "graph"))
        (table,) = section.find("table", class_="steps")
        assert [r[1] for r in rows(table)] == [s.id for s in triage.steps]
        assert rows(table)[1][4] == "iterate \u2192 gather (rework, at most 2 passes, then " \
                                    "confirm)ok \u2192 done"

    def test_the_timeline_lists_recent_runs_newest_first_linked_to_summaries(
            self, tmp_path: Path, skills: tuple[Path, Workflow]) -> None:
        """Each run is a row (status, skill, steps) whose link leads to its summary section."""
        root, triage = skills
        first, second = escalated(triage), started(triage)
        page = report(tmp_path, root)
        (timeline,) = page.find("table", class_="timeline")
        assert [r[:5] for r in rows(timeline)] == [[second, "active", "triage", "triage", "2"],
                                                   [first, "completed", "triage", "triage", "6"]]
        ids = {e.attrs["id"] for e in page.iter() if "id" in e.attrs}
        links = [a.attrs["href"] for a in timeline.iter("a")]
        assert links == [f"#run-{second}", f"#run-{first}"]
        assert {link[1:] for link in links} <= ids

    def test_an_answer_an_approval_gave_in_advance_is_marked_with_the_users_words(
            self, tmp_path: Path, skills: tuple[Path, Workflow]) -> None:
        """The run's summary marks each question an approval given in advance answered."""
        root, triage = skills
        run = straight(triage)
        with Ledger() as ledger, ledger.transaction():
            ledger.event(run, "approved-in-advance", json.dumps(
                {"step": "confirm", "outcome": "yes", "words": "--approve confirm",
                 "condition": "", "source": "prompt"}))
        page = report(tmp_path, root)
        (section,) = page.find("section", id=f"run-{run}")
        (marked,) = section.find("li", class_="approved")
        assert "answered 'confirm' with 'yes': “--approve confirm”" in marked.text()

    @pytest.mark.parametrize("limit", ["2", "1"])
    def test_a_sub_run_links_to_its_parent_only_when_the_page_holds_it(
            self, tmp_path: Path, skills: tuple[Path, Workflow], limit: str) -> None:
        """'sub-run of' links to the parent's summary, or names it when --limit left it out:
        every link in the page leads to an element of the page."""
        root, triage = skills
        parent = started(triage)
        started(triage, "--parent", parent)
        page = report(tmp_path, root, "--limit", limit)
        (timeline,) = page.find("table", class_="timeline")
        cell = timeline.find("tbody")[0].iter("tr")[0].iter("td")[-1]
        assert cell.text() == parent
        assert [a.attrs["href"] for a in cell.iter("a")] == ([f"#run-{parent}"] if limit == "2"
                                                             else [])
        ids = {e.attrs["id"] for e in page.iter() if "id" in e.attrs}
        assert {a.attrs["href"][1:] for a in page.iter("a")} <= ids

    def test_a_summary_lists_the_milestones_of_its_run(self, tmp_path: Path,
                                                       skills: tuple[Path, Workflow]) -> None:
        """The summary of an escalated run: start, two decisions, the escalation (the loop ran
        out into the question), the end."""
        root, triage = skills
        run_id = escalated(triage)
        (section,) = report(tmp_path, root).find("section", id=f"run-{run_id}")
        items = [li.text() for li in section.find("ol")[0].iter("li")]
        assert [item.split(" ", 2)[2] for item in items] == [
            "start: gather", "check --iterate--> gather (decision)",
            "check --iterate--> confirm (escalation)", "confirm --approve--> done (decision)",
            "completed: ended at done"]

    def test_limit_keeps_the_most_recent_runs(self, tmp_path: Path,
                                              skills: tuple[Path, Workflow]) -> None:
        """--limit 1 shows only the newest run, and only its summary."""
        root, triage = skills
        straight(triage)
        newest = started(triage)
        page = report(tmp_path, root, "--limit", "1")
        assert [r[0] for r in rows(page.find("table", class_="timeline")[0])] == [newest]
        assert [s.attrs["id"] for s in page.find("section", class_="trace")] == [f"run-{newest}"]


class TestSafety:
    def test_the_page_loads_nothing_from_anywhere(self, tmp_path: Path,
                                                  skills: tuple[Path, Workflow]) -> None:
        """No scripts, links, images or frames; every href is an anchor in the page; the style
        sheet imports nothing."""
        root, triage = skills
        escalated(triage)
        page = report(tmp_path, root)
        for tag in ("script", "link", "img", "iframe", "object", "embed", "base"):
            assert page.iter(tag) == [], tag
        assert all("src" not in e.attrs for e in page.iter())
        assert all(a.attrs["href"].startswith("#") for a in page.iter("a"))
        (style,) = page.iter("style")
        assert "url(" not in style.text() and "@import" not in style.text()

    def test_markup_in_texts_is_shown_as_text(self, tmp_path: Path,
                                              skills: tuple[Path, Workflow]) -> None:
        """A description holding '</pre><script>' and '&' reads back verbatim as text."""
        root, triage = skills
        page = report(tmp_path, root)
        (section,) = page.find("section", id="skill-triage")
        assert section.find("p")[0].text() == triage.description
        assert page.iter("script") == []

    def test_the_secrets_a_run_recorded_never_reach_the_page(
            self, tmp_path: Path, skills: tuple[Path, Workflow]) -> None:
        """The ledger holds a GitHub token and a password in a run's memory and params; the
        page, which shows each run's summary and none of its values, holds neither."""
        root, triage = skills
        run_id = escalated(triage)
        with Ledger() as ledger:
            recorded = ledger.run(run_id)
        assert recorded is not None and recorded.memory["API_TOKEN"] == GITHUB_TOKEN
        assert PASSWORD in recorded.memory["NOTE"] and PASSWORD in recorded.params["context"]
        report(tmp_path, root)
        text = (tmp_path / "report.html").read_text(encoding="utf-8")
        assert GITHUB_TOKEN not in text and PASSWORD not in text

    def test_a_secret_in_a_text_the_page_shows_is_redacted(
            self, tmp_path: Path, skills: tuple[Path, Workflow]) -> None:
        """A run's skill script that no longer loads, its error quoting the token the run was
        given: the run's summary and the list of scripts that failed to load show the error
        with the token masked, and the token is nowhere in the file."""
        root, triage = skills
        run_id = escalated(triage)
        remote = f"https://x-access-token:{GITHUB_TOKEN}@github.com/acme/app.git"
        (root / "triage" / "scripts" / "triage.py").write_text(
            f"raise RuntimeError('cannot clone {remote}')\n", encoding="utf-8")
        page = report(tmp_path, root)
        (section,) = page.find("section", id=f"run-{run_id}")
        (note,) = section.find("p", class_="note")
        assert "failed to load (RuntimeError: cannot clone https://x-access-token:[REDACTED" \
            in note.text(), note.text()
        (failed,) = page.find("section", id="skills")[0].iter("ul")
        assert "cannot clone https://x-access-token:[REDACTED" in failed.text(), failed.text()
        assert GITHUB_TOKEN not in (tmp_path / "report.html").read_text(encoding="utf-8")


class TestProblems:
    def test_an_unwritable_file_is_one_error_line(self, tmp_path: Path) -> None:
        """A file in a missing folder: exit 1, one line saying where, no traceback."""
        proc = skillrail("report", "--html", str(tmp_path / "no" / "such" / "r.html"))
        assert (proc.returncode, proc.stdout) == (1, "")
        assert proc.stderr.count("\n") == 1 and "cannot write the report" in proc.stderr

    def test_without_html_the_page_goes_beside_the_ledger(self, tmp_path: Path,
                                                          skills: tuple[Path, Workflow]) -> None:
        """No --html: the page is written to the state folder (never into the project, where
        it would be an untracked file), and the command says where."""
        import os

        root, _ = skills
        proc = skillrail("report", "--root", str(root), "--json", cwd=tmp_path)
        written = Path(os.environ["SKILLRAIL_HOME"]) / "report.html"
        assert proc.returncode == 0 and json.loads(proc.stdout)["html"] == str(written)
        assert parse(written.read_text(encoding="utf-8")).find("section", id="skill-triage")
        assert not list(tmp_path.glob("*.html"))

    def test_a_negative_limit_is_a_usage_error(self, tmp_path: Path) -> None:
        """--limit -1: exit 2, one line."""
        proc = skillrail("report", "--html", str(tmp_path / "r.html"), "--limit", "-1")
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1

    def test_without_the_diagram_module_the_page_says_so(
            self, tmp_path: Path, skills: tuple[Path, Workflow], monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> None:
        """If skills.lib.workflow.graph.diagram cannot be imported, each workflow gets a note
        instead of its diagram, and the step tables are still there."""
        root, _ = skills
        monkeypatch.setitem(sys.modules, "skills.lib.workflow.graph.diagram", None)
        out = tmp_path / "r.html"
        assert skillrail_main(["report", "--html", str(out), "--root", str(root), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["workflows"] == 1
        (section,) = parse(out.read_text(encoding="utf-8")).find("section", id="skill-triage")
        assert section.find("pre") == []
        assert "No diagram" in section.find("p", class_="note")[0].text()
        assert len(section.find("table", class_="steps")) == 1


    @pytest.mark.parametrize("change", ["removed", "emptied"])
    def test_each_runs_note_names_that_run_and_no_other(
            self, tmp_path: Path, skills: tuple[Path, Workflow], change: str) -> None:
        """Two runs of a script that no longer loads (gone, or defining no workflow): one
        load serves both, yet each summary's note offers the abandon command of its own run,
        and an ended run's note offers none."""
        root, triage = skills
        ended, active = straight(triage), started(triage)
        script = root / "triage" / "scripts" / "triage.py"
        if change == "removed":
            script.unlink()
        else:
            script.write_text("import sys\n")
        page = report(tmp_path, root)
        notes = {run: section.find("p", class_="note")[0].text()
                 for run in (ended, active) for section in page.find("section", id=f"run-{run}")}
        why = "its script is gone" if change == "removed" else "no longer defines workflow"
        assert all(why in note and "every transition is shown" in note
                   for note in notes.values()), notes
        assert f"abandon {active}`" in notes[active] and ended not in notes[active]
        assert "abandon" not in notes[ended] and active not in notes[ended]


class TestHtmlPage:
    def test_texts_and_attributes_are_escaped(self) -> None:
        """'<', '&' and quotes in texts and attribute values come back unchanged after a parse."""
        hostile = "</p><script>x</script> & \"q\" 'a'"
        tree = parse("<!DOCTYPE html>" + serialize(el("p", hostile, title=hostile)))
        (p,) = tree.iter("p")
        assert (p.text(), p.attrs["title"]) == (hostile, hostile)

    def test_characters_html_cannot_carry_are_dropped(self) -> None:
        """NUL and other C0 controls never reach the page."""
        assert serialize(el("p", "a\x00b\x1bc")) == "<p>abc</p>"

    def test_a_picture_is_read_into_elements_without_what_could_run(self) -> None:
        """An SVG's texts are escaped again; handlers and namespaced links are dropped; a
        script, a link or an image is refused."""
        picture = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink"'
                   ' viewBox="0 0 9 9"><g onclick="x()" x:href="#a" class="node"><text>a &lt;'
                   '<tspan>b</tspan> &amp;</text></g></svg>')
        assert serialize(svg(picture)) == ('<svg viewBox="0 0 9 9"><g class="node"><text>a &lt;'
                                           "<tspan>b</tspan> &amp;</text></g></svg>")
        for inside in ("<script>x()</script>", '<a href="#a"/>', '<image href="x.png"/>'):
            with pytest.raises(ValueError, match="may not hold"):
                svg(f'<svg xmlns="http://www.w3.org/2000/svg">{inside}</svg>')
        with pytest.raises(ValueError, match="well-formed"):
            svg("<svg><g></svg>")

    @pytest.mark.parametrize("bad", [el("p onclick=x"), el("p", **{"on click": "x"})])
    def test_names_are_checked(self, bad: object) -> None:
        """A tag or attribute name that is not a plain name is refused, not written."""
        with pytest.raises(ValueError, match="not an HTML name"):
            serialize(bad)  # type: ignore[arg-type]


BROWSERS = ("chromium", "chromium-browser", "google-chrome")
BROWSER = next((path for b in BROWSERS if (path := shutil.which(b))), None)
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no chromium, chromium-browser or "
                                                           "google-chrome on PATH")


def browse(page: Path, profile: Path, *flags: str) -> str:
    """Headless Chromium, offline and with a fresh profile, run on `page` with `flags`
    (--dump-dom, --screenshot=FILE): what it printed."""
    assert BROWSER is not None
    proc = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--no-first-run", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={profile}", *flags, page.as_uri()],
                          capture_output=True, text=True, timeout=90, check=True)
    return proc.stdout


def dom(page: Path, profile: Path) -> Element:
    """The live DOM of `page` once loaded, as a tree."""
    # --dump-dom prints the live DOM, with or without a doctype depending on the version.
    text = browse(page, profile, "--dump-dom")
    return parse("<!DOCTYPE html>" + re.sub(r"^\s*<!doctype[^>]*>", "", text, flags=re.I))


@needs_browser
def test_a_headless_browser_renders_the_page(tmp_path: Path,
                                             skills: tuple[Path, Workflow]) -> None:
    """Chromium loads the page offline and its DOM holds the timeline and the summaries."""
    root, triage = skills
    run_id = escalated(triage)
    report(tmp_path, root)
    page = dom(tmp_path / "report.html", tmp_path / "profile")
    assert [r[0] for r in rows(page.find("table", class_="timeline")[0])] == [run_id]
    assert len(page.find("section", id=f"run-{run_id}")) == 1
