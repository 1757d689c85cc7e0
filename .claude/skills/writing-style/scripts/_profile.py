"""The style profile's check (resources/profile-format.md): six fixed sections, items with
evidence, and every quote found in the sample it names, so no item rests on invented evidence.
Standard library only; pure but for reading the profile."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import NamedTuple, Protocol

SECTIONS = ("Voice", "Sentence shape", "Structure", "Vocabulary", "Formatting habits",
            "Never does")
MAX_ITEMS, MIN_ITEM_WORDS, MAX_QUOTE_WORDS = 8, 4, 40
#: Problems listed in a step; the rest are counted.
SHOWN = 8
EVIDENCE = re.compile(r'\s+>\s*(?P<source>[^"]*?)\s*:\s*"(?P<quote>.*)"\s*\Z')
ABSENT = "absent"
# Agents straighten typographic quotes and rewrap lines; neither makes a quote invented.
_PLAIN = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                        "\u00a0": " "})


class Sample(Protocol):
    """What the check needs of a sample (_samples.Sample)."""

    @property
    def path(self) -> str: ...
    @property
    def text(self) -> str: ...


class Item(NamedTuple):
    section: str
    number: int
    line: int
    text: str
    evidence: tuple[tuple[int, str, str], ...]  # (line, source, quote)

    @property
    def name(self) -> str:
        return f"{self.section} {self.number}"


def plain(text: str) -> str:
    return " ".join(text.translate(_PLAIN).split())


def parse(text: str) -> tuple[list[Item], list[tuple[int, str]]]:
    """The profile's items in order, and the problems of its shape, each with its line."""
    items: list[Item] = []
    problems: list[tuple[int, str]] = []
    section: str | None = None
    headings: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            section = _section(line[3:].strip(), number, problems)
            headings.append(section or "")
        elif line.startswith("- ") and section:
            count = sum(1 for i in items if i.section == section) + 1
            items.append(Item(section, count, number, line[2:].strip(), ()))
        elif line.lstrip().startswith(">") and section and items and \
                items[-1].section == section:
            match = EVIDENCE.match(line) if line[:1].isspace() else None
            if match is None:
                problems.append((number, "not an evidence line as the profile format gives "
                                         'it: indented, then the quote sign, SAMPLE: "QUOTE" '
                                         "(double quotes outside; a \" inside stays as it is)"))
                continue
            last = items[-1]
            items[-1] = last._replace(evidence=(*last.evidence, (
                number, match["source"], match["quote"])))
        elif line[:1].isspace() and line.strip() and items and items[-1].section == section:
            items[-1] = items[-1]._replace(text=f"{items[-1].text} {line.strip()}")
        elif line.strip() and section:
            problems.append((number, "a section holds only items (`- `) and their evidence"))
    if [h for h in headings if h] != list(SECTIONS):
        problems.append((1, "the sections must be, once each and in this order: "
                            + ", ".join(SECTIONS)))
    return items, problems


def _section(title: str, line: int, problems: list[tuple[int, str]]) -> str | None:
    for name in SECTIONS:
        if title.lower() == name.lower():
            return name
    problems.append((line, f"unknown section '{title}'"))
    return None


def check_profile(path: str, samples: Sequence[Sample]) -> tuple[int, list[str]]:
    """(number of items, every problem as 'line N (Voice 2): what is wrong')."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return 0, [f"there is no profile at {path}: write it"]
    except (OSError, UnicodeDecodeError) as exc:
        return 0, [f"the profile at {path} cannot be read as UTF-8 text ({exc})"]
    items, shape = parse(text)
    found = [(n, f"line {n}: {p}") for n, p in shape]
    for section in SECTIONS:
        count = sum(1 for i in items if i.section == section)
        if not 1 <= count <= MAX_ITEMS:
            found.append((0, f"section '{section}' has {count} items; give it 1 to "
                             f"{MAX_ITEMS}"))
    for item in items:
        found += [(n, f"line {n} ({item.name}): {p}") for n, p in _item_problems(item, samples)]
    return len(items), [p for _, p in sorted(found, key=lambda f: f[0])]


def _item_problems(item: Item, samples: Sequence[Sample]) -> list[tuple[int, str]]:
    found = []
    if len(item.text.split()) < MIN_ITEM_WORDS:
        found.append((item.line, f"say the habit in at least {MIN_ITEM_WORDS} words"))
    if not item.evidence:
        found.append((item.line, "no evidence line below it"))
    for line, source, quote in item.evidence:
        problem = _evidence_problem(source, quote, samples)
        if problem:
            found.append((line, problem))
    return found


def _evidence_problem(source: str, quote: str, samples: Sequence[Sample]) -> str:
    # The format says to copy a " inside a quote as it is; a backslash before it is accepted
    # too, as agents escape quotes by habit.
    quote = quote.replace('\\"', '"')
    if not quote.strip():
        return "the quote is empty"
    if source.lower() == ABSENT:
        hits = [s.path for s in samples if quote.lower() in s.text.lower()]
        return (f'"{quote}" occurs in {hits[0]}, so the author does use it' if hits else "")
    if len(quote.split()) > MAX_QUOTE_WORDS:
        return f"the quote has more than {MAX_QUOTE_WORDS} words: quote less"
    named = [s for s in samples if _names(source, s.path)]
    if not named:
        known = ", ".join(os.path.basename(s.path) for s in samples[:SHOWN]) or "none"
        return f"'{source}' names no sample (the samples: {known})"
    if not any(plain(quote) in plain(s.text) for s in named):
        elsewhere = [s for s in samples if plain(quote) in plain(s.text)]
        if elsewhere:
            return (f"the quote is not in {named[0].path} but in {elsewhere[0].path}: name "
                    "that sample")
        return (f"the quote is not in {named[0].path}{differs(quote, named[0].text)}. Copy it "
                "exactly, one passage, no '...'")
    return ""


def differs(quote: str, text: str) -> str:
    """Where `quote` departs from the passage of `text` nearest to it, as a clause to append:
    ': where the quote has "I'm sorry", the sample has "I am sorry"'."""
    want, have = plain(quote).split(), plain(text).split()
    # Words are matched without case or punctuation, so that a changed comma does not hide
    # the passage; the clause then shows the words as written.
    keys = [_key(w) for w in want]
    near = SequenceMatcher(None, [_key(w) for w in have], keys, autojunk=False) \
        .find_longest_match(0, len(have), 0, len(want))
    if near.size == 0:
        return ": no passage there shares a word with it"
    # Align the quote's first word with the sample, then compare a little past its length so
    # that words the quote left out still show.
    start = max(0, near.a - near.b)
    passage = have[start:start + len(want) + 4]
    matcher = SequenceMatcher(None, [_key(w) for w in passage], keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal" and j1 < len(want):  # past the quote's end, the sample goes on
            return _where(want, j1, j2, passage, i1, i2)
    for n, (said, wrote) in enumerate(zip(want, passage, strict=False)):
        if said != wrote:  # the same words, other punctuation or case
            return _where(want, n, n + 1, passage, n, n + 1)
    return f': the nearest passage there is "{_cut(passage[:len(want)])}"'


def _key(word: str) -> str:
    return re.sub(r"\W", "", word.lower()) or word


def _where(want: list[str], j1: int, j2: int, passage: list[str], i1: int, i2: int) -> str:
    """The differing words of each side, with a word of context either side."""
    quoted = want[max(0, j1 - 1):j2 + 1]
    sample = passage[max(0, i1 - 1):i2 + 1]
    return f': where the quote has "{_cut(quoted)}", the sample has "{_cut(sample)}"'


def _cut(words: list[str], most: int = 12) -> str:
    return " ".join(words[:most]) + (" [...]" if len(words) > most else "")


def _names(source: str, path: str) -> bool:
    """Whether `source` names the sample at `path`: its file name, or a tail of its path."""
    source = os.path.normpath(source.strip().strip("`"))
    return source not in ("", ".") and (path == os.path.abspath(source)
                                       or path.endswith(os.sep + source))
