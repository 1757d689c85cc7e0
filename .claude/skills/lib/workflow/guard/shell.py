"""A Bash tool command as the hooks read it: simple commands (split at `;`, `&&`, `||`, `|`, `&`
and line ends), each with its words unquoted and its redirections apart. Shell features whose
effect cannot be read off the text (command substitution, parameter expansion, subshells, groups)
make the whole line unreadable (None): then only a bare `Bash` rule allows it, so a step script
cannot smuggle another command through `$(...)`.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: importing typing costs a hook (base/records.py)

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from ..base.records import NamedTuple


class Simple(NamedTuple):
    """One simple command: its words, and its redirections as (operator, target)."""

    words: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...] = ()


_SEPARATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
_REDIRECTS = ("&>>", "<<<", "<<-", "<<", ">>", ">&", "<&", "&>", ">|", "<>", ">", "<")
_UNREADABLE = set("$`(){}")
#: What ends a run of plain characters: a blank, an operator's first character, a quote or
#: escape, an unreadable feature (`#` and `~` inside a word are plain). Read a run at a time, a
#: step command costs a hook tens of microseconds rather than most of a millisecond.
_SPECIAL = frozenset(" \t\\'\"") | {op[0] for op in _SEPARATORS + _REDIRECTS} | _UNREADABLE
#: The first characters of the operators: anywhere else, no operator starts.
_OPERATOR_START = frozenset(op[0] for op in _SEPARATORS + _REDIRECTS)
#: Shells that run a script given as their first argument (python and pypy: see interpreter).
_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})


class _Unreadable(Exception):
    pass


def split(command: str) -> list[Simple] | None:
    """The simple commands of `command`, or None when it cannot be read safely."""
    try:
        return _Reader(command).read()
    except _Unreadable:
        return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.commands: list[Simple] = []
        self.words: list[str] = []
        self.redirects: list[tuple[str, str]] = []
        self.word: list[str] | None = None  # the word being read; None between words
        self.quoted = False
        self.pending: str | None = None  # a redirection waiting for its target
        self.heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, quoted, strip tabs)

    def read(self) -> list[Simple]:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c in " \t":
                self._end_word()
                self.i += 1
            elif c == "#" and self.word is None:
                while self.i < len(text) and text[self.i] != "\n":
                    self.i += 1
            elif self._operator():
                continue
            elif c == "\\":
                self._escaped()
            elif c == "'":
                end = text.find("'", self.i + 1)
                if end < 0:
                    raise _Unreadable
                self._add(text[self.i + 1:end], quoted=True)
                self.i = end + 1
            elif c == '"':
                self._double_quoted()
            elif c in _UNREADABLE:
                raise _Unreadable
            elif c == "~" and self.word is None:
                self._add(os.path.expanduser(c))
                self.i += 1
            else:  # plain characters, up to the next one that is not
                end = self.i + 1
                while end < len(text) and text[end] not in _SPECIAL:
                    end += 1
                self._add(text[self.i:end])
                self.i = end
        self._end_command()
        if self.heredocs:
            raise _Unreadable
        return self.commands

    def _operator(self) -> bool:
        """A redirection or a separator at the reading position: consume it."""
        text, i = self.text, self.i
        if text[i] not in _OPERATOR_START:
            return False
        for op in _REDIRECTS:
            if text.startswith(op, i):
                if self.word is not None and "".join(self.word).isdigit() and not self.quoted:
                    op = "".join(self.word) + op  # 2> : the descriptor belongs to the operator
                    self.word = None
                else:
                    self._end_word()
                if self.pending is not None:
                    raise _Unreadable
                self.pending = op
                self.i = i + len(op.lstrip("0123456789"))
                return True
        for op in _SEPARATORS:
            if text.startswith(op, i):
                self._end_command()
                self.i = i + len(op)
                if op == "\n":
                    self._heredoc_bodies()
                return True
        return False

    def _escaped(self) -> None:
        nxt = self.text[self.i + 1:self.i + 2]
        if nxt == "\n":  # a line continuation
            self.i += 2
            return
        self._add(nxt, quoted=True)
        self.i += 2

    def _double_quoted(self) -> None:
        text, i = self.text, self.i + 1
        chunk: list[str] = []
        while i < len(text) and text[i] != '"':
            if text[i] == "\\" and text[i + 1:i + 2] in ('"', "\\", "$", "`", "\n"):
                if text[i + 1] != "\n":
                    chunk.append(text[i + 1])
                i += 2
                continue
            if text[i] in "$`":
                raise _Unreadable
            chunk.append(text[i])
            i += 1
        if i >= len(text):
            raise _Unreadable
        self._add("".join(chunk), quoted=True)
        self.i = i + 1

    def _add(self, chars: str, quoted: bool = False) -> None:
        if self.word is None:
            self.word, self.quoted = [], False
        self.word.append(chars)
        self.quoted = self.quoted or quoted

    def _end_word(self) -> None:
        if self.word is None:
            return
        word, self.word = "".join(self.word), None
        if self.pending is None:
            self.words.append(word)
            return
        op, self.pending = self.pending, None
        if op.endswith(("<<", "<<-")):
            self.heredocs.append((word, self.quoted, op.endswith("-")))
        self.redirects.append((op, word))

    def _end_command(self) -> None:
        self._end_word()
        if self.pending is not None:
            raise _Unreadable
        if self.words or self.redirects:
            self.commands.append(Simple(tuple(self.words), tuple(self.redirects)))
        self.words, self.redirects = [], []

    def _heredoc_bodies(self) -> None:
        """Skip the here-documents started on the line just ended: their text is data, unless
        an unquoted delimiter lets the shell expand it."""
        for delimiter, quoted, strip in self.heredocs:
            while True:
                end = self.text.find("\n", self.i)
                line = self.text[self.i:] if end < 0 else self.text[self.i:end]
                if end < 0 and (line.lstrip("\t") if strip else line) != delimiter:
                    raise _Unreadable
                self.i = len(self.text) if end < 0 else end + 1
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                if not quoted and ("$" in line or "`" in line):
                    raise _Unreadable
        self.heredocs = []


def interpreter(name: str) -> bool:
    """Whether the program `name` (a file name) runs a script given as its first argument:
    python or pypy with any version after it (python3, python3.11), bash, sh, zsh, dash."""
    for family in ("python", "pypy"):
        if name.startswith(family):
            return not name[len(family):].strip("0123456789.")
    return name in _SHELLS


def _assignment(word: str) -> bool:
    """`NAME=value`, NAME a shell variable's name (ASCII letters, digits, `_`; no digit first)."""
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isascii() and name.isidentifier()


def program(simple: Simple) -> tuple[str, ...]:
    """The words from the program on: leading `VAR=value` assignments and an `env` prefix
    with its assignments dropped."""
    words = list(simple.words)
    while words and _assignment(words[0]):
        words.pop(0)
    if words and os.path.basename(words[0]) == "env":
        words.pop(0)
        while words and _assignment(words[0]):
            words.pop(0)
    return tuple(words)


def inside(path: str, folder: str, cwd: str) -> bool:
    """Whether `path` (relative to `cwd`) lies inside `folder`, links resolved."""
    real = os.path.realpath(os.path.join(cwd, path))
    return real.startswith(os.path.realpath(folder) + os.sep)


def script_run(simple: Simple, folder: str, cwd: str) -> bool:
    """Whether `simple` runs a script inside `folder`: the script itself, or an interpreter
    whose first argument that is not an option names it."""
    words = program(simple)
    if not words:
        return False
    if _script(words[0], folder, cwd):
        return True
    if not interpreter(os.path.basename(words[0])):
        return False
    for word in words[1:]:
        if not word.startswith("-"):
            return _script(word, folder, cwd)
        if "c" in word or "m" in word:  # -c CODE, -m MODULE: not a script file
            return False
    return False


def _script(path: str, folder: str, cwd: str) -> bool:
    return inside(path, folder, cwd) and os.path.isfile(os.path.join(cwd, path))


def harmless_redirects(simple: Simple) -> bool:
    """Redirections that write nothing: into /dev/null, between descriptors, or input."""
    for op, target in simple.redirects:
        kind = op.lstrip("0123456789")
        if kind in ("<", "<<", "<<-", "<<<"):
            continue
        if target == "/dev/null" or (kind in (">&", "<&") and target.isdigit()):
            continue
        return False
    return True
