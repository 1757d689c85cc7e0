"""A skill's files as its commands see them: read once, hashed, and copied where nothing swaps
them. trust.py decides whether those bytes may run; this module only reads and copies them.

`read` walks the skill's folder and reads each file once. A symlink counts by what it leads to:
a linked file is read as a file at the link's place, a linked folder is walked as a folder
there, so the digest covers what a command that names `${SKILL_DIR}/...` gets. A link that
leaves the folder, leads nowhere or makes a loop cannot be covered: `read` refuses the skill,
naming the link and where it leads. So does compiled Python standing in for source (a
`helper.pyc` beside the scripts, an extension module), which no one can review.

Generated files are neither hashed nor copied: `__pycache__` and the test and lint caches (a
step writes bytecode into `scripts/__pycache__` when it imports a sibling module, and that must
not revoke trust), and skillrail's install mark. Since the copy holds no cache, a command never
loads bytecode from the skill: Python compiles the reviewed source.

A copy is written from the very bytes that were hashed, read-only: `seal` writes one for good
into a folder named by the digest (made under a temporary name and renamed, so it is whole or
absent), `private_copy` one for a single command, removed after it.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every command a step runs imports this module.
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import NamedTuple

from ..base.errors import SkillrailError
from .confine import inside

# sha256 from CPython's own module, not hashlib's: hashlib loads OpenSSL (about 5 ms of every
# step that runs a command), for the same digest.
try:
    from _sha2 import sha256  # type: ignore[import-not-found]  # Python 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # Python 3.11
    except ImportError:  # an interpreter built without them
        from hashlib import sha256

#: Generated folders: Python's bytecode cache and the test and lint tools' caches.
CACHES = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
#: The note `skillrail install` leaves in a copy it made (tools/placement.py): not the skill's.
INSTALL_MARK = ".skillrail-install"
#: Compiled Python, which Python imports when it finds no source beside it (bytecode) or in
#: preference to the source (an extension module).
COMPILED = (".pyc", ".pyo", ".so", ".pyd")
#: A skill is a few small files; a folder past these is not one.
MAX_FILES = 2_000
MAX_BYTES = 16 * 1024 * 1024


class UntrustableSkill(SkillrailError):
    """A skill folder trust cannot cover as it is: a link out of it, compiled code, too much."""

    def __init__(self, folder: str, why: str, fix: str) -> None:
        super().__init__(f"the skill at {folder} cannot be trusted: {why}", fix=fix)
        self.folder, self.why = folder, why


class Contents(NamedTuple):
    """A skill's files as read once: (path relative to the folder, bytes) in the order they
    were hashed, and the digest over them."""

    folder: str
    files: tuple[tuple[str, bytes], ...]
    digest: str


def read(folder: str) -> Contents:
    """Every file of the skill in `folder` (resolved), read once, and the sha256 over each one's
    relative path and bytes; UntrustableSkill when trust cannot cover the folder."""
    root = os.path.realpath(folder)
    left = MAX_BYTES
    files: list[tuple[str, bytes]] = []
    for rel, path in _walk(root, root, "", (root,)):
        if len(files) == MAX_FILES:
            raise _too_big(root, f"more than {MAX_FILES} files")
        data = _read_file(root, rel, path, left)
        left -= len(data)
        files.append((rel, data))
    return Contents(root, tuple(files), hashed(files))


def hashed(files: Iterable[tuple[str, bytes]]) -> str:
    """The digest over files (relative path, bytes) in the order read gives them."""
    hasher = sha256()
    for rel, data in files:
        name = rel.encode("utf-8", "surrogateescape")
        hasher.update(len(name).to_bytes(4, "big") + name)
        hasher.update(sha256(data).digest())
    return str(hasher.hexdigest())


def _walk(root: str, here: str, rel: str, chain: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(relative path, real path) of each file under `here`: a folder's files in name order,
    then its folders in name order (the order the digest has always had); `chain` holds the
    real folders walked down to `here`, so a link back up is a loop, not a descent."""
    try:
        with os.scandir(here) as found:
            entries = sorted((e for e in found if e.name not in CACHES
                              and e.name != INSTALL_MARK), key=lambda e: e.name)
    except OSError as exc:
        raise UntrustableSkill(root, f"{rel or 'its folder'} cannot be read ({exc.strerror})",
                               "Make it readable") from None
    folders = []
    for entry in entries:
        name = f"{rel}/{entry.name}" if rel else entry.name
        if entry.is_symlink():
            real = _followed(root, name, entry.path)
            folder = os.path.isdir(real)
        else:  # the type scandir read with the name: no stat
            real, folder = entry.path, entry.is_dir(follow_symlinks=False)
        if folder:
            folders.append((name, real))
        else:
            yield name, real
    for name, real in folders:
        if real in chain:
            raise UntrustableSkill(root, f"{name} leads to {real}, a folder it is in (a loop)",
                                   "Remove the link: a folder cannot hold itself")
        yield from _walk(root, real, name, (*chain, real))


def _followed(root: str, name: str, link: str) -> str:
    """Where the link `name` leads, when that is inside the skill."""
    target = os.path.realpath(link)
    if not inside(target, root):
        raise UntrustableSkill(root, f"{name} leads to {target}, outside the skill's folder",
                               "Copy what it leads to into the skill (or remove the link), "
                               "then trust the skill")
    if not os.path.exists(target):
        raise UntrustableSkill(root, f"{name} leads to {target}, which does not exist",
                               "Remove the link, or make it lead to a file of the skill")
    return target


def _read_file(root: str, name: str, path: str, left: int) -> bytes:
    """The bytes of the regular file at `path` (at most `left` of them)."""
    if name.endswith(COMPILED):
        raise UntrustableSkill(root, f"{name} is compiled Python, which cannot be reviewed",
                               "Remove it: a skill's Python runs from its source")
    try:  # a link swapped in since the walk is not followed, a FIFO does not block the read
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UntrustableSkill(root, f"{name} cannot be read ({exc.strerror})",
                               "Make it readable, or remove it") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustableSkill(root, f"{name} is not a regular file",
                                   "Remove it: a skill holds files and folders")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, max(info.st_size, 65_536) + 1):
            chunks.append(chunk)
            size += len(chunk)
            if size > left:
                raise _too_big(root, f"more than {MAX_BYTES // (1024 * 1024)} MiB")
    finally:
        os.close(fd)
    return b"".join(chunks)


def _too_big(root: str, what: str) -> UntrustableSkill:
    return UntrustableSkill(root, f"it holds {what}", "Keep large data outside the skill's "
                            "folder: a skill is a few small files")


def seal(contents: Contents, base: str) -> str:
    """The sealed copy of `contents` in `base`: `base/<digest>`, written now unless it is there
    already. Content-addressed, so a copy that exists holds exactly those bytes."""
    import tempfile

    final = os.path.join(base, contents.digest)
    if os.path.isdir(final):
        return final
    os.makedirs(base, mode=0o700, exist_ok=True)
    partial = tempfile.mkdtemp(prefix=".partial-", dir=base)
    try:
        _write(contents, partial)
        os.rename(partial, final)
    except OSError:
        remove(partial)
        if not os.path.isdir(final):  # else another `skillrail trust` sealed it first
            raise
    os.chmod(final, 0o555)
    return final


@contextmanager
def private_copy(contents: Contents, only: frozenset[str] | None = None) -> Iterator[str]:
    """A copy of `contents` (of its files named in `only`, when given) for one command: in a
    fresh private temporary folder, read-only, removed when the block ends."""
    import tempfile

    if only is not None:
        contents = contents._replace(files=tuple(f for f in contents.files if f[0] in only))
    try:
        folder = os.path.realpath(tempfile.mkdtemp(prefix="skillrail-skill-"))
        _write(contents, folder)
        os.chmod(folder, 0o555)
    except OSError as exc:
        raise SkillrailError(f"the files of the skill at {contents.folder} could not be copied "
                             f"for its command to run ({exc.strerror or exc})",
                             fix="Check that the temporary folder is writable") from None
    try:
        yield folder
    finally:
        remove(folder)


def _write(contents: Contents, folder: str) -> None:
    """Write each file of `contents` under `folder`; files and folders read-only."""
    made: set[str] = set()
    for rel, data in contents.files:
        parent = os.path.dirname(rel)
        if parent and parent not in made:
            os.makedirs(os.path.join(folder, parent), exist_ok=True)
            while parent and parent not in made:
                made.add(parent)
                parent = os.path.dirname(parent)
        fd = os.open(os.path.join(folder, rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    for parent in sorted(made, key=len, reverse=True):  # the deepest first
        os.chmod(os.path.join(folder, parent), 0o555)


def remove(folder: str) -> None:
    """Remove a copy (its folders made writable first, as deleting their entries needs)."""
    import shutil

    for here, dirs, _ in os.walk(folder):
        for name in dirs:
            os.chmod(os.path.join(here, name), 0o700)
    if os.path.isdir(folder):
        os.chmod(folder, 0o700)
    shutil.rmtree(folder, ignore_errors=True)


def relocator(live: str, copy: str) -> Callable[[str], str]:
    """A function moving a command word that names the live skill folder, or a path in it, into
    the copy (the value of an `--option=` word too): `${SKILL_DIR}/scripts/run.py` then runs
    the copy's script. Both the folder as given and its resolved path are recognised."""
    prefixes = tuple(dict.fromkeys(p.rstrip(os.sep) for p in (live, os.path.realpath(live))))

    def moved(word: str) -> str:
        head, equals, value = word.partition("=") if word.startswith("-") else ("", "", word)
        for prefix in prefixes:
            if inside(value, prefix):
                return head + equals + copy + value[len(prefix):]
        return word

    return moved
