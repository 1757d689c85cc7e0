"""`skillrail init --agents`: the skills and the framework committed in `.agents/skills`, for
Codex, Gemini CLI and the other Agent Skills clients, which substitute nothing in SKILL.md
(issue 29). The copies name their scripts from the repository root, so the committed files work
in a teammate's clone with another HOME, where nothing was recorded: the steps run, the shipped
skills are trusted by their digest, and doctor, lint and docs see nothing wrong. One project
may serve Claude Code and Codex at once."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .harness import cmd_text, offered, shell
from .repo_shapes import git

SKILL = "problem-analysis"


def skillrail(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = shell(["skillrail", *args], cwd=cwd, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A project set up with `init --agents` and committed, cloned into a second folder, with
    another HOME and state folder: a teammate's machine."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    first = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(origin), str(first))
    (first / "README.md").write_text("# app\n")
    mine = {**os.environ, "HOME": str(tmp_path / "home-1"),
            "SKILLRAIL_HOME": str(tmp_path / "home-1" / "state")}
    done = skillrail(first, mine, "init", "--agents")
    assert done.returncode == 0, done.stderr
    assert "git add .agents/skills .claude/skillrail.yaml" in done.stdout
    git(first, "add", "-A")
    git(first, "commit", "-qm", "Add skillrail skills")
    git(first, "push", "-q", "origin", "HEAD:main")
    second = tmp_path / "theirs"
    git(tmp_path, "clone", "-q", str(origin), str(second))
    theirs = {**os.environ, "HOME": str(tmp_path / "home-2"),
              "SKILLRAIL_HOME": str(tmp_path / "home-2" / "state")}
    return second, theirs


def test_the_committed_skill_md_names_no_path_of_this_machine(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    done = skillrail(tmp_path, dict(os.environ), "init", "--agents", SKILL)
    assert done.returncode == 0, done.stderr
    place = tmp_path / ".agents" / "skills" / SKILL
    text = (place / "SKILL.md").read_text()
    assert "${CLAUDE_SKILL_DIR}" not in text and str(tmp_path) not in text
    assert f"    python3 .agents/skills/{SKILL}/scripts/{SKILL}.py --step 1\n" in text
    assert not any(p.is_symlink() for p in place.rglob("*"))
    assert (tmp_path / ".agents" / "skills" / ".gitignore").read_text().count("__pycache__")
    assert "hooks install --client codex" in done.stdout


def test_a_teammate_s_clone_runs_a_skill_with_nothing_recorded(
        clone: tuple[Path, dict[str, str]]) -> None:
    """In the clone: doctor finds no problem (the shipped skills trusted by their digest, not
    by a record of this machine's), and the command SKILL.md gives runs from the repository
    root with a plain python3, its printed command leading on."""
    root, env = clone
    doctor = skillrail(root, env, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    assert "skills whose commands may run here: all" in doctor.stdout
    assert f"framework {root / '.agents' / 'skills' / 'lib'}: copied" in doctor.stdout
    skill_md = (root / ".agents" / "skills" / SKILL / "SKILL.md").read_text()
    first = next(line for line in skill_md.splitlines() if "--step 1" in line)
    argv = shlex.split(first.strip())
    step = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True,
                          cwd=root, env={k: v for k, v in env.items() if k != "PYTHONPATH"},
                          timeout=60)
    assert step.returncode == 0, step.stderr
    cmd = cmd_text(offered(ET.fromstring(step.stdout))[0])
    assert f"{root}/.agents/skills/{SKILL}/scripts/{SKILL}.py --step investigate" in cmd
    assert git(root, "status", "--short") == ""  # nothing left behind to commit


def test_lint_and_docs_check_the_clone_s_copies(clone: tuple[Path, dict[str, str]]) -> None:
    root, env = clone
    lint = skillrail(root, env, "lint")
    assert lint.returncode == 0 and "13 SKILL.md files: 0 errors, 0 warnings" in lint.stdout
    docs = skillrail(root, env, "docs", "--check")
    assert docs.returncode == 0, docs.stderr
    assert "of 13 skill(s)" in docs.stdout


def test_one_project_serves_claude_code_and_codex(tmp_path: Path) -> None:
    """Both folders set up: each copy of a workflow loads beside the other (no duplicate-name
    refusal), lint and docs check both, and `init --update` renews both."""
    (tmp_path / ".git").mkdir()
    env = dict(os.environ)
    assert skillrail(tmp_path, env, "init", SKILL).returncode == 0
    assert skillrail(tmp_path, env, "init", "--agents", SKILL).returncode == 0
    lint = skillrail(tmp_path, env, "lint")
    assert "2 SKILL.md files: 0 errors, 0 warnings" in lint.stdout, lint.stdout
    docs = skillrail(tmp_path, env, "docs", "--check")
    assert docs.returncode == 0 and "checked 4 file(s) of 2 skill(s)" in docs.stdout, docs
    validate = skillrail(tmp_path, env, "validate")
    assert validate.returncode == 0, validate.stdout + validate.stderr
    again = skillrail(tmp_path, env, "init", "--agents")
    assert again.returncode != 0 and "init --agents --update" in again.stderr
    update = skillrail(tmp_path, env, "init", "--update")
    assert update.returncode == 0, update.stderr
    for place in (".claude", ".agents"):
        assert f"to {tmp_path / place / 'skills' / SKILL} (replacing" in update.stdout
