"""JSON documents vouched for with the standard library: the fast path of `read_document`.

A document's plain reader accepts only data its pydantic model certainly accepts as it is (exact
JSON types, every key known, every required key given, every length and choice met) and returns
it with the model's defaults filled in, as attributes, like the model's object. Anything else it
declines (None), and the model decides and words the problems. So a step that reads a valid
document (a plan, a review report) never imports pydantic. Each reader is held to its model
twice: its fields are the model's, field by field (each check records what it stands for, in
the model's terms, and a test derives the same from the model), and its answers are the
model's, by a property test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

#: A field: its check (which returns the value, or raises Declined) and its default, which is
#: REQUIRED when the key must be given, or a factory (list) or a plain value.
Check = Callable[[Any], Any]
Field = tuple[Check, Any]
REQUIRED = object()

def described(check: Check, spec: Any) -> Check:
    """`check`, with what it stands for in its model's terms kept as its `spec` (`spec_of`
    reads it): "str"; "text" (a str of at least one character); ("literal", values);
    ("pattern", regex); ("list", item, least); ("object", {name: (item, default)}), the
    default being "required", "[]" for a list made afresh, or the value. The test that
    derives the same from the model reads it (tests/test_fastpath_fields.py)."""
    vars(check)["spec"] = spec
    return check


def spec_of(check: Check) -> Any:
    """What `check` stands for (`described`); None for a check that does not say."""
    return getattr(check, "spec", None)


def _default(default: Any) -> Any:
    return "required" if default is REQUIRED else "[]" if default is list else default


class Declined(Exception):
    """The data is not certainly valid: the model decides."""


def plain(fields: Mapping[str, Field]) -> Callable[[Any], SimpleNamespace | None]:
    """A reader of documents with these top-level fields: the document, or None."""
    whole = record(fields)

    def read(data: Any) -> SimpleNamespace | None:
        try:
            return whole(data)
        except Declined:
            return None
    return described(read, spec_of(whole))


def record(fields: Mapping[str, Field]) -> Callable[[Any], SimpleNamespace]:
    """An object with exactly these fields (a model with extra='forbid')."""
    def check(data: Any) -> SimpleNamespace:
        if type(data) is not dict or not all(type(k) is str and k in fields for k in data):
            raise Declined
        values = {}
        for name, (field, default) in fields.items():
            if name in data:
                values[name] = field(data[name])
            elif default is REQUIRED:
                raise Declined
            else:
                values[name] = default() if callable(default) else default
        return SimpleNamespace(**values)
    return described(check, ("object", {name: (spec_of(field), _default(default))
                                         for name, (field, default) in fields.items()}))


def string(value: Any) -> str:
    if type(value) is not str:
        raise Declined
    return value


def text(value: Any) -> str:
    """A string of at least one character (`Field(min_length=1)`). pydantic checks such a
    string as Unicode text, and refuses one with a lone surrogate (JSON's "\\ud800"), which
    a plain `str` field passes as it is: declined, so the model words that."""
    if type(value) is not str or not value:
        raise Declined
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise Declined from None
    return value


def one_of(*allowed: str) -> Check:
    """One of these strings (a Literal)."""
    def check(value: Any) -> str:
        if type(value) is not str or value not in allowed:
            raise Declined
        return value
    return described(check, ("literal", allowed))


def many(item: Check, least: int = 0) -> Check:
    """A list of at least `least` items, each checked."""
    def check(value: Any) -> list[Any]:
        if type(value) is not list or len(value) < least:
            raise Declined
        return [item(v) for v in value]
    return described(check, ("list", spec_of(item), least))


described(string, "str")
described(text, "text")
