"""The HTML report's page (`skillrail report`): per skill, each workflow's diagram as an inline
SVG picture (Graphviz's dot when it is installed, else the built-in layout) with its Mermaid
source folded below it, and a table of its steps; then a timeline of recent runs, each with who
started it where and linked to its summary trace (already redacted by `history`).

Built as an element tree (`htmlpage`), with one inline style sheet: the page loads nothing.
"""

from __future__ import annotations

import time
from typing import Any

from ..base.errors import SkillrailError
from ..graph.analysis import worst_case_steps
from ..graph.model import Rework, StepDef, Workflow
from ..guard.redact import redact
from ..ledger.store import Run
from ..step.discovery import Discovery
from .history import event_text, stamp, started_by
from .htmlpage import Node, document, el, svg

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td ul, td ol { margin: 0; padding-left: 1.2em; }
pre { background: #f6f6f6; padding: 0.75em; overflow-x: auto; }
.status-completed { color: #1a7f37; } .status-abandoned { color: #a40e26; }
.status-partial { color: #9a6700; }
.status-active { color: #0b5cad; } .note { color: #666; font-style: italic; }
li.approved { background: #fff4d6; }
section.trace { border-top: 1px solid #ddd; margin-top: 1em; }
figure.diagram { margin: 0.5em 0; overflow-x: auto; }
figure.diagram svg { max-width: none; height: auto; }
details { margin: 0.5em 0 1em; } summary { cursor: pointer; color: #555; }
"""


def page(found: Discovery, runs: list[Run], traces: list[dict[str, Any]], total: int,
         ledger_path: str) -> str:
    """The whole page, serialized."""
    return document("skillrail report", STYLE,
                    _body(found, runs, traces, total, ledger_path))


def _body(found: Discovery, runs: list[Run], traces: list[dict[str, Any]], total: int,
          ledger_path: str) -> list[Node]:
    """The page's body: heading, skills, the run timeline, the run summaries."""
    intro = el("p", f"Generated {stamp(time.time())} from the run ledger {ledger_path}: "
                    f"{len(found.workflows)} workflows, the {len(runs)} most recent of "
                    f"{total} runs.")
    nav = el("nav", el("a", "Skills", href="#skills"), " | ", el("a", "Runs", href="#runs"))
    return [el("h1", "skillrail report"), intro, nav, _skills(found),
            _timeline(runs, total), _traces(traces)]


def _skills(found: Discovery) -> Node:
    by_skill: dict[str, list[Workflow]] = {}
    for wf in found.workflows:
        by_skill.setdefault(wf.skill, []).append(wf)
    sections = [el("section", el("h3", skill), [_workflow(wf) for wf in wfs],
                   id=f"skill-{skill}", class_="skill") for skill, wfs in sorted(by_skill.items())]
    # A script's error may quote what it was given (a token in a URL): redacted, as the
    # same error is in the summary of a run of that script.
    failed = [el("li", el("code", e.path), ": ", redact(e.message)) for e in found.errors]
    return el("section", el("h2", "Skills"), sections or el("p", "No skills found."),
              el("h3", "Scripts that failed to load") if failed else None,
              el("ul", failed) if failed else None, id="skills")


def _workflow(wf: Workflow) -> Node:
    bound = worst_case_steps(wf)
    facts = (f"Workflow {wf.name}: entry step '{wf.entry}', "
             + (f"at most {bound} step{'s' * (bound != 1)} per run." if bound
                else "no static bound on steps."))
    picture, source, notes = _diagrams(wf)
    return el("div", el("h4", wf.name) if wf.name != wf.skill else None,
              el("p", wf.description) if wf.description else None, el("p", facts),
              el("figure", picture, class_="diagram") if picture else None,
              el("details", el("summary", "Mermaid source"),
                 el("pre", source, class_="mermaid-source")) if source else None,
              [el("p", note, class_="note") for note in notes],
              _steps_table(wf), class_="workflow", id=f"workflow-{wf.name}")


def _diagrams(wf: Workflow) -> tuple[Node | None, str, list[str]]:
    """The workflow's picture, its Mermaid source, and a note for each one missing: one bad
    diagram must not cost the whole page."""
    try:
        from ..graph.diagram import diagram, to_mermaid
        from ..graph.svg import drawn, to_svg
    except ImportError:
        return None, "", ["No diagram: skills.lib.workflow.graph.diagram is not available."]
    notes, source, picture = [], "", None
    try:
        source = to_mermaid(wf)
    except Exception as exc:  # noqa: BLE001 - a diagram that fails is a note, not a lost page
        notes.append(f"No Mermaid source: to_mermaid failed: {type(exc).__name__}: {exc}")
    try:
        try:
            markup = to_svg(wf)
        except SkillrailError as exc:  # dot is installed but failed: draw it without
            notes.append(f"{exc.what}; drawn by the built-in layout instead.")
            markup = drawn(diagram(wf))
        picture = svg(markup)
    except Exception as exc:  # noqa: BLE001 - a picture that fails is a note, not a lost page
        notes.append(f"No picture: {type(exc).__name__}: {exc}")
    return picture, source, notes


def _steps_table(wf: Workflow) -> Node:
    head = el("tr", [el("th", h) for h in ("#", "step", "title", "decided by", "outcomes",
                                           "reads", "writes")])
    rows = [el("tr", el("td", str(n)), el("td", el("code", s.id)), el("td", s.title),
               el("td", s.decided_by), el("td", el("ul", _routes(s))),
               el("td", ", ".join(s.reads) or "-"), el("td", ", ".join(s.writes) or "-"))
            for n, s in enumerate(wf.steps, 1)]
    return el("table", el("thead", head), el("tbody", rows), class_="steps")


def _routes(step: StepDef) -> list[Node]:
    items = []
    for outcome, target in step.next.items():
        if isinstance(target, Rework):
            text = (f"{outcome} \u2192 {target.target} (rework, at most {target.max_iterations}"
                    f" passes, then {target.on_exhausted})")
        else:
            text = f"{outcome} \u2192 {target or '(end of run)'}"
        items.append(el("li", text))
    return items


def _timeline(runs: list[Run], total: int) -> Node:
    head = el("tr", [el("th", h) for h in ("run", "status", "skill", "workflow", "steps",
                                           "started", "by", "ended", "sub-run of")])
    shown = {r.id for r in runs}
    rows = [el("tr", el("td", el("a", r.id, href=f"#run-{r.id}")),
               el("td", r.state, class_=f"status-{r.state}"), el("td", r.skill),
               el("td", r.workflow), el("td", str(r.hops)), el("td", stamp(r.started)),
               el("td", started_by(r.host, r.who) or "-"),
               el("td", "-" if r.status == "active" else stamp(r.updated)),
               el("td", _parent(r.parent, shown)))
            for r in runs]
    body = el("table", el("thead", head), el("tbody", rows), class_="timeline") if runs \
        else el("p", "No runs in the ledger." if total == 0 else "No runs shown (--limit 0).")
    return el("section", el("h2", "Recent runs"), body, id="runs")


def _parent(parent: str | None, shown: set[str]) -> Node | str:
    """A link to the parent run's summary when the page holds it (--limit may leave it out)."""
    if parent is None:
        return "-"
    return el("a", parent, href=f"#run-{parent}") if parent in shown else parent


def _traces(traces: list[dict[str, Any]]) -> Node:
    return el("section", el("h2", "Run summaries"), [_trace(t) for t in traces], id="summaries")


def _trace(doc: dict[str, Any]) -> Node:
    """One run's summary trace (already redacted) as a heading and an ordered list."""
    by = started_by(doc.get("host"), doc.get("who"))
    facts = (f"{doc['workflow']}: {doc['status']} at '{doc['step']}' after {doc['steps']} "
             f"step{'s' * (doc['steps'] != 1)}; started {doc['started']}"
             + (f" by {by}" if by else "") + f", last change {doc['updated']}.")
    items = [el("li", el("time", e["at"]), " ", _entry_text(e),
                class_="approved" if e.get("event") == "approved-in-advance" else None)
             for e in doc["timeline"]]
    return el("section", el("h3", doc["run"]), el("p", facts),
              el("p", doc["note"], class_="note") if doc.get("note") else None,
              el("ol", items, class_="milestones"), el("a", "back to the runs", href="#runs"),
              id=f"run-{doc['run']}", class_="trace")


def _entry_text(entry: dict[str, Any]) -> str:
    if entry["kind"] == "event":
        return event_text(entry["event"], entry["detail"])
    why = f" ({entry['milestone']})" if entry.get("milestone") else ""
    return f"{entry['source']} --{entry['outcome']}--> {entry['target']}{why}"
