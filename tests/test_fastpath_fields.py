"""Each standard-library fast path is checked from the one model it stands in for: its fields
are derived here from the pydantic model (names in order, types and constraints, required or
the default) and must be the fast path's own, so a field added to, changed in or dropped from
a model fails here by name until the fast path follows. What the fast path then answers is
held to the model's answers by the property tests (test_plaindoc.py, test_gatecheck.py)."""

from __future__ import annotations

import re
import types
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from pydantic import BaseModel
from skills.lib.workflow.authoring.plaindoc import REQUIRED, many, one_of, record, spec_of, text
from skills.lib.workflow.authoring.qrreport import plain_reader, report_model
from skills.lib.workflow.guard import gatecheck, gatemodel
from skills.planner.planlib.model import plan_model
from skills.planner.planlib.plain import read_fields


def _least(metadata: list[Any]) -> int:
    return next((m.min_length for m in metadata if hasattr(m, "min_length")), 0)


def _pattern(metadata: list[Any]) -> str | None:
    found = next((m.pattern for m in metadata if getattr(m, "pattern", None)), None)
    return None if found is None else re.sub(r"^\^|\$$", "", found)


def type_spec(annotation: Any, metadata: list[Any]) -> Any:
    """What a model's field type stands for, in the terms plaindoc's checks describe."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        (only,) = [a for a in get_args(annotation) if a is not type(None)]
        return type_spec(only, metadata)  # None is the default, which the fast path gives
    if origin is Literal:
        return ("literal", get_args(annotation))
    if origin is list:
        (item,) = get_args(annotation)
        return ("list", type_spec(item, []), _least(metadata))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_spec(annotation)
    assert annotation is str, f"no fast-path form for {annotation!r}"
    pattern = _pattern(metadata)
    if pattern is not None:
        return ("pattern", pattern)
    return "text" if _least(metadata) == 1 else "str"


def model_spec(model: type[BaseModel]) -> Any:
    fields = {}
    for name, info in model.model_fields.items():
        default = ("required" if info.is_required() else
                   "[]" if info.default_factory is list else info.default)
        fields[name] = (type_spec(info.annotation, info.metadata), default)
    return ("object", fields)


@pytest.mark.parametrize(("reader", "model"), [
    (plain_reader(), report_model()), (read_fields, plan_model())],
    ids=["review report", "plan"])
def test_a_documents_fast_path_has_its_models_fields(reader: Any, model: type[BaseModel]
                                                      ) -> None:
    assert spec_of(reader) == model_spec(model)


def test_a_field_the_model_has_and_the_fast_path_lacks_is_found() -> None:
    """The derivation sees a difference in a field's constraint, in a default, in a choice and
    in a field missing, so the test above can fail."""
    class Model(BaseModel):
        name: str
        kind: Literal["a", "b"] = "a"
        tags: list[str] = []

    same = record({"name": (text, REQUIRED), "kind": (one_of("a", "b"), "a"),
                   "tags": (many(text), [])})
    assert spec_of(same) != model_spec(Model)  # `name` is any str, not text
    from skills.lib.workflow.authoring.plaindoc import string

    exact = record({"name": (string, REQUIRED), "kind": (one_of("a", "b"), "a"),
                    "tags": (many(string), [])})
    assert spec_of(exact) == model_spec(Model)
    for changed in ({"kind": (one_of("a"), "a")}, {"kind": (one_of("a", "b"), "b")},
                    {"tags": (many(string, 1), [])}):
        assert spec_of(record({**{"name": (string, REQUIRED), "kind": (one_of("a", "b"), "a"),
                                  "tags": (many(string), [])}, **changed})) != model_spec(Model)
    assert spec_of(record({"name": (string, REQUIRED)})) != model_spec(Model)


@pytest.mark.parametrize(("table", "model"), [
    (gatecheck._POLICY, gatemodel.PolicyModel), (gatecheck._PROGRAM, gatemodel.ProgramModel),
    (gatecheck._GRAMMAR, gatemodel.GrammarModel),
    (gatecheck._VISIBILITY, gatemodel.VisibilityModel),
    (gatecheck._TESTS, gatemodel.TestsModel)],
    ids=["policy", "program", "grammar", "visibility", "tests"])
def test_the_policy_fast_path_checks_the_models_fields_in_its_order(
        table: dict[str, Any], model: type[BaseModel]) -> None:
    """The policy's fast path returns what the model dumps, key order included: its tables
    name the model's fields, in the model's order."""
    assert list(table) == list(model.model_fields)


def test_the_policy_fast_path_allows_the_models_choices() -> None:
    assert spec_of(gatecheck._OPTION_KIND) == type_spec(gatemodel.OptionKind, [])
    assert spec_of(gatecheck._OPERANDS) == type_spec(gatemodel.OperandKind, [])
    interpreter = gatemodel.ProgramModel.model_fields["interpreter"].annotation
    assert spec_of(gatecheck._INTERPRETER) == type_spec(interpreter, [])
    roles = gatemodel.VisibilityModel.model_fields["roles"].annotation
    assert spec_of(gatecheck._ROLE_SHOWN) == type_spec(get_args(roles)[1], [])
