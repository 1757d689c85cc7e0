"""Writing samples: the files a run learns an author's style from, found from the paths and
globs the user gave, with their word counts and what is missing when there are too few.
Standard library only: the entry step counts samples, and it runs on the --step hot path."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import glob
import shlex
from collections.abc import Iterable
from typing import NamedTuple

#: Enough to profile a style: MIN_SAMPLES samples holding MIN_SHARED words in all (three notes
#: of a few lines show too little of a voice), or fewer holding MIN_WORDS.
MIN_SAMPLES, MIN_SHARED, MIN_WORDS = 3, 600, 1500
#: Listed by name in a step; the rest are counted.
LISTED = 12
#: A file larger than this is not a writing sample (a log, a dump) and is skipped unread.
MAX_BYTES = 2_000_000
#: Words in the samples value that mean "no path yet".
NO_PATH = frozenset({"ask", "none"})


class Sample(NamedTuple):
    path: str  # absolute
    text: str
    words: int


class Found(NamedTuple):
    samples: tuple[Sample, ...]
    unmatched: tuple[str, ...]  # paths or globs that matched no file
    skipped: tuple[str, ...]  # files left out, each with the reason

    @property
    def words(self) -> int:
        return sum(s.words for s in self.samples)

    @property
    def verdict(self) -> str:
        """enough, short (some samples, too few) or none."""
        if not self.samples:
            return "none"
        many = len(self.samples) >= MIN_SAMPLES and self.words >= MIN_SHARED
        return "enough" if many or self.words >= MIN_WORDS else "short"

    def counted(self) -> str:
        """'2 samples, 840 words'."""
        n = len(self.samples)
        return f"{n} sample{'s' * (n != 1)}, {self.words:,} words"

    def paths(self) -> str:
        """The samples by path, with word counts."""
        shown = [f"{s.path} ({s.words:,} words)" for s in self.samples[:LISTED]]
        more = len(self.samples) - LISTED
        return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")

    def listing(self) -> str:
        """The samples by path with word counts, then what was left out and why."""
        parts = [self.paths()] if self.samples else []
        parts += [f"Matches no file: {', '.join(self.unmatched)}"] if self.unmatched else []
        parts += [f"Left out: {', '.join(self.skipped)}"] if self.skipped else []
        return ". ".join(parts) or "nothing yet"

    def missing(self) -> str:
        """What would make enough: '1 more sample or 660 more words', '2 more samples with 300
        more words, or 1,200 more words', or, with samples enough but short, '86 more words'."""
        samples, words = MIN_SAMPLES - len(self.samples), MIN_WORDS - self.words
        shared = MIN_SHARED - self.words
        if samples <= 0:
            return f"{shared:,} more words, in more samples or longer ones"
        with_words = f" with {shared:,} more words," if shared > 0 else ""
        return f"{samples} more sample{'s' * (samples != 1)}{with_words} or {words:,} more words"


def find_samples(value: str, exclude: Iterable[str] = ()) -> Found:
    """The samples named in `value`: paths, globs (`**` included) or folders (their files), one
    or more per line, quoted like shell words when they hold spaces. Files in `exclude` (the
    run's own profile and draft) never count: a glob like *.md would otherwise match them."""
    seen = {os.path.realpath(p) for p in exclude}
    samples: dict[str, Sample] = {}
    unmatched: list[str] = []
    skipped: list[str] = []
    for pattern in patterns(value):
        paths = _expand(pattern)
        if not paths:
            unmatched.append(pattern)
        for path in paths:
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            sample, reason = _read(real)
            if sample is None:
                skipped.append(f"{real} ({reason})")
            else:
                samples[real] = sample
    return Found(tuple(samples.values()), tuple(unmatched), tuple(skipped))


def patterns(value: str) -> list[str]:
    """The paths and globs in a samples value, in order, without repeats."""
    found = []
    for line in value.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:  # an unbalanced quote: take the line as one path
            words = [line.strip()]
        found += [w for w in words if w and w.lower() not in NO_PATH]
    return list(dict.fromkeys(found))


def _expand(pattern: str) -> list[str]:
    """The files a pattern names, sorted: a file, a folder's files, or a glob's files."""
    path = os.path.expanduser(pattern)
    if glob.has_magic(path):
        matches = sorted(glob.glob(path, recursive=True))
        return [f for m in matches for f in ([m] if os.path.isfile(m) else _folder(m))]
    if os.path.isdir(path):
        return _folder(path)
    return [path] if os.path.isfile(path) else []


def _folder(path: str) -> list[str]:
    """A folder's own files (not hidden, not in subfolders)."""
    if not os.path.isdir(path):
        return []
    return [os.path.join(path, f) for f in sorted(os.listdir(path))
            if not f.startswith(".") and os.path.isfile(os.path.join(path, f))]


def _read(path: str) -> tuple[Sample | None, str]:
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None, f"larger than {MAX_BYTES // 1_000_000} MB"
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    words = len(text.split())
    return (Sample(path, text, words), "") if words else (None, "empty")
