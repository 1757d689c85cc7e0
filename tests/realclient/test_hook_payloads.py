"""The hook payload fixtures (tests/fixtures/hooks/) against the client: captured again from the
real Claude Code client (capture_hooks.py), every fixture still has the fields, and the kinds
of value, of what the client sends now. A client that changed its payloads fails here, naming
the fixture to capture again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .capture_hooks import FIXTURES, WANTED, capture
from .support import needs_client

pytestmark = needs_client


def shape(value: Any) -> Any:
    """The fields of a payload and the kind of each value, nested: what a hook reads (a
    list's items vary from one capture to the next: a sub-agent still running at a Stop)."""
    if isinstance(value, dict):
        return {key: shape(inner) for key, inner in value.items()}
    return type(value).__name__


def test_every_fixture_has_the_shape_of_the_payload_the_client_sends(tmp_path: Path) -> None:
    """Each fixture's fields and kinds of value are those of the payload captured now."""
    captured = capture(tmp_path)
    assert set(captured) == set(WANTED)
    for name, payload in captured.items():
        fixture = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
        assert shape(fixture) == shape(payload), f"{name}: capture it again (README.md)"
