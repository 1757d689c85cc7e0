"""The repositories users have, for the tests of the gate, the hooks and trust: most projects are
clones (with an `origin` remote, https or ssh), some are a worktree, a submodule, or a subfolder
of a larger repository, and on a team ledger a run may start in a teammate's clone. Each shape
is a project folder holding the test skill `guarded` (hooks_support.make_project)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .hooks_support import make_project

#: Every shape a project comes in.
SHAPES = ("no-remote", "https-origin", "ssh-origin", "worktree", "submodule", "subfolder",
          "teammate")
#: The shapes with an origin remote, whose runs record the repository as their workspace.
CLONES = tuple(s for s in SHAPES if s != "no-remote")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a",
                           "-c", "protocol.file.allow=always", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def repository(path: Path, origin: str | None) -> Path:
    """A repository at `path` with one commit (a README) and, given, an `origin` remote."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# app\n")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "init")
    if origin is not None:
        git(path, "remote", "add", "origin", origin)
    return path


def make_shape(shape: str, root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project folder of a repository of `shape` under `root`, with the skill in it."""
    if shape in ("no-remote", "https-origin", "ssh-origin"):
        origin = {"no-remote": None, "https-origin": "https://github.com/acme/app.git",
                  "ssh-origin": "git@github.com:acme/app.git"}[shape]
        project = repository(root / "app", origin)
    elif shape == "worktree":
        main = repository(root / "app", "https://github.com/acme/app.git")
        git(main, "worktree", "add", "-q", "-b", "feature", str(root / "app-feature"))
        project = root / "app-feature"
    elif shape == "submodule":
        library = repository(root / "lib-src", "https://github.com/acme/lib.git")
        outer = repository(root / "app", "https://github.com/acme/app.git")
        git(outer, "submodule", "add", "-q", str(library), "vendor/lib")
        project = outer / "vendor" / "lib"
        git(project, "remote", "set-url", "origin", "https://github.com/acme/lib.git")
    elif shape == "subfolder":
        outer = repository(root / "monorepo", "git@github.com:acme/monorepo.git")
        project = outer / "services" / "api"
        project.mkdir(parents=True)
    elif shape == "teammate":
        # Two clones of one repository on one ledger (SKILLRAIL_LEDGER: a file both name, as a
        # team names its server); the run starts in the teammate's.
        repository(root / "mine", "https://github.com/acme/app.git")
        project = repository(root / "theirs", "git@github.com:acme/app.git")
        monkeypatch.setenv("SKILLRAIL_LEDGER", str(root / "team" / "runs.sqlite3"))
        (root / "team").mkdir()
    else:
        raise ValueError(shape)
    make_project(project)
    return project
