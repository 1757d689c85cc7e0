"""Trust before execution: a skill's `` !`cmd` `` and `verify=` commands run only once the user
trusts the skill (direnv's `allow`, VS Code's workspace trust), and then only the bytes the user
trusted.

What is trusted is a digest of the skill's files as its commands see them (snapshot.py): every
file of its folder, SKILL.md, scripts and resources, a symlink counted by what it leads to. A
skill with a link leaving its folder (or leading nowhere, or into a loop), or with compiled
Python standing in for source, cannot be trusted at all: its commands could run what no digest
covers. Two things make a digest trusted:

- the user's record: `skillrail trust SKILL`, run in the user's own terminal, reads the files
  once, writes those bytes as a sealed, read-only copy named by their digest into the evidence
  store's folder, and records the digest there. The agent cannot write that folder (the hooks
  refuse it `skillrail trust`; `skillrail hooks install --sandbox` has Claude Code's sandbox deny
  its writes). `skillrail init` and `install --copy` record the copies they make the same way;
- the shipped manifest (shipped.json, made by `skillrail docs --write` in skillrail's checkout
  and checked fresh by a test): a folder named like one of skillrail's own skills whose digest
  is the manifest's is that skill, wherever it sits (the package, a project's copy, a clone of
  a project that committed its copies). A name alone trusts nothing: an edited copy runs no
  command until the user trusts it.

Before each command the skill's files are read and hashed once more: any change (a file added,
removed, edited, a link pointed elsewhere) revokes the trust. The command then runs from a copy
of exactly the bytes trusted, never from the live folder, so a file swapped after that check
changes nothing that runs: `${SKILL_DIR}` (any word naming the skill's folder or a path in it)
names the copy, so the interpreter runs the copy's script, and the sandbox binds it read-only.

Where the copy is, and why: sealed at trust time, in the user's terminal, into the folder the
agent cannot write, the copy has no window at all, and a step pays nothing for it (the hash it
always paid, and a lookup). Only where no user-side command sealed that digest (a shipped skill
in the package or a checkout, a record an older skillrail made) is a private copy written per
command, from the bytes just hashed, into a fresh temporary folder, read-only, and removed
after it; a command that names no path of the skill gets SKILL.md alone there (the policy reads
its allowed-tools), since it cannot reach the rest and a copy costs.

Bytecode: the digest leaves `__pycache__` out, because a step script writes it there whenever
it imports a sibling module, and that must not revoke trust; so no copy holds a cache, and a
skill's script runs with `-B`, so none is written into a copy either. Python compiles the
reviewed source every time: a `.pyc` forged beside it, with the source's time and size, never
loads.

What remains: a private copy lives in the temporary folder, which the agent's own processes can
write while the command runs (a race against a fresh, randomly named folder; `skillrail trust`
on a shipped skill seals it and closes that). No framework sits beside a copy, and no folder
on a copy's path is named `skills`: a skill script's bootstrap lines find nothing there, so it
imports skillrail from the interpreter's path, as the gateway sets it. A command that reaches the
skill's files by another path than its folder's (relative to the workspace, say) reads the live
files, as it reads any file of the workspace. The command's text is taken from the live
SKILL.md or step script as the step is printed, just before the check; the policy and the copy
still bound what it can run. The framework a skill script imports is not the skill's and not
covered: in a project set up with `skillrail init` it is project code, manifest included, that an
agent allowed to edit `.claude/skills/lib` can change. Without `--sandbox`, code the agent runs
can write the evidence store, its records and its sealed copies.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each string
# annotation at import, and every command a step runs imports this module.
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from ..base.paths import AGENTS_FORMED, SKILLS_DIR, agents_form, evidence_dir
from .snapshot import (
    Contents,
    UntrustableSkill,
    hashed,
    private_copy,
    read,
    relocator,
    remove,
    seal,
)

if TYPE_CHECKING:
    from .evidence import Evidence

#: The names of skillrail's own skills (beside `lib/`); a test keeps the list equal to the
#: package's skill folders and to the manifest's names.
SHIPPED = ("codebase-analysis", "commit-message", "decision-critic", "deepthink", "doc-sync",
           "incoherence", "planner", "problem-analysis", "prompt-engineer", "refactor",
           "skill-runner", "solution-design", "writing-style")
#: The digests of skillrail's own skills, by name (`skillrail docs --write` makes it).
MANIFEST_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shipped.json")
_MANIFEST: dict[str, tuple[str, ...]] = {}
#: What the gateway reads of a skill's folder for a command that names none of its files.
_POLICY_FILES = frozenset({"SKILL.md"})


class Admitted(NamedTuple):
    """A trusted skill's files as read for one command, and the sealed copy of them, if any."""

    given: str  # the folder as the caller named it (its commands' words name it so)
    contents: Contents
    sealed: str | None

    @contextmanager
    def running(self, template: str, substitute: Callable[[str], str]
                ) -> Iterator[tuple[str, Callable[[str], str]]]:
        """(the folder the command `template` runs from as the skill's, its substitution with
        every path into the live folder moved there): the sealed copy, else a private one. A
        command naming no path of the skill gets a private copy of SKILL.md alone (the
        policy reads its allowed-tools): it could not reach the rest, and a copy costs."""
        if self.sealed is not None:
            yield self.sealed, self._moving(substitute, self.sealed)
            return
        from ..authoring.commandtext import words

        probe = relocator(self.given, "\0")
        names = any(probe(w) != w for w in map(substitute, words(template)))
        with private_copy(self.contents, None if names else _POLICY_FILES) as folder:
            yield folder, self._moving(substitute, folder)

    def _moving(self, substitute: Callable[[str], str], copy: str) -> Callable[[str], str]:
        moved = relocator(self.given, copy)
        return lambda word: moved(substitute(word))


def admit(skill_dir: str) -> Admitted | str:
    """The skill's files, read once, when they are what the user trusted (or a shipped skill's
    exactly); else why its commands may not run, with what the user does about it."""
    real = os.path.realpath(skill_dir)
    how = f"runs `skillrail trust {real}` in their own terminal; an agent never runs that"
    try:
        contents = read(real)
    except UntrustableSkill as exc:
        fix = exc.fix[:1].lower() + exc.fix[1:]
        return f"{exc.what}, so its commands do not run. The user fixes that ({fix}) and {how}"
    if not as_shipped(contents):
        recorded = _recorded(real)
        if recorded != contents.digest:
            state = ("has changed since the user trusted it" if recorded else
                     "is not trusted here")
            return (f"the skill at {real} {state}, so its commands do not run. The user "
                    f"reviews it and {how}")
    sealed = os.path.join(sealed_folder(), contents.digest)
    return Admitted(skill_dir, contents, sealed if os.path.isdir(sealed) else None)


def untrusted(skill_dir: str) -> str | None:
    """Why the skill's commands may not run (see admit); None when they may."""
    admitted = admit(skill_dir)
    return admitted if isinstance(admitted, str) else None


def _recorded(folder: str) -> str | None:
    """The digest the user trusted for `folder`, from the store opened read-only (as a step in
    the agent's sandbox can); None when there is none or the store cannot be read."""
    from ..base.errors import LedgerError
    from .evidence import read_only

    try:
        store = read_only()
        if store is not None:
            with store:
                return store.trusted(folder)
    except LedgerError:
        pass  # an unreadable store trusts nothing
    return None


def record(store: "Evidence", contents: Contents) -> None:
    """Trust a skill's files as read (snapshot.read), on the user's side only: sealed, then
    their digest recorded for the skill's folder."""
    seal(contents, sealed_folder())
    store.trust(contents.folder, contents.digest, len(contents.files))


def seal_shipped(contents: Contents) -> str:
    """Seal a shipped skill's files, so its commands run from that copy (the user's side)."""
    return seal(contents, sealed_folder())


def prune(store: "Evidence") -> None:
    """Remove the sealed copies that neither a record nor the manifest holds any more."""
    base = sealed_folder()
    keep = {digest for _, digest, _, _ in store.all_trusted()} | {
        d for digests in manifest().values() for d in digests}
    for name in os.listdir(base) if os.path.isdir(base) else ():
        if name not in keep and not name.startswith(".partial-"):
            remove(os.path.join(base, name))


def sealed_folder() -> str:
    """Where the sealed copies are, each named by its digest: in the evidence store's folder,
    which the agent cannot write. (No folder on the way is named `skills`: a skill script's
    bootstrap line would take it for the framework's.)"""
    return os.path.join(evidence_dir(), "snapshots")


def shipped(skill_dir: str) -> bool:
    """Whether the folder holds one of skillrail's own skills exactly as shipped: its name is
    in the manifest and its digest is the manifest's."""
    real = os.path.realpath(skill_dir)
    if os.path.basename(real) not in manifest():
        return False
    try:
        return as_shipped(read(real))
    except UntrustableSkill:
        return False


def as_shipped(contents: Contents) -> bool:
    """Whether the files read are one of skillrail's own skills, exactly as shipped."""
    return contents.digest in manifest().get(os.path.basename(contents.folder), ())


def digest(skill_dir: str) -> str:
    """The digest of the skill's files; UntrustableSkill when trust cannot cover the folder."""
    return read(skill_dir).digest


def manifest() -> dict[str, tuple[str, ...]]:
    """The shipped skills' digests by name, as shipped.json holds them: each skill as shipped,
    then as `skillrail init --agents` copies it (agents_form), ({} when the file is missing or
    damaged: then no folder is trusted by its name)."""
    if not _MANIFEST:
        import json

        try:
            with open(MANIFEST_FILE, encoding="utf-8") as handle:
                found = json.load(handle)
            agents = found.get("agents", {})
            _MANIFEST.update({str(k): (str(v), str(agents.get(k, v)))
                              for k, v in found["skills"].items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
    return _MANIFEST


def manifest_text() -> str:
    """shipped.json as it should be: the digest of each skill in this package's skills folder,
    and of its copy in a project's `.agents/skills` (SKILL.md in agents_form)."""
    import json

    names = sorted(n for n in os.listdir(SKILLS_DIR)
                   if os.path.isfile(os.path.join(SKILLS_DIR, n, "SKILL.md")))
    contents = {n: read(os.path.join(SKILLS_DIR, n)) for n in names}
    return json.dumps({"made-by": "skillrail docs --write (guard/trust.py: manifest_text)",
                       "skills": {n: c.digest for n, c in contents.items()},
                       "agents": {n: agents_digest(c) for n, c in contents.items()}},
                      indent=1) + "\n"


def agents_digest(contents: Contents) -> str:
    """The digest of a skill's copy in a project's `.agents/skills`: its files in agents_form."""
    name = os.path.basename(contents.folder)
    return hashed((rel, agents_form(rel, data.decode("utf-8"), name).encode("utf-8")
                   if rel in AGENTS_FORMED else data) for rel, data in contents.files)
