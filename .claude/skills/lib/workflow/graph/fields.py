"""How the graph's types are called: a call that does not fit a type's fields is a FieldError
naming the field and the author's line, and `inspect.signature` (so `help()`) shows the fields,
where the `__new__` that normalises them would show only `(*args, **kwargs)`."""

import re
from types import MappingProxyType
from typing import Any

from ..base.errors import check_fields

#: A dotted module path before a name in a type's text (`collections.abc.`, `skills.lib....`).
#: Patterns, not compiled ones: every step imports this module, and only help() and the API
#: reference show a signature (re caches what they compile).
_MODULE = r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])"
#: A forward reference as typing prints it: `ForwardRef('StepContext')`, or quoted alone.
_FORWARD = r"ForwardRef\('([^']*)'[^)]*\)|'([^']*)'"


def built(fields: Any, cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`fields.__new__(cls, *args, **kwargs)` for a graph type built on the NamedTuple `fields`;
    a call that does not fit its fields (a typo such as `nxt=`, a field left out) is a
    FieldError naming the type, the field and the author's line, not a TypeError about
    `__new__()`."""
    try:
        return fields.__new__(cls, *args, **kwargs)
    except TypeError:
        check_fields(cls.__name__, fields._fields, fields._field_defaults, args, kwargs)
        raise


def checked(cls: type) -> None:
    """Make calls of the NamedTuple `cls` that do not fit its fields FieldErrors (as `built`),
    and give it the signature of its fields. Set on the class after it is made, because a
    NamedTuple's body may not define __new__, and so that type checkers still see the fields."""
    new = cls.__new__

    def __new__(klass: type, *args: Any, **kwargs: Any) -> Any:
        try:
            return new(klass, *args, **kwargs)
        except TypeError:
            named: Any = cls  # a NamedTuple class: the checker sees only `type` here
            check_fields(cls.__name__, named._fields, named._field_defaults, args, kwargs)
            raise

    setattr(cls, "__new__", __new__)  # noqa: B010 - an assignment type checkers refuse
    signed(cls, cls)


def signed(cls: type, fields: type) -> None:
    """Give `cls` the signature of the NamedTuple `fields`' fields, with their types and
    defaults."""
    setattr(cls, "__signature__", _Signature(fields))  # noqa: B010 - as in `checked`


def shown(annotation: object) -> str:
    """A type as an author reads it: `Mapping[str, Rework | None]`, without the module paths,
    the forward-reference wrapping and the type variables' `~` that typing prints."""
    if isinstance(annotation, type):
        return annotation.__qualname__
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return re.sub(_MODULE, "", re.sub(_FORWARD, lambda m: m[1] or m[2], text)).replace("~", "")


class TypeText:
    """A type's (or a default's) text that `inspect` prints as it is, where it would put a
    plain string in quotes."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class _Signature:
    """The class attribute `__signature__`, made when it is first read: `inspect` costs more
    to import than a `--step` invocation may spend, and only `help()` and the API reference
    need it."""

    def __init__(self, fields: type) -> None:
        self.fields = fields

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        import inspect

        fields: Any = self.fields
        hints, empty = getattr(fields, "__annotations__", {}), inspect.Parameter.empty
        return inspect.Signature([
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              default=_default(fields._field_defaults.get(name, empty)),
                              annotation=TypeText(shown(hints[name])) if name in hints else empty)
            for name in fields._fields])


def _default(value: object) -> object:
    """A default as an author writes it: a read-only mapping as the dict it was made from."""
    return TypeText(repr(dict(value))) if isinstance(value, MappingProxyType) else value
