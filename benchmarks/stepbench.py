"""What the step benchmarks share: the checkout's workflows, the steady state they are measured
in (bytecode compiled, a scratch ledger), a scratch git repository to run steps from, and
interleaved timing against a bare `python3 -c pass`, so that machine noise hits every command
of a round alike. Every step and every bare start runs with a clean interpreter (clean_python):
a user's python3, without what a machine's site folders add. Not a benchmark itself."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".claude"))

from skills.lib.workflow.graph.model import Workflow
from skills.lib.workflow.step.discovery import discover_workflows


def user_python() -> str:
    """A user's python3: /usr/bin's, when it is 3.11 or newer, else the Python this one was
    made from. Never this virtual environment's: its editable install and test libraries make a
    bare start about twice as slow, which flattered every ratio."""
    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is not None:
        done = subprocess.run([system, "-c", "import sys; print(sys.version_info >= (3, 11))"],
                              capture_output=True, text=True, check=False)
        if done.stdout.strip() == "True":
            return system
    return getattr(sys, "_base_executable", sys.executable)


def clean_python() -> str:
    """The interpreter the benchmarks time steps with, and a bare start of: the user's python3
    in an empty virtual environment (no pip, no system site folder), made once per benchmark
    run. A machine's site folders may hold .pth files that run code at every start (a sandbox
    here adds one importing certifi, 60 ms or more); they would inflate the bare start and
    pre-import what our code must import itself, flattering every ratio again."""
    folder = Path(tempfile.mkdtemp(prefix="clean-python-"))
    subprocess.run([USER_PYTHON, "-m", "venv", "--without-pip", str(folder)], check=True)
    return str(folder / "bin" / "python3")


USER_PYTHON = user_python()
PYTHON = clean_python()
BARE = [PYTHON, "-c", "pass"]


def clean(argv: list[str]) -> list[str]:
    """`argv` (a step's command, as a step prints it, or one of ours) run by PYTHON."""
    return [PYTHON, *argv[1:]]


def site_packages() -> str:
    """This environment's libraries, for a command that needs one (psycopg): on PYTHONPATH, so
    that PYTHON finds them without the editable install's start-up hooks (.pth files)."""
    import sysconfig

    return sysconfig.get_path("purelib")


def workflows(only: Sequence[str] = ()) -> list[Workflow]:
    """This checkout's workflows (those named in `only`, when given); exits when one fails to
    load, since a benchmark of a broken skill measures nothing."""
    found = discover_workflows(ROOT / ".claude" / "skills")
    if found.errors or not found.workflows:
        sys.exit("cannot benchmark: " + "; ".join(e.message for e in found.errors))
    unknown = set(only) - {wf.name for wf in found.workflows}
    if unknown:
        sys.exit(f"no workflow named {', '.join(sorted(unknown))}")
    return [wf for wf in found.workflows if not only or wf.name in only]


def steady_state() -> str:
    """Compile the bytecode once, as any real install has it (with PYTHONDONTWRITEBYTECODE
    set, a changed module would be compiled on every run), and point SKILLRAIL_HOME at a
    scratch ledger; returns its folder."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / ".claude")], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    os.environ["SKILLRAIL_HOME"] = tempfile.mkdtemp(prefix="skillrail-bench-")
    return os.environ["SKILLRAIL_HOME"]


def repository() -> Path:
    """A scratch git repository with one commit: steps that show `git status` or `git log`
    run them as they would in a project."""
    repo = Path(tempfile.mkdtemp(prefix="skillrail-bench-repo-"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    for argv in (["git", "init", "-q"], ["git", "commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(argv, cwd=repo, env=env, check=True)
    return repo


def timed(argv: list[str], cwd: Path | None = None) -> float:
    """Seconds one command takes; it must succeed."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - start


def captured(argv: list[str], cwd: Path | None = None) -> tuple[float, str]:
    """(seconds, stdout) of one command; it must succeed."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def ratio(rows: Sequence[Sequence[float]], column: int) -> float:
    """The median over rounds of column / the bare interpreter (column 0) in the same round."""
    return statistics.median(row[column] / row[0] for row in rows)


def median_ms(rows: Sequence[Sequence[float]], column: int) -> float:
    return statistics.median(row[column] for row in rows) * 1000
