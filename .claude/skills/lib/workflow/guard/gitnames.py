"""The words of a git command that name something in the repository, kept inside the workspace.

git reads some words as object names, and an object name can carry a path (gitrevisions(7)):
`HEAD:path` and `:path` (the index; `:N:path` at a stage) name a file of the repository, from its
top unless the path starts with `./` or `../` (then from where git runs); `A..B` and `A...B` are
two names; `^A` is one. From a workspace that is a subfolder of a larger repository (a monorepo's
package, where `.claude` lives), `HEAD:secret` and `HEAD:../other/file` read files outside the
workspace, so an object name whose path leaves it is refused (`git-object-path`). Pathspecs
cannot: the gateway runs git with `GIT_LITERAL_PATHSPECS=1`, so `:/`, `:!x` and `*` are plain
names. In such a subfolder git also shows diffs relative to it (`diff.relative`), which
`--no-relative` and `--relative=PATH` would undo (`git-relative`); `git status` is given the
workspace as its pathspec, and its `-v` is refused there (its diff heeds neither).

git also looks into a submodule's work tree when told to (`--ignore-submodules=none`,
`submodule.<name>.ignore`, `--recurse-submodules`), and runs there what the submodule's own
config names, a config the gateway never read; so the commands that compare work trees always
get `--ignore-submodules=dirty` (a command-line setting outranks every config and .gitmodules),
and an option that would go in is refused (`git-submodule`).

Which words are object names is decided when the command is checked (`review`); whether their
paths leave the workspace, when the repository is known (`confine`, with its prefix).
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every step that runs a git command imports this module.
import posixpath
from typing import NamedTuple

from ..base.errors import GatewayRefusal, shortened
from .argvgrammar import Parsed

#: Options whose value git reads as an object name.
REVISION_OPTIONS = frozenset({"--merged", "--no-merged", "--contains", "--no-contains",
                              "--points-at", "--ignore-rev", "--ancestry-path", "--with-tree"})
#: Subcommands whose operands are pathspecs or ref patterns, never object names.
NO_OBJECTS = frozenset({"status", "ls-files", "branch", "tag"})
#: Subcommands that compare the work tree, so could look inside a submodule's.
COMPARES_WORK_TREE = frozenset({"status", "diff", "diff-files", "diff-index"})
SUBMODULES_UNSEEN = "--ignore-submodules=dirty"
#: Option values that take git into a submodule's work tree (None: the bare option).
_SEEING = {"--ignore-submodules": ("none", "untracked"), "--submodule": ("diff",),
           "--recurse-submodules": (None, "yes", "true", "on-demand")}


class GitWords(NamedTuple):
    """What a checked git command names in the repository."""

    subcommand: str
    objects: tuple[str, ...]  # the words git reads as object names
    relative: tuple[str, ...]  # what would show a subfolder's surroundings: `--no-relative`,
    # `--relative=PATH`, `git status -v`, as given
    pathspecs: bool  # the command names paths of its own


def review(subcommand: str, parsed: Parsed) -> tuple[GitWords, tuple[str, ...]]:
    """The command's words that name things, and the words the gateway adds after the
    subcommand; GatewayRefusal for an option that would look inside a submodule."""
    for name, value in parsed.options:
        if name in _SEEING and value in _SEEING[name]:
            given = name if value is None else f"{name}={value}"
            raise GatewayRefusal("git-submodule", f"'{given}' makes git look inside "
                                 "submodules, where their own config (which the gateway has "
                                 "not read) could run a program", "Drop it" + (
                                     f", or use {name}=all" if name == "--ignore-submodules"
                                     else ""))
    before = parsed.operands[:len(parsed.operands) - len(parsed.after_dashes)]
    if subcommand == "grep" and not any(n in ("-e", "-f") for n, _ in parsed.options):
        before = before[1:]  # the first operand is the pattern
    objects = [v for n, v in parsed.options if n in REVISION_OPTIONS and v is not None]
    if subcommand not in NO_OBJECTS:
        objects += before
    relative = tuple(n if v is None else f"{n}={v}" for n, v in parsed.options
                     if n == "--no-relative" or (n == "--relative" and v is not None)
                     or (subcommand == "status" and n in ("-v", "--verbose")))
    words = GitWords(subcommand, tuple(objects), relative, bool(parsed.operands))
    return words, ((SUBMODULES_UNSEEN,) if subcommand in COMPARES_WORK_TREE else ())


def of_words(subcommand: str, words: list[str]) -> GitWords:
    """A command approved word for word: every word that is not an option may be an object
    name (a word without a path part is harmless)."""
    objects = tuple(w for w in words if not w.startswith("-"))
    return GitWords(subcommand, objects, (), bool(objects))


def confine(words: GitWords, argv: list[str], prefix: str) -> list[str]:
    """GatewayRefusal for a word that reaches outside the workspace, which lies at `prefix`
    ('app/') below the repository's top ('' at the top); the words to add at the end of the
    command (a subfolder's pathspec for `git status`)."""
    for word in words.objects:
        for path, from_here in object_paths(word):
            full = _resolved(path, from_here, prefix)
            if not _within(full, prefix):
                where = f"the workspace ({prefix.rstrip('/')}/ of the repository)" if prefix \
                    else "the repository"
                raise GatewayRefusal("git-object-path", f"'{shortened(word)}' names '{full}' of "
                                     f"the repository, outside {where}", "Name files inside "
                                     "the workspace: HEAD:./FILE from the workspace"
                                     + (f", or HEAD:{prefix}FILE from the top" if prefix
                                        else ""))
    if not prefix:
        return []
    if words.relative:
        raise GatewayRefusal("git-relative", f"'{words.relative[0]}' would show changes outside "
                             f"the workspace ({prefix.rstrip('/')}/ of a larger repository)",
                             "Drop it: diffs here are shown relative to the workspace")
    if words.subcommand == "status" and not words.pathspecs:
        return ["."] if "--" in argv else ["--", "."]
    return []


def object_paths(word: str) -> list[tuple[str, bool]]:
    """The paths an object name reads, each with whether it is from the current folder (it
    starts with `./` or `../`) rather than the top; both sides of a range are looked at, and
    the whole word too (a path may itself hold `..`)."""
    names = [word, *word.replace("...", "..").split("..")] if ".." in word else [word]
    found = []
    for name in names:
        path = _path_of(name.lstrip("^"))
        if path is not None:
            found.append((path, path.startswith(("./", "../")) or path in (".", "..")))
    return found


def _path_of(name: str) -> str | None:
    """The path part of one object name, read as git reads it; None when it has none."""
    if name.startswith(":"):
        if len(name) > 2 and name[1] == "/":
            return None  # `:/text`: the youngest commit whose message matches
        rest = name[1:]
        return rest[2:] if len(rest) >= 2 and rest[0] in "0123" and rest[1] == ":" else rest
    depth = 0
    for i, char in enumerate(name):
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == ":" and not depth:
            return name[i + 1:]
    return None


def _resolved(path: str, from_here: bool, prefix: str) -> str:
    """The path from the repository's top, normalised ('.' for the top itself)."""
    return posixpath.normpath(prefix + path if from_here else (path or "."))


def _within(full: str, prefix: str) -> bool:
    if full.startswith("/") or full == ".." or full.startswith("../"):
        return False
    return not prefix or full == prefix.rstrip("/") or full.startswith(prefix)


