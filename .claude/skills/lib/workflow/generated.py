"""Sections of hand-written documents that are generated from the code, between markers:

    <!-- skillrail:NAME:start -->  ...  <!-- skillrail:NAME:end -->

Everything outside the markers belongs to the author and is never touched."""

from __future__ import annotations

import re

from .errors import SkillrailError


def markers(name: str) -> tuple[str, str]:
    return f"<!-- skillrail:{name}:start -->", f"<!-- skillrail:{name}:end -->"


def with_section(text: str, name: str, body: str, heading: str) -> str:
    """`text` with section `name` holding `body`; a missing section is appended under
    `heading`. Malformed markers (one without the other, or twice) are an error, not a guess."""
    start, end = markers(name)
    found = [len(re.findall(re.escape(m), text)) for m in (start, end)]
    block = f"{start}\n{body.rstrip()}\n{end}"
    if found == [0, 0]:
        return f"{text.rstrip()}\n\n{heading}\n\n{block}\n"
    if found != [1, 1] or text.index(start) > text.index(end):
        raise SkillrailError(f"the '{name}' markers are malformed",
                             fix=f"Keep exactly one {start} before one {end}, or delete both")
    before, rest = text.split(start, 1)
    return before + block + rest.split(end, 1)[1]
