"""A program's arguments read the way the program reads them, against an allow-list.

A `Grammar` names every option a command may get, exactly as spelled, and what each takes:

- `flag`: nothing (`--cached`, `-s`);
- `value`: one value, attached (`--format=%s`, `-n5`) or as the next word (`-n 5`);
- `optional`: a value only when attached (`--porcelain=v2`, `-uno`), as git and GNU read them;
- `path`: a value that names a file, which the gateway then confines to the workspace;
- `count`: a value that is a number of at most 9 digits (`-n 20`, `--max-count=5`).

Short options bundle as getopt reads them (`-la` is `-l -a`; in `-iOfoo`, `-O` takes `foo`), so a
forbidden option cannot hide inside a bundle. A long option must be spelled in full: programs
such as git and GNU ls accept unique abbreviations (`--open-files-in-pag`), which an allow-list
cannot foresee, so they are refused. Words after `--` (and a lone `-`) are operands. Anything the
grammar does not name is refused: the list says what may run, not what may not.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every step that runs a command imports this module.
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from ..base.errors import GatewayRefusal, shortened

FLAG, VALUE, OPTIONAL, PATH, COUNT = "flag", "value", "optional", "path", "count"
OPTION_KINDS = (FLAG, VALUE, OPTIONAL, PATH, COUNT)
MAX_COUNT_DIGITS = 9
#: What a command's operands (its words that are not options) may be.
OPERAND_KINDS = ("none", "any", "paths")
_NO_OPTIONS: Mapping[str, str] = MappingProxyType({})


class Grammar(NamedTuple):
    """What one command (a program, or one subcommand of it) accepts."""

    options: Mapping[str, str] = _NO_OPTIONS  # '--format' -> 'value', ...
    operands: str = "any"  # 'none', 'any' (checked when they look like paths), 'paths'
    operands_with: tuple[str, ...] = ()  # operands only when one of these options is given
    numeric: bool = False  # `-5` means a count (git log -5, head -5)
    always: tuple[str, ...] = ()  # words the gateway puts right after the command, always


class Parsed(NamedTuple):
    """A command's words sorted by what they are to the program."""

    options: tuple[tuple[str, str | None], ...]  # (option, its value or None)
    operands: tuple[str, ...]
    paths: tuple[str, ...]  # words that must name places inside the workspace
    values: tuple[str, ...]  # every other value and operand (confined if they look like paths)
    after_dashes: tuple[str, ...] = ()  # the operands that came after `--`


def parse(words: list[str], grammar: Grammar, command: str) -> Parsed:
    """`words` (after the program and its subcommand) read against `grammar`; GatewayRefusal
    on the first word it does not allow. `command` names it in messages ('git log')."""
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i, ended, dashed = 0, False, 0
    while i < len(words):
        word = words[i]
        if ended or word == "-" or not word.startswith("-"):
            operands.append(word)
            dashed += ended
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            i = _long(words, i, grammar, command, options)
        elif grammar.numeric and word[1:].isdigit():
            _check_count(word, word[1:], command)
            options.append((word, None))
        else:
            i = _short(words, i, grammar, command, options)
        i += 1
    _check_operands(operands, options, grammar, command)
    kinds = grammar.options
    for name, value in options:
        if kinds.get(name) == COUNT and value is not None:
            _check_count(name, value, command)
    paths = [v for name, v in options if v is not None and kinds.get(name) == PATH]
    values = [v for name, v in options if v is not None and kinds.get(name) != PATH]
    if grammar.operands == "paths":
        paths += operands
    else:
        values += operands
    return Parsed(tuple(options), tuple(operands), tuple(paths), tuple(values),
                  tuple(operands[len(operands) - dashed:]))


def _long(words: list[str], i: int, grammar: Grammar, command: str,
          options: list[tuple[str, str | None]]) -> int:
    """Read the long option at words[i]; return the index of the last word it used."""
    name, attached, value = words[i].partition("=")
    kind = _kind(name, words[i], grammar, command)
    if kind == FLAG:
        if attached:
            raise GatewayRefusal("option-value", f"'{shortened(words[i])}': {name} of "
                                 f"'{command}' takes no value", f"Write {name} alone")
        options.append((name, None))
    elif kind == OPTIONAL:
        options.append((name, value if attached else None))
    elif attached:
        options.append((name, value))
    else:
        options.append((name, _next_value(words, i, name, command)))
        return i + 1
    return i


def _short(words: list[str], i: int, grammar: Grammar, command: str,
           options: list[tuple[str, str | None]]) -> int:
    """Read the bundle of short options at words[i] (`-la`, `-n5`, `-uno`)."""
    word = words[i]
    for j in range(1, len(word)):
        name = "-" + word[j]
        kind = _kind(name, word, grammar, command)
        if kind == FLAG:
            options.append((name, None))
            continue
        rest = word[j + 1:]
        if kind == OPTIONAL or rest:
            options.append((name, rest or None))
            return i
        options.append((name, _next_value(words, i, name, command)))
        return i + 1
    return i


def _kind(name: str, word: str, grammar: Grammar, command: str) -> str:
    kind = grammar.options.get(name)
    if kind is None:
        inside = f" (in '{shortened(word)}')" if word != name else ""
        raise GatewayRefusal("option", f"'{shortened(name)}'{inside} is not an option "
                             f"'{command}' may take here", "Use only the options the policy "
                             f"lists for '{command}', spelled in full (`skillrail gateway "
                             "policy` shows them), or add it to .claude/skillrail.yaml")
    return kind


def _check_count(name: str, value: str, command: str) -> None:
    if not (value.isdigit() and value.isascii() and len(value) <= MAX_COUNT_DIGITS):
        raise GatewayRefusal("option-value", f"{name} of '{command}' takes a count (a number of "
                             f"at most {MAX_COUNT_DIGITS} digits), not '{shortened(value)}'",
                             f"Give {name} a plain number")


def _next_value(words: list[str], i: int, name: str, command: str) -> str:
    if i + 1 >= len(words):
        raise GatewayRefusal("option-value", f"{name} of '{command}' needs a value and none "
                             "follows", f"Give it one: {name} VALUE")
    return words[i + 1]


def _check_operands(operands: list[str], options: list[tuple[str, str | None]],
                    grammar: Grammar, command: str) -> None:
    if not operands:
        return
    if grammar.operands == "none":
        raise GatewayRefusal("operand", f"'{command}' takes no operands here; got "
                             f"'{shortened(operands[0])}'", "Drop it")
    given = {name for name, _ in options}
    if grammar.operands_with and not given & set(grammar.operands_with):
        need = " or ".join(grammar.operands_with)
        raise GatewayRefusal("operand", f"'{command}' takes operands only with {need} (without "
                             f"it, '{shortened(operands[0])}' would create or change "
                             "something)", f"Add {grammar.operands_with[0]} to list, or drop "
                             "the operand")


