"""base/records.NamedTuple, the hooks' stand-in for typing.NamedTuple: a record declared on it
behaves as the same declaration on typing's, field for field."""

from __future__ import annotations

import pickle
import typing
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skills.lib.workflow.base.records import NamedTuple


def declared(base: Any, name: str) -> Any:
    """The same record declared on `base`: ours, or typing's NamedTuple."""

    class Point(base):  # type: ignore[misc,valid-type]
        """A point, and how it was found."""

        x: int
        y: str
        why: str | None = None
        seen: tuple[str, ...] = ()

        def doubled(self) -> int:
            return self.x * 2

        @classmethod
        def of(cls, x: int) -> Any:
            return cls(x, str(x))

        @property
        def label(self) -> str:
            return f"{self.x}:{self.y}"

    Point.__name__ = Point.__qualname__ = name  # where pickle finds it: this module's global
    return Point


Ours, Theirs = declared(NamedTuple, "Ours"), declared(typing.NamedTuple, "Theirs")


def test_a_record_has_the_fields_defaults_and_members_typings_has() -> None:
    assert Ours._fields == Theirs._fields
    assert Ours._field_defaults == Theirs._field_defaults
    assert Ours.__doc__ == Theirs.__doc__
    assert Ours.__module__ == Theirs.__module__ == __name__
    assert list(Ours.__annotations__) == list(Theirs.__annotations__)
    assert issubclass(Ours, tuple)
    assert Ours.of(3).label == Theirs.of(3).label == "3:3"


@given(st.integers(), st.text(), st.none() | st.text(), st.lists(st.text()).map(tuple))
def test_a_record_behaves_as_typings_for_any_values(x: int, y: str, why: str | None,
                                                     seen: tuple[str, ...]) -> None:
    ours, theirs = Ours(x, y, why, seen), Theirs(x, y, why, seen)
    assert tuple(ours) == tuple(theirs)
    assert repr(ours) == repr(theirs).replace("Theirs", "Ours")
    assert ours._asdict() == theirs._asdict()
    assert ours.doubled() == theirs.doubled()
    assert tuple(ours._replace(y="z")) == tuple(theirs._replace(y="z"))
    assert pickle.loads(pickle.dumps(ours)) == ours
    assert Ours(x, y) == (x, y, None, ())


def test_a_field_without_a_default_after_one_with_is_refused_as_typing_refuses_it() -> None:
    with pytest.raises(TypeError):
        class Bad(typing.NamedTuple):
            a: int = 0
            b: int
    with pytest.raises(TypeError, match="without a default follows one with a default"):
        class AlsoBad(NamedTuple):
            a: int = 0
            b: int
