"""`typing.NamedTuple` without importing typing, for the modules a hook loads.

A hook is a new interpreter for every tool call the agent makes, and `import typing` costs it
about half a bare interpreter start (callgrind: 12.8 million instructions against 27.5). A
class statement on `NamedTuple` here makes what typing's would: a `collections.namedtuple` of
the annotated names, in their order, with the defaults the body gives, and the body's methods,
class methods and docstring. Type checkers see typing's own:

    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from ..base.records import NamedTuple

with `TYPE_CHECKING = False` above it (mypy and ruff know the name): `from typing import
TYPE_CHECKING` would load typing after all. Unlike typing's, the annotations are never
evaluated, so they may be strings.
"""

from collections import namedtuple

#: What a class body holds that the named tuple makes for itself.
_MADE = frozenset({"__module__", "__qualname__", "__annotations__", "__dict__", "__weakref__",
                   "__slots__", "__orig_bases__"})


class _Record(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], body: dict[str, object]) -> type:
        if not bases:  # NamedTuple itself
            return super().__new__(mcs, name, bases, body)
        annotations = body.get("__annotations__", {})
        assert isinstance(annotations, dict)
        fields = tuple(annotations)
        defaults = [body[f] for f in fields if f in body]
        first = next((i for i, f in enumerate(fields) if f in body), len(fields))
        if any(f not in body for f in fields[first:]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        made = namedtuple(name, fields, defaults=defaults,  # type: ignore[misc]  # by name
                          module=str(body["__module__"]))  # mypy wants a literal name
        made.__qualname__ = str(body.get("__qualname__", name))
        for key, value in body.items():
            if key not in _MADE and key not in fields:
                setattr(made, key, value)
        made.__annotations__ = dict(annotations)
        return made


class NamedTuple(metaclass=_Record):
    """Derive a record from this as from `typing.NamedTuple` (see the module's docstring)."""
