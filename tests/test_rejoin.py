"""`--resume` without a run id (issue 19): an agent left with only SKILL.md after a lost
context gets back into the run it had going in this folder; with several it is shown each
one's command, with none how to start. Run as subprocesses, the way the agent runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from .conftest import SKILLS_ROOT
from .repo_shapes import repository

SKILL_MD = SKILLS_ROOT / "problem-analysis" / "SKILL.md"


def documented(pattern: str) -> list[str]:
    """The command SKILL.md gives after `pattern` (in backticks or on an indented line), with
    the skill folder filled in and this interpreter for python3."""
    text = SKILL_MD.read_text(encoding="utf-8")
    found = re.search(pattern + r"[^`]*?(?:`|\n    )python3 ([^`\n]+)", text)
    assert found is not None, pattern
    line = found.group(1).replace("${CLAUDE_SKILL_DIR}", str(SKILL_MD.parent))
    return [sys.executable, *line.split()]


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def start(cwd: Path) -> str:
    """Start a problem-analysis run in `cwd` the way SKILL.md says; its run id."""
    proc = run(documented(r"Run this now:"), cwd)
    assert proc.returncode == 0, proc.stderr
    return ET.fromstring(proc.stdout).get("run") or ""


def test_skill_md_resume_line_reprints_the_run_of_this_folder(tmp_path: Path) -> None:
    run_id = start(tmp_path)
    back = run(documented(r"Lost your place"), tmp_path)
    assert back.returncode == 0, back.stderr
    doc = ET.fromstring(back.stdout)
    assert (doc.get("run"), doc.get("id")) == (run_id, "frame")


def test_from_a_folder_inside_the_project_it_finds_the_run(tmp_path: Path) -> None:
    run_id = start(tmp_path)
    inner = tmp_path / "src" / "pkg"
    inner.mkdir(parents=True)
    back = run(documented(r"Lost your place"), inner)
    assert back.returncode == 0 and ET.fromstring(back.stdout).get("run") == run_id


def test_several_runs_are_listed_with_the_command_that_reprints_each(tmp_path: Path) -> None:
    ids = [start(tmp_path), start(tmp_path)]
    back = run(documented(r"Lost your place"), tmp_path)
    assert (back.returncode, back.stdout) == (2, "") and back.stderr.count("\n") == 1
    assert back.stderr.startswith("error: 2 active runs of this workflow were started in")
    named = re.findall(r"`([^`]+ --run (\S+) --resume)` \(at 'frame'", back.stderr)
    assert [run_id for _, run_id in named] == list(reversed(ids))
    again = run(named[0][0].split(), tmp_path)
    assert again.returncode == 0 and ET.fromstring(again.stdout).get("run") == ids[1]


def test_with_no_run_here_it_says_how_to_start_one(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    start(other)
    here = tmp_path / "here"
    here.mkdir()
    back = run(documented(r"Lost your place"), here)
    assert (back.returncode, back.stdout) == (2, "")
    assert back.stderr.count("\n") == 1 and "no active run of this workflow" in back.stderr
    assert "--step frame" in back.stderr and "status` lists the active runs" in back.stderr


def test_in_a_clone_the_error_names_the_project_folder_not_its_origin(tmp_path: Path) -> None:
    """A clone's runs are keyed by its repository (its origin's URL), but the folder the
    error names is the one the agent is in: the origin's path is no folder of the user's."""
    project = repository(tmp_path / "app", str(tmp_path / "remote.git"))
    back = run(documented(r"Lost your place"), project)
    assert back.returncode == 2
    assert f"no active run of this workflow was started in {project} or" in back.stderr
    assert "remote" not in back.stderr


def test_with_no_run_here_a_required_param_is_named_not_left_out(tmp_path: Path) -> None:
    """A workflow whose first step needs a param the --resume did not give gets no command
    that would be refused (skill-runner needs --skill): the error names what it needs."""
    script = SKILLS_ROOT / "skill-runner" / "scripts" / "skill-runner.py"
    back = run([sys.executable, str(script), "--resume"], tmp_path)
    assert (back.returncode, back.stdout) == (2, "") and back.stderr.count("\n") == 1
    assert "Start one as the skill's SKILL.md says (its first step needs --skill)" in \
        back.stderr and "--step mode" not in back.stderr


def test_a_run_started_in_a_subfolder_belongs_to_the_project(tmp_path: Path) -> None:
    """The project root is found as git finds .git (issue 21): a run started in one subfolder
    of a git project is the project's run, so --resume from another subfolder and `skillrail
    status` from the project's top find it."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    run_id = start(tmp_path / "docs")
    back = run(documented(r"Lost your place"), tmp_path / "src" / "pkg")
    assert back.returncode == 0 and ET.fromstring(back.stdout).get("run") == run_id
    status = run([sys.executable, "-m", "skills.lib.workflow.commands", "status"], tmp_path)
    assert status.returncode == 0 and run_id in status.stdout, status.stdout + status.stderr
