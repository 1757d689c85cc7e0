"""Sections of hand-written documents that are generated from the code, between markers:

    <!-- skillrail:NAME:start -->  ...  <!-- skillrail:NAME:end -->

Everything outside the markers belongs to the author and is never touched."""

from __future__ import annotations

import re

from ..base.errors import SkillrailError

_TITLE = re.compile(r"^# .*$", re.MULTILINE)


def markers(name: str) -> tuple[str, str]:
    return f"<!-- skillrail:{name}:start -->", f"<!-- skillrail:{name}:end -->"


def has_section(text: str, name: str) -> bool:
    """Whether `text` holds section `name`'s start marker."""
    return markers(name)[0] in text


def with_section(text: str, name: str, body: str, heading: str, *,
                 under_title: bool = False) -> str:
    """`text` with section `name` holding `body`. A missing section is appended under
    `heading`, or, with `under_title`, put right below the document's `# ` title (after any
    YAML frontmatter), where an agent reading from the top meets it first. Malformed markers
    (one without the other, or twice) are an error, not a guess."""
    start, end = markers(name)
    found = [len(re.findall(re.escape(m), text)) for m in (start, end)]
    block = f"{start}\n{body.rstrip()}\n{end}"
    if found == [0, 0]:
        if under_title:
            return _below_title(text, f"{heading}\n\n{block}" if heading else block)
        return f"{text.rstrip()}\n\n{heading}\n\n{block}\n"
    if found != [1, 1] or text.index(start) > text.index(end):
        raise SkillrailError(f"the '{name}' markers are malformed",
                             fix=f"Keep exactly one {start} before one {end}, or delete both")
    before, rest = text.split(start, 1)
    return before + block + rest.split(end, 1)[1]


def renamed_section(text: str, old: str, new: str) -> str:
    """`text` with section `old`'s markers renamed to `new`, when it has no `new` section yet:
    a renamed section moves in place instead of being added a second time."""
    if has_section(text, new):
        return text
    for was, now in zip(markers(old), markers(new), strict=True):
        text = text.replace(was, now)
    return text


def _below_title(text: str, block: str) -> str:
    body = 0
    if text.startswith("---\n"):
        close = text.find("\n---\n", 3)
        body = close + 5 if close >= 0 else 0
    title = _TITLE.search(text, body)
    cut = title.end() if title else body
    head, rest = text[:cut].rstrip("\n"), text[cut:].lstrip("\n")
    return (f"{head}\n\n" if head else "") + f"{block}\n" + (f"\n{rest}" if rest else "")
