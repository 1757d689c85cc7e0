"""Paths a command names must stay inside the workspace (or the skill's folder).

A word is confined when the grammar says it is a path, and also whenever it could be one: it
names something that exists (a symlink included), is `.` or `..`, or is absolute. It is resolved
with `realpath`, so a symlink that leaves the workspace is refused whatever its name (`pw` ->
/etc/passwd, `rootlink` -> /). A `..` component is refused outright in any argument: it is how
paths leave a folder, and a skill's `allowed-tools` glob (`scripts/*`) would match it. A file
with more than one hard link is refused too: a hard link has no target to resolve, so
`ln /elsewhere/secret notes` makes the secret a file of the workspace by every path check.
"""

from __future__ import annotations

import os
import stat

from ..base.errors import GatewayRefusal, shortened


def inside(path: str, folder: str) -> bool:
    """Whether the resolved `path` is `folder` or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_words(paths: tuple[str, ...] | list[str], others: tuple[str, ...] | list[str],
                roots: tuple[str, ...]) -> None:
    """Confine every word of `paths`, and every word of `others` that could be a path, to
    `roots` (resolved folders; the first is the workspace, which relative words start from)."""
    for word in [*paths, *others]:
        if ".." in word.split(os.sep):
            raise GatewayRefusal("dot-dot", f"'{shortened(word)}' has a '..' component",
                                 "Name the file without '..', from the workspace")
    for word in paths:
        confine(word, roots)
    for word in others:
        if could_be_path(word, roots[0]):
            confine(word, roots)


def could_be_path(word: str, workspace: str) -> bool:
    """Whether a program might read `word` as a file: it exists, or is `.`, `..` or absolute."""
    return (word in (".", "..") or os.path.isabs(word)
            or os.path.lexists(os.path.join(workspace, word)))


def confine(word: str, roots: tuple[str, ...]) -> str:
    """`word` resolved from the workspace; GatewayRefusal when it lies outside every root, or
    is a file hard-linked from elsewhere."""
    resolved = os.path.realpath(os.path.join(roots[0], word))
    if not any(inside(resolved, root) for root in roots):
        link = " (through a symlink)" if os.path.abspath(os.path.join(roots[0], word)) != \
            resolved else ""
        raise GatewayRefusal("path-escape", f"'{shortened(word)}' resolves to {resolved}{link}, "
                             "outside the workspace and the skill folder",
                             "Name files inside the project")
    try:
        found = os.stat(resolved)
    except OSError:
        return resolved
    if stat.S_ISREG(found.st_mode) and found.st_nlink > 1:
        raise GatewayRefusal("hard-link", f"'{shortened(word)}' has {found.st_nlink} links: the "
                             "same file is also elsewhere, maybe outside the workspace",
                             "Copy the file (cp, not ln) and name the copy, or name another")
    return resolved


