"""The copy check: passages of a draft taken word for word from a writing sample. A text in
someone's voice must be new sentences in their manner, and the profile puts quotes from the
samples in front of the writer, so copying is the likeliest slip. Words are compared lower-cased
and without punctuation, so rewrapping or a changed comma does not hide a copy.
Standard library only; pure."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import bisect
import itertools
import re
from collections.abc import Sequence
from typing import NamedTuple, Protocol

#: A whole draft sentence of this many words found in a sample is a copy; so is any run of
#: RUN_WORDS words, the part of a long sentence copied with its ending changed.
SENTENCE_WORDS, RUN_WORDS = 6, 10
WORD = re.compile(r"[^\W_]+(?:[-.'\u2019][^\W_]+)*")  # v1.9, redis-cli, don't: one word each
# Sentence ends: closing punctuation before a space, a blank line, or a markdown list item,
# heading or quote starting a line. A single line break is wrapping, not an end.
BREAK = re.compile(r"[.!?]+[\"'\u201d\u2019)\]*_]*(?=\s|\Z)|\n[ \t]*\n|"
                   r"\n(?=[ \t]*(?:[-*+>#]|\d+[.)])\s)")


class Sample(Protocol):
    """What the check needs of a sample (_samples.Sample)."""

    @property
    def path(self) -> str: ...
    @property
    def text(self) -> str: ...


class Copy(NamedTuple):
    text: str  # the draft's words, as the draft writes them
    words: int
    sample: str  # the path of the sample holding them

    def __str__(self) -> str:
        return f'"{self.text}" ({self.words} words, from {os.path.basename(self.sample)})'


def words(text: str) -> list[str]:
    return [m.group().lower().replace("\u2019", "'") for m in WORD.finditer(text)]


def find_copies(draft: str, samples: Sequence[Sample]) -> list[Copy]:
    """Every passage of `draft` found word for word in a sample, overlaps merged, in order."""
    found = list(WORD.finditer(draft))
    said = [m.group().lower().replace("\u2019", "'") for m in found]
    streams = [(s.path, words(s.text)) for s in samples]
    joined = [(path, f" {' '.join(w)} ") for path, w in streams]
    runs: dict[tuple[str, ...], str] = {}
    for path, stream in streams:
        for n in range(len(stream) - RUN_WORDS + 1):
            runs.setdefault(tuple(stream[n:n + RUN_WORDS]), path)
    spans: list[tuple[int, int, str]] = []
    for start, end in _sentences(draft, [m.start() for m in found]):
        if end - start >= SENTENCE_WORDS:
            sentence = f" {' '.join(said[start:end])} "
            holder = next((p for p, text in joined if sentence in text), None)
            if holder is not None:
                spans.append((start, end, holder))
    for n in range(len(said) - RUN_WORDS + 1):
        holder = runs.get(tuple(said[n:n + RUN_WORDS]))
        if holder is not None:
            spans.append((n, n + RUN_WORDS, holder))
    return [Copy(draft[found[a].start():found[b - 1].end()], b - a, path)
            for a, b, path in _merged(spans)]


def _sentences(draft: str, starts: list[int]) -> list[tuple[int, int]]:
    """The draft's sentences as (first word, past the last word) indexes into its words."""
    ends = [m.end() for m in BREAK.finditer(draft)]
    cuts = sorted({bisect.bisect_left(starts, e) for e in ends} | {0, len(starts)})
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    merged: list[tuple[int, int, str]] = []
    for start, end, path in sorted(spans):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, path))
    return merged
