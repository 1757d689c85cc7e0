"""A step reads the gateway policy without pydantic or yaml: the standard library's check of a
project policy file (guard/gatecheck.py) says yes only where the pydantic model says the same
yes, with the same data; the shipped defaults are read from their parsed form (gateway.json)
only while it was made from gateway.yaml as the YAML is."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from skills.lib.workflow.base.errors import SkillrailError
from skills.lib.workflow.guard import gatepolicy
from skills.lib.workflow.guard.gatecheck import plain_policy
from skills.lib.workflow.guard.gatemodel import validated
from skills.lib.workflow.guard.gatepolicy import (
    DEFAULT_FILE,
    PARSED_FILE,
    checked_project,
    read_defaults,
    read_policy_file,
)

from .conftest import REPO
from .strategies import policy_data

pytestmark = pytest.mark.slow  # thousands of generated examples


def model_says(data: dict[str, object]) -> str | None:
    """The model's checked data as JSON (key order and 5 vs 5.0 included), or None."""
    try:
        return json.dumps(validated(data, "policy.yaml", DEFAULT_FILE))
    except SkillrailError:
        return None


@settings(max_examples=600, deadline=None)
@given(policy_data)
def test_what_the_fast_path_accepts_the_model_accepts_alike(data: dict[str, object]) -> None:
    """Whatever plain_policy returns is exactly what the model returns for the same data."""
    fast = plain_policy(data)
    if fast is not None:
        assert json.dumps(fast) == model_says(data)


def checked_or_error(check: Callable[[dict[str, object]], object],
                     data: dict[str, object]) -> object:
    """The checked data as JSON, or the error's text."""
    try:
        return json.dumps(check(data))
    except SkillrailError as exc:
        return ("error", str(exc))


@settings(max_examples=400, deadline=None)
@given(policy_data)
def test_a_project_policy_checks_the_same_with_the_fast_path_as_without(
        data: dict[str, object]) -> None:
    """What a step gets for a project file (checked_project) is what the model alone gives:
    the same data, or, for a file the fast path declines, the model's own error."""
    assert checked_or_error(lambda d: checked_project(d, "policy.yaml"), data) == \
        checked_or_error(lambda d: validated(d, "policy.yaml", DEFAULT_FILE), data)


def test_the_shipped_defaults_and_the_documented_example_take_the_fast_path(tmp_path) -> None:
    """The policies people write in the documented shape never need the model."""
    import yaml

    text = (REPO / "docs" / "gateway.md").read_text(encoding="utf-8")
    example = yaml.safe_load(text.split("```yaml\n", 1)[1].split("```", 1)[0])
    for data in (read_policy_file(DEFAULT_FILE), example):
        fast = plain_policy(data)
        assert fast is not None and json.dumps(fast) == model_says(data)


def test_a_form_only_pydantic_reads_is_left_to_the_model() -> None:
    """A number written as text is no plain policy: the model coerces it (or refuses it)."""
    data = {"version": 2, "timeout": "5"}
    assert plain_policy(data) is None
    assert model_says(data) == json.dumps({"version": 2, "timeout": 5.0})


def test_an_invalid_policy_is_left_to_the_model_for_its_message() -> None:
    """The fast path never words an error: what it declines, gatemodel explains."""
    for data in ({"version": 2, "programs": {"/bin/sh": {}}},
                 {"version": 2, "programs": {"py": {"interpreter": "skill", "options": {
                     "-c": "value"}}}}, {"version": 1}, {"programs": {}}):
        assert plain_policy(data) is None and model_says(data) is None


def test_the_parsed_defaults_were_made_from_the_yaml_as_it_is() -> None:
    """gateway.json, which steps read, holds gateway.yaml's data and the text it was made from."""
    parsed = json.loads(Path(PARSED_FILE).read_text(encoding="utf-8"))
    assert parsed["from"] == Path(DEFAULT_FILE).read_text(encoding="utf-8"), (
        "gateway.yaml changed: run python -c 'from skills.lib.workflow.guard.gatepolicy import "
        "write_defaults; write_defaults()' and commit gateway.json")
    assert json.dumps(parsed["policy"]) == json.dumps(read_policy_file(DEFAULT_FILE))


@pytest.mark.parametrize("content", ['{"from": "an older yaml", "policy": {"programs": {}}}',
                                     "not json", '["a list"]'])
def test_parsed_defaults_that_are_stale_or_damaged_are_not_read(
        content: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After an edit of gateway.yaml (or with gateway.json damaged) the YAML itself is read."""
    stale = tmp_path / "gateway.json"
    stale.write_text(content, encoding="utf-8")
    monkeypatch.setattr(gatepolicy, "PARSED_FILE", str(stale))
    assert read_defaults() == read_policy_file(DEFAULT_FILE)
