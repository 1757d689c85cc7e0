"""For simulation only: the files a writing-style run reads, written so that the counting and
the profile check decide a chosen outcome (a step's `prepare` hook). The handlers still
decide for real, from these files."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

TEXTS = {
    "sample-1.md": "I had assumed the retry was idempotent. It was not. Twelve minutes. That "
                   "was the whole outage, and I caused it.",
    "sample-2.md": "Caching is cheap until it is expensive. We learned that on a Tuesday, "
                   "with `redis-cli` open and nobody sure which key mattered.",
    "sample-3.md": "## Why not just `memcached`?\n\nBecause we already ran Redis. What would "
                   "we have to believe to switch?",
}

PROFILE = """# Style profile: simulated

## Voice
- Speaks as "I" about her own mistakes.
  > sample-1.md: "I had assumed the retry was idempotent."

## Sentence shape
- Short declarative sentences, and a fragment to land a point.
  > sample-1.md: "Twelve minutes."

## Structure
- Ends a piece on an open question.
  > sample-3.md: "What would we have to believe to switch?"

## Vocabulary
- Prefers cheap and expensive over efficient.
  > sample-2.md: "Caching is cheap until it is expensive."

## Formatting habits
- Names tools in backticks, by their command.
  > sample-2.md: "with `redis-cli` open"

## Never does
- Never uses exclamation marks anywhere.
  > absent: "!"
"""


# Three samples must hold 600 words in all to be enough: each text is padded to about 220.
FILLER = "\n\n" + " ".join(["The notes from that week ran long, and most of them said the same "
                            "thing in other words."] * 11)


def write_samples(folder: str, count: int) -> None:
    """The sample files in `folder`: the first `count` with text, the others empty (an empty
    file is no sample)."""
    os.makedirs(folder, exist_ok=True)
    for n, (name, text) in enumerate(TEXTS.items()):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
            out.write(text + FILLER if n < count else "")


def write_profile(path: str, valid: bool) -> None:
    """A profile that passes the check against the full samples, or one with one section."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(PROFILE if valid else "# Style profile\n\n## Voice\n")


def write_draft(path: str, copied: bool) -> None:
    """A draft of new sentences, or one that repeats a sample's sentence word for word."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write("Caching saved us again. Twelve seconds, not twelve minutes.\n"
                  + ("\nCaching is cheap until it is expensive.\n" if copied else ""))
