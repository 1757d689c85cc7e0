"""What a markdown doc claims about its repository, extracted without judging it: the relative
paths it links or names in inline code, the commands of its code blocks (shell, untyped and
indented) and inline code, and the --flags it documents for a project CLI (_docstrings.py reads
the parameters Python docstrings document). Text in, references out; the checker
(_check-docs.py) decides what holds."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import functools
import re
import shlex
from collections.abc import Collection, Iterator, Mapping
from typing import NamedTuple

SHELL_LANGS = {"sh", "bash", "shell", "zsh", "console", "shell-session", "shellsession",
               "terminal"}
#: Blocks whose lines without a `$ ` prompt are output, not commands.
PROMPTED = {"console", "shell-session", "shellsession", "terminal"}
INTERPRETERS = {"python", "python3", "bash", "sh", "zsh", "node", "ruby", "perl"}
RUNNERS = {"make", "npm", "pnpm", "yarn"}
#: Words in front of the real command: dropped (the number is how many words each takes).
WRAPPERS = {"sudo": 1, "env": 1, "time": 1, "nohup": 1, "exec": 1, "command": 1, "uv": 2,
            "poetry": 2, "pipenv": 2}
KNOWN_EXT = {"md", "rst", "txt", "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json",
             "yaml", "yml", "toml", "ini", "cfg", "conf", "sh", "bash", "ps1", "rb", "go", "rs",
             "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs", "php", "html", "css", "scss",
             "sql", "xml", "csv", "lock", "mk", "tf", "proto", "ipynb"}
KNOWN_FILES = {"Makefile", "Dockerfile", "Gemfile", "Procfile", "Justfile", "LICENSE",
               "Vagrantfile", "Containerfile"}

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_INDENTED = re.compile(r"^(?: {4}|\t)")  # an indented code block's line (CommonMark)
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")
_HTML = re.compile(r"\b(?:src|href)=\"([^\"]+)\"")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_PATHISH = re.compile(r"^(?:\.{1,2}/)*\.?[\w@+-][\w.@+-]*(?:/\.?[\w@+-][\w.@+-]*)*/?$")
_EXT = re.compile(r"\.([A-Za-z][A-Za-z0-9]{0,7})$")
_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z0-9][\w-]*)")
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")
_PYTHON = re.compile(r"^python(?:3(?:\.\d+)?)?$")


class Ref(NamedTuple):
    """One claim of a doc, at a 1-based line. `kind`:
    - 'link': a link target, relative to the doc's folder (a leading / means the root);
    - 'path' / 'maybe-path': inline code that looks like a path (surely, or only if its first
      folder exists);
    - 'command': one simple command; `words` is its argv;
    - 'flag': a --flag documented for a CLI; `words` is (CLI, subcommand or '');
    - 'param': a parameter a docstring documents; `words` is (function, its real parameters;
      '*' among them when it takes **kwargs)."""

    kind: str
    line: int
    text: str
    words: tuple[str, ...] = ()


def extract(text: str, clis: Collection[str]) -> list[Ref]:
    """Every reference of a markdown doc, in line order. `clis` are the project's CLIs (names,
    or script paths run by an interpreter). A bare `--flag` in inline code belongs to the CLI
    of the last command the doc showed; after another tool's command, to none.

    Shell blocks are read as commands. Untyped blocks (a fence without a language, or lines
    indented by four spaces after a blank line, outside a list) often hold output too, so only
    their lines that run a project CLI, an interpreter, make or npm are taken as commands."""
    refs: list[Ref] = []
    fence, lang, pending = "", "", ""  # pending: a shell line continued with a backslash
    near: tuple[str, ...] | None = None
    prompted = False  # the open block shows `$ ` prompts: its lines without one are output
    blank, in_list, indented = True, False, False  # what indented code blocks depend on
    for number, line in enumerate(text.splitlines(), 1):
        opened, code = _FENCE.match(line), ""  # code: the line as a code block's line
        if fence and opened and opened.group(1)[0] == fence[0] \
                and len(opened.group(1)) >= len(fence) and not opened.group(2):
            fence, pending, line = "", "", ""  # the closing fence: a block boundary
        elif fence:
            code = line if lang in SHELL_LANGS or not lang else ""
        elif opened:
            fence, lang, pending, line = opened.group(1), opened.group(2).lower(), "", ""
            prompted, indented = lang in PROMPTED, False
        elif line.strip() and _INDENTED.match(line) and (indented or (blank and not in_list)):
            indented, code = True, line.expandtabs(4)[4:]
        elif line.strip():
            if indented or _LIST_ITEM.match(line) or (blank and not line[0].isspace()):
                in_list = bool(_LIST_ITEM.match(line))  # a paragraph at the margin ends a list
            indented, prompted, pending = False, False, ""
            found, near = _inline(line, number, clis, near)
            refs += found
        typed = bool(fence and lang)
        if code.strip():
            prompted = prompted or (not typed and code.lstrip().startswith("$ "))
            pending, commands = _shell_line(pending, code, prompted)
            for argv in commands:
                if typed or _runs_something(argv, clis):
                    refs += [Ref("command", number, " ".join(argv), tuple(argv))] \
                        if checkable(argv, clis) else []
                    near = _cli_ref(tuple(argv), clis)
        blank = not line.strip()
    return refs


def _runs_something(argv: list[str], clis: Collection[str]) -> bool:
    """Whether a line of an untyped block runs a command the checker knows: a project CLI, an
    interpreter, make or npm, or a ./script (a line such as `src/app.py` is more likely a
    listing or output there)."""
    return argv[0] in INTERPRETERS or argv[0] in RUNNERS or argv[0].startswith("./") \
        or cli_of(argv, clis) is not None


def _shell_line(pending: str, line: str, prompted: bool) -> tuple[str, list[list[str]]]:
    """(what continues on the next line, the commands this line completes)."""
    stripped = line.strip()
    if not pending:
        if stripped.startswith("$ "):
            stripped = stripped[2:]
        elif prompted or stripped.startswith("#"):
            return "", []  # output, or a comment
    if stripped.endswith("\\"):
        return pending + stripped[:-1] + " ", []
    return "", simple_commands(pending + stripped)


def _inline(line: str, number: int, clis: Collection[str],
            near: tuple[str, ...] | None) -> tuple[list[Ref], tuple[str, ...] | None]:
    refs = [Ref("link", number, t) for t in _link_targets(_CODE.sub(" ", line))]
    for match in _CODE.finditer(line):
        code = match.group(2).strip()
        if code.startswith("$ "):
            code = code[2:]
        if code.startswith("-"):
            refs += [Ref("flag", number, f, near) for f in _FLAG.findall(code) if near]
            continue
        commands = simple_commands(code)
        argv = commands[0] if len(commands) == 1 else []
        if len(argv) > 1:
            if checkable(argv, clis):
                refs.append(Ref("command", number, " ".join(argv), tuple(argv)))
            near = _cli_ref(tuple(argv), clis)
        elif len(argv) == 1:
            near = _cli_ref(tuple(argv), clis) or near
            kind = path_kind(argv[0])
            refs += [Ref(kind, number, argv[0])] if kind else []
    return refs, near


def _link_targets(line: str) -> Iterator[str]:
    from urllib.parse import unquote

    found = [m.group(1) for m in _LINK.finditer(line)] + [m.group(1) for m in _HTML.finditer(line)]
    found += [m.group(1) for m in [_REF_DEF.match(line)] if m]
    for target in found:
        if _SCHEME.match(target) or target.startswith(("#", "//")) or "{" in target:
            continue
        path = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if path:
            yield path


def path_kind(word: str) -> str:
    """'path' for a word that surely names a file or folder, 'maybe-path' for one that might
    (a/b without an extension), '' for anything else (URLs, dotted names, versions)."""
    if not _PATHISH.match(word) or word.replace(".", "").isdigit() or "//" in word:
        return ""
    last = word.rstrip("/").rsplit("/", 1)[-1]
    ext = _EXT.search(last)
    if "/" not in word:
        return "path" if (ext and ext.group(1).lower() in KNOWN_EXT) or word in KNOWN_FILES \
            else ""
    return "path" if ext or word.endswith("/") or word.startswith(".") else "maybe-path"


def simple_commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line (split at ; && || | and parentheses), each without
    redirections, leading VAR=value assignments and wrappers such as sudo."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = line.split()
    commands: list[list[str]] = []
    current: list[str] = []
    redirect = False
    for token in [*tokens, ";"]:
        if redirect:
            redirect = False
        elif set(token) <= set("<>&") and set(token) & set("<>"):  # >, 2>&1, &>
            redirect = True
            if current and current[-1].isdigit():
                current.pop()  # the 2 of 2>
        elif set(token) <= set(";&|()"):
            commands.append(_unwrapped(current))
            current = []
        else:
            current.append(token)
    return [c for c in commands if c]


def _unwrapped(argv: list[str]) -> list[str]:
    while argv and (re.match(r"^[A-Za-z_]\w*=", argv[0]) or argv[0] in WRAPPERS):
        argv = argv[WRAPPERS.get(argv[0], 1):]
    return argv


def checkable(argv: list[str] | tuple[str, ...], clis: Collection[str]) -> bool:
    """Whether the checker can say something about this command."""
    return bool(argv) and (argv[0] in INTERPRETERS or argv[0] in RUNNERS or "/" in argv[0]
                           or cli_of(argv, clis) is not None)


def _cli_ref(argv: tuple[str, ...], clis: Collection[str]) -> tuple[str, str] | None:
    found = cli_of(argv, clis)
    return found[:2] if found else None


def cli_of(argv: tuple[str, ...] | list[str],
           clis: Collection[str]) -> tuple[str, str, list[str]] | None:
    """(the CLI, its subcommand or '', the --flags used) when `argv` runs a project CLI: when
    it starts with the CLI's NAME or with the command that runs it (`clis` may map each NAME
    to that command, as clis.txt does), either perhaps behind an interpreter. python, python3
    and python3.N count as one."""
    words = tuple(_PYTHON.sub("python", w) for w in argv)
    for cli, start in _starts(tuple(clis.items()) if isinstance(clis, Mapping)
                              else tuple((c, c) for c in clis)):
        skip = 0 if words[:len(start)] == start else 1
        if skip and not (words[:1] and argv[0] in INTERPRETERS
                         and words[1:1 + len(start)] == start):
            continue
        rest = list(argv[skip + len(start):])
        sub = rest[0] if rest and _SUBCOMMAND.fullmatch(rest[0]) else ""
        flags = []
        for word in rest:
            if word == "--":
                break
            flags += [word.split("=", 1)[0]] if _FLAG.fullmatch(word.split("=", 1)[0]) else []
        return cli, sub, flags
    return None


@functools.lru_cache(maxsize=64)
def _starts(clis: tuple[tuple[str, str], ...]) -> list[tuple[str, tuple[str, ...]]]:
    """Each CLI with the words a command that runs it starts with (its NAME; the command
    clis.txt gives for it), the longest first: `python3 tool.py serve` wins over `python3
    tool.py` when both are listed."""
    found: set[tuple[str, tuple[str, ...]]] = {(name, (name,)) for name, _ in clis}
    for name, command in clis:
        argv = next((a for a in simple_commands(command) if a[0] != "cd"), [])
        found |= {(name, tuple(_PYTHON.sub("python", w) for w in argv))} if argv else set()
    return sorted(found, key=lambda pair: (-len(pair[1]), pair))
