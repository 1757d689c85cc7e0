"""The standard library's readers of documents vouch only for what the library they stand in for
accepts, and read it alike, so a step that reads such a document loads neither pydantic nor
yaml: JSON documents (authoring/plaindoc.py: the planner's plan in planner/planlib/plain.py, a
review report in authoring/qrreport.py) against their pydantic model, and a SKILL.md's plain
frontmatter (authoring/skillmd.py) against yaml."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skills.lib.workflow.authoring.documents import read_document
from skills.lib.workflow.authoring.qrreport import plain_report, report_model
from skills.lib.workflow.authoring.skillmd import plain_frontmatter, split_frontmatter
from skills.planner.planlib.model import plan_model
from skills.planner.planlib.plain import plain_plan
from skills.planner.planlib.steps import sample_plan

from .conftest import SKILLS_ROOT
from .strategies import frontmatter_texts, plan_data, report_data

pytestmark = pytest.mark.slow  # thousands of generated examples


def as_data(value: Any) -> Any:
    """A plan read by the fast path as plain data, to compare with the model's dump."""
    if isinstance(value, SimpleNamespace):
        return {k: as_data(v) for k, v in vars(value).items()}
    return [as_data(v) for v in value] if isinstance(value, list) else value


def model_says(data: Any, model: Any = plan_model) -> dict[str, Any] | None:
    from pydantic import ValidationError

    try:
        return dict(model().model_validate(data).model_dump())
    except ValidationError:
        return None


@settings(max_examples=500, deadline=None)
@given(plan_data())
def test_what_the_fast_path_reads_the_model_reads_alike(data: dict[str, object]) -> None:
    """Every plan plain_plan returns is one the model accepts, with the same fields and
    defaults."""
    plan = plain_plan(data)
    if plan is not None:
        assert as_data(plan) == model_says(data)


def test_the_sample_plans_take_the_fast_path() -> None:
    """A plan written as plan-format.md says (the sample) needs no model."""
    for approved in (True, False):
        plan = plain_plan(sample_plan(approved))
        assert plan is not None and as_data(plan) == model_says(sample_plan(approved))


def test_a_plan_with_a_dependency_cycle_is_left_to_the_model() -> None:
    """The graph rules hold on the fast path too: the model words the problem."""
    data = sample_plan(approved=True)
    data["milestones"][0]["depends_on"] = ["M2"]  # type: ignore[index]
    assert plain_plan(data) is None and model_says(data) is None


@settings(max_examples=300, deadline=None)
@given(report_data())
def test_what_the_fast_path_reads_of_a_report_the_model_reads_alike(data: object) -> None:
    """Every report plain_report returns is one the model accepts, defaults included."""
    report = plain_report(data)
    if report is not None:
        assert as_data(report) == model_says(data, report_model)


def outcome(read: tuple[Any, str]) -> tuple[Any, str]:
    """What read_document gave, as plain data: (the document or None, the problem)."""
    document, problem = read
    if hasattr(document, "model_dump"):
        document = document.model_dump()
    return (as_data(document) if document is not None else None), problem


_DOCUMENTS = st.one_of(st.tuples(st.just("plan"), plan_data()),
                       st.tuples(st.just("report"), report_data()))
_READERS: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
    "plan": (plan_model, plain_plan), "report": (report_model, plain_report)}


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS)
def test_a_document_reads_the_same_with_the_fast_path_as_without(
        drawn: tuple[str, Any]) -> None:
    """read_document with its plain reader gives what the model alone gives, for any data:
    the same document when it is valid, and, when it is not, the model's own words (the fast
    path declines: it never refuses a document itself)."""
    what, data = drawn
    model, plain_reader = _READERS[what]
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / f"{what}.json")
        Path(path).write_text(json.dumps(data), encoding="utf-8")
        fast = outcome(read_document(path, model, what, plain=plain_reader))
        assert fast == outcome(read_document(path, model, what))
    assert (fast[0] is None) == (model_says(data, model) is None)


@pytest.mark.parametrize(("what", "data"), [
    ("plan", {**sample_plan(approved=True), "request": "\ud800"}),
    ("report", {"items": [{"id": "F\udc80", "severity": "MUST", "location": "a.py:3",
                           "problem": "x"}]})])
def test_a_lone_surrogate_in_a_constrained_string_is_left_to_the_model(
        what: str, data: Any) -> None:
    """pydantic checks a `min_length` string as Unicode and refuses a lone surrogate (which
    JSON can carry as "\\ud800"): the fast path declines it, and the model words it."""
    model, plain_reader = _READERS[what]
    assert plain_reader(data) is None and model_says(data, model) is None


def test_a_report_in_the_documented_shape_takes_the_fast_path() -> None:
    data = {"reviewer": "self",
            "items": [{"id": "F1", "severity": "MUST", "location": "a.py:3", "problem": "x"}]}
    assert as_data(plain_report(data)) == model_says(data, report_model) == {
        "reviewer": "self", "items": [{"id": "F1", "severity": "MUST", "status": "open",
                                       "location": "a.py:3", "problem": "x", "fix": ""}]}


@settings(max_examples=500, deadline=None)
@given(frontmatter_texts())
def test_what_the_plain_frontmatter_reads_yaml_reads_alike(front: str) -> None:
    """Every frontmatter plain_frontmatter reads, yaml reads as the same mapping of strings."""
    import yaml

    found = plain_frontmatter(front)
    if found is not None:
        assert found == yaml.safe_load(front)


def test_every_shipped_skill_md_takes_the_plain_path() -> None:
    """The frontmatter of every shipped SKILL.md (and of skill-runner's example) is plain."""
    import yaml

    for path in sorted(SKILLS_ROOT.rglob("SKILL.md")):
        parts = split_frontmatter(path.read_text(encoding="utf-8"))
        assert parts is not None, path
        assert plain_frontmatter(parts[0]) == yaml.safe_load(parts[0]), path
