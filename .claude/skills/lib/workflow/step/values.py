"""The values an agent reports (`--set KEY=VALUE`, `--set-file KEY=PATH`) and the params it
gives: taken exactly as written, or refused whole. A step shows a value as XML text, which
cannot carry every character, and the agent copies it from there; so a value a step could not
show exactly is refused with one line naming the character and where it is, never changed on
the way.

A value may hold any text XML 1.0 can carry but control characters: tab and line feed are its
only ones. A carriage return is refused in a `--set` value (a step would show it as a line
feed). A file given with `--set-file` (or standard input, `-`) is read as UTF-8 with its CRLF
line ends read as LF, the one change made to a value (PROTOCOL.md section 2); a carriage
return on its own is refused there too. A param is one line: tab and line feed are refused.
"""

import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ..base.errors import UsageError

if TYPE_CHECKING:
    from ..graph.model import Arg

#: Largest value --set or --set-file accepts; a step's output must stay far below what an agent
#: is shown of a command's result (~30,000 characters).
MAX_VALUE_CHARS = 20_000

# The characters refused, as the forbidden set: C0 controls (but tab and LF, in a value), DEL,
# C1 controls, and what XML 1.0 has no character for (lone surrogates, U+FFFE, U+FFFF).
_VALUE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]"
_FILE = "\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]"
_PARAM = "[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]"

_NAMES = {0x00: "NUL", 0x09: "a tab", 0x0A: "a line break", 0x0D: "a carriage return",
          0x1B: "escape", 0x7F: "delete"}


def describe(char: str) -> str:
    """`U+001B (escape)`: a refused character by code point, and what it is."""
    code = ord(char)
    what = _NAMES.get(code) or ("a control character" if code < 0xA0 else
                                "a character XML cannot hold")
    return f"U+{code:04X} ({what})"


def _remove(char: str) -> str:
    """How to fix a value holding `char`, a refused character other than a carriage return."""
    if ord(char) < 0xA0:
        return "Remove it: of the control characters a value may hold only tab and line break"
    return "Remove it: XML, in which steps are printed, has no such character"


def check_value(key: str, value: str) -> None:
    """Refuse a `--set` value holding a character a step could not show as it is."""
    found = re.search(_VALUE, value)
    if found is None:
        return
    char = found.group()
    raise UsageError(
        f"--set {key} holds {describe(char)} at character {found.start() + 1} of its value",
        fix=(f"Write line breaks as \\n alone, or write the value to a file and pass --set-file "
             f"{key}=PATH (a file's \\r\\n line ends are read as \\n)") if char == "\r"
        else _remove(char))


def check_param(name: str, value: str) -> None:
    """Refuse a param that is not one line of text: commands carry it as it is."""
    found = re.search(_PARAM, value)
    if found is not None:
        raise UsageError(f"--{name} holds {describe(found.group())} at character "
                         f"{found.start() + 1}", fix=f"Give --{name} as one line of plain text")


def read_value_file(key: str, path: str) -> str:
    """The value in the UTF-8 file at `path` (`-`: standard input), its CRLF line ends as LF;
    refused when it is too long or holds a character a value may not hold."""
    # A value of MAX_VALUE_CHARS after CRLF -> LF can be twice as long in the file: reading
    # that much tells a whole file from a longer one without reading all of it.
    limit, size = 2 * MAX_VALUE_CHARS + 1, 0
    try:
        if path == "-":  # for agents that would rather not write a file
            raw = _read_stdin(limit)
        else:
            with open(path, encoding="utf-8", newline="") as handle:
                raw = handle.read(limit)
                info = os.fstat(handle.fileno())
                size = info.st_size if stat.S_ISREG(info.st_mode) else 0
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise UsageError(f"cannot read --set-file {key}={path}: {reason}",
                         fix="Write the value to a readable UTF-8 file first") from None
    value = raw.replace("\r\n", "\n")
    if len(value) > MAX_VALUE_CHARS:
        whole = f" (the file has {size:,} bytes)" if size else ""
        raise UsageError(f"the value of {key} in --set-file {key}={path} has more than "
                         f"{MAX_VALUE_CHARS} characters{whole}",
                         fix="Report a summary, or a file path")
    found = re.search(_FILE, raw)
    if found is not None:
        char, at = found.group(), found.start()
        alone = " not followed by a line feed" if char == "\r" else ""
        raise UsageError(
            f"--set-file {key}={path} holds {describe(char)}{alone} at character {at + 1} "
            f"(line {raw.count(chr(10), 0, at) + 1})",
            fix="End its lines with \\n or \\r\\n" if char == "\r" else _remove(char))
    return value


def _read_stdin(limit: int) -> str:
    """Standard input read as UTF-8, line ends as they are (sys.stdin's own decoding follows
    the locale and turns every CR into LF)."""
    stream = sys.stdin
    if stream is None:
        raise OSError(0, "there is no standard input")
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text stream put in its place: take its text
        return stream.read(limit)
    import io

    text = io.TextIOWrapper(buffer, encoding="utf-8", newline="")
    try:
        return text.read(limit)
    finally:
        text.detach()



def check_distinct(args: "Iterable[Arg]", values: "Mapping[str, str]",
                   recorded: "Callable[[str], list[str]]") -> None:
    """A `distinct` arg's value must differ from every value the run recorded for its key
    (`recorded(key)`), compared without case, spacing or punctuation: a retry names an approach
    the run has not tried yet."""
    def plain(text: str) -> str:
        return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())

    for arg in args:
        given = values.get(arg.key)
        if not arg.distinct or given is None:
            continue
        earlier = recorded(arg.key)
        if plain(given) in {plain(e) for e in earlier}:
            raise UsageError(f"--set {arg.key} repeats an approach this run already tried",
                             fix="The run has not moved. Name what the next attempt does "
                                 "differently from every earlier one: "
                                 + "; ".join(f"'{e[:80]}'" for e in earlier))
