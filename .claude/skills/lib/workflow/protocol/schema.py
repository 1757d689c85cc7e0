"""Check printed documents against the protocol's RelaxNG grammar with lxml. Off the `--step`
path: tests, `skillrail validate` and the simulator use it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .constants import SCHEMA_PATH


@lru_cache(maxsize=1)
def _relaxng() -> Any:
    from lxml import etree  # type: ignore[import-untyped]  # lxml ships no type hints

    return etree.RelaxNG(etree.parse(SCHEMA_PATH))


def schema_errors(document: str | bytes) -> list[str]:
    """Why `document` is not a valid protocol step: [] when it is. A parse error counts."""
    from lxml import etree

    data = document.encode("utf-8") if isinstance(document, str) else document
    try:
        tree = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as exc:
        return [f"not well-formed XML: {exc}"]
    schema = _relaxng()
    if schema.validate(tree):
        return []
    return [f"line {e.line}: {e.message}" for e in schema.error_log]
