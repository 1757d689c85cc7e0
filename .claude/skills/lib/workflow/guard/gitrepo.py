"""The repository a git command reads: where git itself finds it from the workspace, checked to
be the workspace's own, and its config listed whole so the programs it names can be switched off.

The workspace is the project folder a skill runs in. git finds its repository from there by a
`.git` folder or file in it or in a folder above it, and that repository may read more than the
workspace: a `.git` file (`gitdir: ...`) or symlink can lead to any repository on the machine, a
`commondir` file borrows another's objects and refs, `objects/info/alternates` and packs linked
into `objects/pack` add another's objects. So before each git command the gateway asks git
(`git rev-parse`) where the git folder, the common folder and the work tree's top are, and
accepts only:

- a git folder and common folder inside the workspace (the usual `.git`, or one it links to
  inside the workspace);
- the `.git` folder of a larger repository whose work tree holds the workspace: a workspace that
  is a subfolder of a monorepo. Then gitnames.py keeps git's words inside the subfolder, and
  diffs are shown relative to it;
- a linked worktree (`git worktree add`): its git folder is `<common>/worktrees/<id>`, outside
  the worktree by design, and it is accepted when that folder's `gitdir` file names this
  worktree's `.git` back, as git itself keeps them;
- a submodule: its git folder lies in `.git/modules/` of a repository above it, and its config
  sets `core.worktree` to the submodule's folder (git writes both when it clones one). A `.git`
  file elsewhere pointing at the same git folder is refused: that config names another folder.

Anything else is refused (`git-outside`): a `.git` file or symlink leading elsewhere, a
`commondir` outside, an objects folder, pack or alternate object store outside the workspace
and the repository's own folders. A `core.worktree` that points git at a folder whose `.git` is
not this repository's is refused as before (`git-config`).

The command then runs pinned to what was checked (`GIT_DIR`, `GIT_COMMON_DIR`, `GIT_WORK_TREE`):
git does not look for its repository a second time, so a `.git` swapped in between changes
nothing. Both probes are plain reads that run no program, outside the sandbox, which may hide
the folders they must see (the sandbox then shows the checked folders, read-only).
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every step that runs a git command imports this module.
import os
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ..base.errors import GatewayRefusal
from .cleanenv import git_overrides
from .confine import inside
from .execute import run_bounded

#: The most characters of setting names read from a config; one that lists more is refused,
#: never read in part (a driver past the cut would go unseen).
MAX_CONFIG_CHARS = 1_000_000
#: The deepest chain of alternate object stores git follows.
_MAX_ALTERNATES = 5
_WHERE = ("rev-parse", "--absolute-git-dir", "--git-common-dir", "--is-inside-work-tree",
          "--show-prefix", "--show-cdup")


class Repository(NamedTuple):
    """A repository a git command may read, as checked."""

    git_dir: str
    common_dir: str
    top: str | None  # the work tree's top; None without one (a bare repository)
    prefix: str  # where the workspace lies below the top: 'app/', or '' at the top
    keys: tuple[str, ...]  # the settings its config sets (names only)

    def folders(self) -> tuple[str, ...]:
        """What git reads beside the workspace: the top and the git folders."""
        return tuple(dict.fromkeys(p for p in (self.top, self.git_dir, self.common_dir) if p))

    def environment(self, path: str) -> dict[str, str]:
        """git pinned to this repository, its config's programs switched off (`path`: the
        command's PATH), and, in a subfolder, diffs shown relative to it."""
        env = git_overrides(self.keys, path, (("diff.relative", "true"),) if self.prefix else ())
        env["GIT_DIR"], env["GIT_COMMON_DIR"] = self.git_dir, self.common_dir
        if self.top is not None:
            env["GIT_WORK_TREE"] = self.top
        return env


def find(git: str, workspace: str, env: Mapping[str, str]) -> Repository | None:
    """The repository `git` finds from `workspace`, checked; None when there is none.
    GatewayRefusal when it is not the workspace's, or its config cannot be read whole."""
    where = run_bounded([git, *_WHERE], workspace, dict(env), 10, 100_000)
    if where.status != "ok":
        return None  # not a repository: git commands fail the same way
    lines = where.head.split("\n")
    if len(lines) != 6 or lines[5]:
        raise GatewayRefusal("git-outside", "git's answer to where the repository is cannot "
                             "be read (a folder's name holds a line break?)", "Rename it")
    git_dir, common = (os.path.realpath(os.path.join(workspace, p)) for p in lines[:2])
    top = os.path.realpath(os.path.join(workspace, lines[4])) if lines[2] == "true" else None
    pinned = {**env, "GIT_DIR": git_dir, "GIT_COMMON_DIR": common}
    repo = Repository(git_dir, common, top, lines[3] if top else "",
                      config_keys(git, workspace, pinned))
    check(repo, workspace)
    return repo


def config_keys(git: str, workspace: str, env: Mapping[str, str]) -> tuple[str, ...]:
    """The names of every setting git reads for the repository (its included files too);
    GatewayRefusal when they cannot be read whole."""
    listed = run_bounded([git, "config", "--list", "--name-only", "-z"], workspace, dict(env),
                         10, MAX_CONFIG_CHARS)
    if listed.truncated or listed.status != "ok":
        why = (f"names more than {MAX_CONFIG_CHARS:,} characters of settings" if
               listed.truncated else f"cannot be listed ({listed.summary()}: "
               f"{listed.head.strip()[:100]})")
        raise GatewayRefusal("git-config", f"the repository's config {why}, so the programs "
                             "it may name cannot all be switched off", "Shorten .git/config "
                             "(and the files it includes), or run the command yourself")
    return tuple(k for k in listed.head.split("\0") if k.strip())


def check(repo: Repository, workspace: str) -> None:
    """GatewayRefusal unless `repo` is the workspace's (see the module docstring)."""
    moved = "core.worktree" in (k.lower() for k in repo.keys)
    top = repo.top
    if top is None or not inside(workspace, top) or not _leads_to(top, repo.git_dir):
        if moved:
            raise GatewayRefusal("git-config", "the repository's config sets core.worktree, "
                                 f"which points git at another folder ({top or 'none'})",
                                 "Remove it from .git/config, or run the command yourself")
        if top is not None or not (inside(repo.git_dir, workspace)
                                   and inside(repo.common_dir, workspace)):
            raise _outside(f"the repository's git folder {repo.git_dir}", workspace)
    else:
        _owned(repo, top, workspace, moved)
    _objects(repo.common_dir, workspace)


def _owned(repo: Repository, top: str, workspace: str, moved: bool) -> None:
    """The git folder and common folder are the work tree's own."""
    git_dir, common, dotgit = repo.git_dir, repo.common_dir, os.path.join(top, ".git")
    if inside(git_dir, workspace) and inside(common, workspace):
        return
    if os.path.isdir(dotgit):  # the top's own .git folder: the workspace is a subfolder
        if not inside(git_dir, top):
            raise _outside(f"{dotgit}, a symlink to {git_dir},", workspace)
        if common != git_dir:
            raise _outside(f"the common folder {common} (named by {git_dir}/commondir)",
                           workspace)
        return
    if _worktree(git_dir, common, dotgit):
        return
    if common == git_dir and moved and any(
            inside(git_dir, os.path.join(folder, ".git", "modules"))
            and os.path.isdir(os.path.join(folder, ".git"))
            and not os.path.islink(os.path.join(folder, ".git")) for folder in _above(top)):
        return  # a submodule: its git folder names this folder as its work tree
    raise _outside(f"{git_dir}, where {dotgit} leads,", workspace)


def _leads_to(top: str, git_dir: str) -> bool:
    """Whether the top's `.git` (a folder, a symlink to one, or a `gitdir:` file) is
    `git_dir`, as git found it."""
    dotgit = os.path.join(top, ".git")
    if os.path.isdir(dotgit):
        return os.path.realpath(dotgit) == git_dir
    return _named(dotgit, "gitdir:") == git_dir


def _named(path: str, tag: str = "") -> str | None:
    """The folder the first line of `path` names after `tag` (`gitdir:` in a `.git` file,
    nothing in a worktree's `gitdir`), resolved from the file's folder; None without one."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            line = file.readline(4096).strip()
    except OSError:
        return None
    named = line[len(tag):].strip() if line.startswith(tag) else ""
    return os.path.realpath(os.path.join(os.path.dirname(path), named)) if named else None


def _worktree(git_dir: str, common: str, dotgit: str) -> bool:
    """Whether `git_dir` is a linked worktree's folder of `common` whose `gitdir` file names
    `dotgit` back."""
    if os.path.dirname(git_dir) != os.path.join(common, "worktrees"):
        return False
    return _named(os.path.join(git_dir, "gitdir")) == os.path.realpath(dotgit)


def _above(folder: str) -> Iterator[str]:
    """The folders that hold `folder`, nearest first."""
    while os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        yield folder


def _objects(common: str, workspace: str) -> None:
    """The object store is the repository's: its folder, every pack and every alternate
    store lie inside the workspace or the common folder."""
    roots = (workspace, common)
    objects = os.path.join(common, "objects")
    for place in (objects, os.path.join(objects, "pack")):
        if not any(inside(os.path.realpath(place), root) for root in roots):
            raise _outside(f"the object folder {place}, a link to {os.path.realpath(place)},",
                           workspace)
    try:
        with os.scandir(os.path.join(objects, "pack")) as found:
            linked = [e.path for e in found if e.is_symlink()]
    except OSError:
        linked = []
    for pack in linked:
        if not any(inside(os.path.realpath(pack), root) for root in roots):
            raise _outside(f"the pack {pack}, a link to {os.path.realpath(pack)},", workspace)
    _alternates(objects, roots, workspace, 0)


def _alternates(objects: str, roots: tuple[str, ...], workspace: str, depth: int) -> None:
    """Every object store `objects/info/alternates` adds (and those they add, as deep as git
    follows them) lies inside `roots`."""
    try:
        with open(os.path.join(objects, "info", "alternates"), encoding="utf-8",
                  errors="replace") as file:
            lines = file.read(MAX_CONFIG_CHARS).splitlines()
    except OSError:
        return
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        store = os.path.realpath(os.path.join(objects, line))
        if not any(inside(store, root) for root in roots):
            raise _outside(f"the alternate object store {store} (named by "
                           f"{objects}/info/alternates)", workspace)
        if depth < _MAX_ALTERNATES:
            _alternates(store, roots, workspace, depth + 1)


def _outside(what: str, workspace: str) -> GatewayRefusal:
    return GatewayRefusal("git-outside", f"{what} lies outside the workspace {workspace} and "
                          "is not a repository it is a worktree, submodule or subfolder of, so "
                          "git would read another repository", "Run git commands in a clone of "
                          "your own (for borrowed objects: git repack -a -d, then remove "
                          ".git/objects/info/alternates), or run the command yourself")
