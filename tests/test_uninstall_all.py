"""`skillrail uninstall --all` (issue 29): a project set up with `init` and `hooks install`, its
skills run, is left as `git status` showed it before `init`, in a clone with an origin remote;
a project with skills of its own keeps the framework they import, and is told so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .harness import shell
from .repo_shapes import git, repository

#: This virtual environment's programs first (`skillrail-hook` among them), so the hooks go to
#: the shared .claude/settings.json, as for a user who installed skillrail.
VENV_PATH = f"{Path(sys.executable).parent}:/usr/bin:/bin"


def clone(tmp_path: Path) -> Path:
    root = repository(tmp_path / "app", "https://example.com/app.git")
    (root / ".claude").mkdir()
    (root / ".claude" / "CLAUDE.md").write_text("The project's own notes.\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "app")
    return root


def skillrail(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = shell(["skillrail", *args], cwd=root, env={**os.environ, "PATH": VENV_PATH})
    assert done.returncode == 0, done.stderr
    return done


def status(root: Path) -> str:
    return git(root, "-c", "core.excludesFile=/dev/null", "status", "--porcelain",
               "--untracked-files=all")


def test_uninstall_all_leaves_git_status_as_it_was_before_init(tmp_path: Path) -> None:
    root = clone(tmp_path)
    before = status(root)
    skillrail(root, "init")
    skillrail(root, "init", "--agents")  # the same project serves Codex too
    assert "settings.json" in skillrail(root, "hooks", "install").stdout
    assert "hooks.json" in skillrail(root, "hooks", "install", "--client", "codex").stdout
    assert "settings.json" in skillrail(root, "hooks", "install", "--client", "gemini").stdout
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for place in (".claude", ".agents"):
        script = root / place / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"
        ran = subprocess.run([sys.executable, str(script), "--step", "1"], cwd=root, env=env,
                             capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0, ran.stderr
    assert status(root) != before
    said = skillrail(root, "uninstall", "--all").stdout
    assert "removed" in said and "the run ledger stays in" in said
    assert status(root) == before
    trust = (Path(os.environ["CODEX_HOME"]) / "config.toml").read_text()
    assert "hooks.state" not in trust  # the user's trust of the hooks went with them
    assert (root / ".claude" / "CLAUDE.md").is_file()  # the project's own file stays


def test_the_framework_stays_for_the_projects_own_skills_and_it_says_so(tmp_path: Path) -> None:
    root = clone(tmp_path)
    skillrail(root, "init", "problem-analysis")
    skillrail(root, "new", "triage-bugs")
    said = skillrail(root, "uninstall", "--all").stdout
    skills = root / ".claude" / "skills"
    assert f"kept {skills / 'lib'} and the files beside it: your own skills import it " \
           "(triage-bugs)" in said
    assert not (skills / "problem-analysis").exists() and (skills / "triage-bugs").is_dir()
    assert not (root / ".claude" / "skillrail.yaml").exists()
    own = skills / "triage-bugs" / "scripts" / "triage-bugs.py"
    ran = shell([sys.executable, str(own), "--step", "1"], cwd=root)
    assert ran.returncode == 0, ran.stderr  # its framework is still there


def test_naming_no_skill_and_no_all_is_one_clear_error(tmp_path: Path) -> None:
    done = shell(["skillrail", "uninstall"], cwd=clone(tmp_path))
    assert done.returncode == 2
    assert done.stderr == ("error: name the skills to remove, or give --all. `skillrail "
                           "uninstall SKILL...`, or `skillrail uninstall --all`\n")
