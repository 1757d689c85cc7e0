"""`skillrail install --target claude|agents`: the skills placed where an agent reads them, linked
or copied, and working there with no hooks at all (unenforced): the invocation line of the
installed SKILL.md runs as written, and the printed commands lead on."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.protocol.reading import asked

from .conftest import SKILLS_ROOT
from .harness import cmd_text, offered, run_of, shell
from .hooks_support import SKILLRAIL, env

SKILL = "codebase-analysis"


def install(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SKILLRAIL, "install", *args], capture_output=True, text=True,
                          env=env(session=None), cwd=cwd, timeout=60)


def invocation(skill_md: Path) -> list[str]:
    """The entry command SKILL.md tells the agent to run, with this interpreter for python3."""
    line = next(t for t in skill_md.read_text().splitlines() if "--step 1" in t)
    argv = shlex.split(line.strip())
    return [sys.executable, *argv[1:]]


def run_step(argv: list[str], cwd: Path, *python_flags: str) -> ET.Element:
    """One step as an agent without hooks runs it: no session, nothing but the ledger."""
    no_path = {k: v for k, v in env(session=None).items() if k != "PYTHONPATH"}
    proc = subprocess.run([argv[0], *python_flags, *argv[1:]], capture_output=True, text=True,
                          cwd=cwd, env=no_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return ET.fromstring(proc.stdout)


def walk_two_steps(argv: list[str], cwd: Path, *python_flags: str) -> None:
    first = run_step(argv, cwd, *python_flags)
    invoke = (offered(first) or [None])[0]
    assert invoke is not None
    nxt = shlex.split(cmd_text(invoke))
    for arg in asked(invoke):
        nxt += ["--set", f"{arg.key}={(arg.choices or ('none',))[0]}"]
    second = run_step(nxt, cwd, *python_flags)
    assert run_of(second) == run_of(first) and second.get("id") != first.get("id")


def test_claude_target_links_each_skill(tmp_path: Path) -> None:
    proc = install("--target", "claude", SKILL, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    place = tmp_path / ".claude" / "skills" / SKILL
    assert place.is_symlink() and place.resolve() == (SKILLS_ROOT / SKILL).resolve()
    assert "${CLAUDE_SKILL_DIR}" in (place / "SKILL.md").read_text()  # Claude Code fills it in
    again = install("--target", "claude", SKILL, cwd=tmp_path)
    assert again.stdout.startswith("up to date")


def test_agents_target_names_the_folder_from_the_repository_root(tmp_path: Path) -> None:
    """Agents that do not substitute ${CLAUDE_SKILL_DIR} read the skill's folder from the
    repository root, where they run commands: the same file holds on every machine, and the
    skill works there unenforced: its first command runs and its printed command leads on."""
    assert install("--target", "agents", SKILL, cwd=tmp_path).returncode == 0
    place = tmp_path / ".agents" / "skills" / SKILL
    text = (place / "SKILL.md").read_text()
    assert "${CLAUDE_SKILL_DIR}" not in text and str(tmp_path) not in text
    assert f"python3 .agents/skills/{SKILL}/scripts/{SKILL}.py --step 1" in text
    assert f".agents/skills/{SKILL}/scripts/{SKILL}.py" in (place / "README.md").read_text()
    assert (place / "scripts").is_symlink()
    walk_two_steps(invocation(place / "SKILL.md"), tmp_path)


def test_agents_target_outside_a_project_writes_the_absolute_folder(tmp_path: Path) -> None:
    """Elsewhere (a user's ~/.agents/skills, say) no folder is the root: SKILL.md names the
    skill's own absolutely."""
    dest = tmp_path / "home" / "agent-skills"
    assert install("--target", "agents", "--dest", str(dest), SKILL,
                   cwd=tmp_path).returncode == 0
    text = (dest / SKILL / "SKILL.md").read_text()
    assert "${CLAUDE_SKILL_DIR}" not in text and f"{dest / SKILL}/scripts/{SKILL}.py" in text
    walk_two_steps(invocation(dest / SKILL / "SKILL.md"), tmp_path)


def test_a_copy_runs_on_its_own_copy_of_the_framework(tmp_path: Path) -> None:
    """Copied, the skill imports the framework copied beside it (-S: nothing from
    site-packages or an editable install helps)."""
    proc = install("--target", "agents", "--copy", SKILL, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    dest = tmp_path / ".agents" / "skills"
    assert not (dest / SKILL).is_symlink() and not (dest / SKILL / "scripts").is_symlink()
    assert not (dest / "lib").is_symlink() and (dest / "lib" / "workflow").is_dir()
    walk_two_steps(invocation(dest / SKILL / "SKILL.md"), tmp_path, "-S")
    again = install("--target", "agents", "--copy", SKILL, cwd=tmp_path)
    assert "replacing an earlier install" in again.stdout


def test_every_skill_is_installed_by_default(tmp_path: Path) -> None:
    dest = tmp_path / "elsewhere"
    assert install("--target", "claude", "--dest", str(dest), cwd=tmp_path).returncode == 0
    shipped = {p.name for p in SKILLS_ROOT.iterdir() if (p / "SKILL.md").is_file()}
    framework = {"__init__.py", "_bootstrap.py", "lib"}  # the skills import it from beside them
    assert {p.name for p in dest.iterdir()} == shipped | framework


@pytest.mark.parametrize("existing", ["folder", "link"])
def test_something_else_at_the_place_is_left_alone(tmp_path: Path, existing: str) -> None:
    place = tmp_path / ".agents" / "skills" / SKILL
    place.parent.mkdir(parents=True)
    if existing == "folder":
        place.mkdir()
        (place / "SKILL.md").write_text("mine")
    else:
        place.symlink_to(tmp_path)
    proc = install("--target", "agents", SKILL, cwd=tmp_path)
    assert proc.returncode == 1 and re.match(r"error: .*" + SKILL, proc.stderr)
    assert place.is_symlink() if existing == "link" else (place / "SKILL.md").read_text() == "mine"


def test_an_unknown_skill_is_a_usage_error(tmp_path: Path) -> None:
    proc = install("--target", "claude", "codebase-analysys", cwd=tmp_path)
    assert proc.returncode == 2 and "Did you mean 'codebase-analysis'?" in proc.stderr
    assert not (tmp_path / ".claude").exists()


def skillrail_in(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return shell([*SKILLRAIL, *args], env=env(session=None), cwd=cwd)


class TestAPackageThatWentAway:
    """Skills linked from an installed package that was then removed (a venv rebuilt): the
    links lead nowhere. install replaces them, --update too, uninstall removes them, and the
    user's own skill beside them is never touched."""

    @pytest.fixture
    def project(self, tmp_path: Path) -> Path:
        import shutil

        package = tmp_path / "old-venv" / "skills"
        shutil.copytree(SKILLS_ROOT, package, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
        project = tmp_path / "project"
        (project / ".claude" / "skills" / "mine").mkdir(parents=True)
        (project / ".claude" / "skills" / "mine" / "SKILL.md").write_text("my own")
        done = install("--from", str(package), SKILL, "problem-analysis", cwd=project)
        assert done.returncode == 0, done.stderr
        shutil.rmtree(tmp_path / "old-venv")
        assert not (project / ".claude" / "skills" / SKILL).exists()  # dangling
        return project

    def test_doctor_names_the_dangling_links_with_the_fix(self, project: Path) -> None:
        doctor = skillrail_in(project, "doctor")
        assert doctor.returncode == 1
        assert f"links that lead nowhere: {SKILL}, problem-analysis" in doctor.stdout
        assert "skillrail install --force" in doctor.stdout

    @pytest.mark.parametrize("how", [[SKILL, "problem-analysis"], ["--update"],
                                     ["--force", SKILL, "problem-analysis"]])
    def test_install_replaces_them(self, project: Path, how: list[str]) -> None:
        done = install(*how, cwd=project)
        assert done.returncode == 0, done.stderr
        assert "replacing a link that led nowhere" in done.stdout
        for name in (SKILL, "problem-analysis"):
            assert (project / ".claude" / "skills" / name).exists(), name
        assert (project / ".claude" / "skills" / "mine" / "SKILL.md").read_text() == "my own"
        listed = skillrail_in(project, "list")
        assert listed.returncode == 0 and "problem-analysis" in listed.stdout

    def test_uninstall_removes_them_and_refuses_the_users_own(self, project: Path) -> None:
        refused = skillrail_in(project, "uninstall", SKILL, "mine")
        assert refused.returncode == 1 and "mine was not installed by skillrail" in \
            refused.stderr
        assert (project / ".claude" / "skills" / SKILL).is_symlink()  # nothing was removed
        done = skillrail_in(project, "uninstall", SKILL, "problem-analysis")
        assert done.returncode == 0, done.stderr
        assert "(a link that led nowhere)" in done.stdout
        assert not (project / ".claude" / "skills" / SKILL).is_symlink()
        assert (project / ".claude" / "skills" / "mine" / "SKILL.md").read_text() == "my own"


class TestRefusedBeforeAnythingIsPlaced:
    """install checks every place it would fill (the framework's `lib` too) by the rules it
    places by (placement.refusal), so what it refuses it refuses before anything is placed."""

    @pytest.fixture
    def project(self, tmp_path: Path) -> Path:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        done = skillrail_in(tmp_path, "init", "planner")
        assert done.returncode == 0, done.stderr
        return tmp_path

    def test_a_link_to_the_skill_itself_is_replaced(self, project: Path) -> None:
        """It leads to what is being installed: replacing it loses nothing (the copy project
        gets a copy, as init made)."""
        import shutil

        place = project / ".claude" / "skills" / "planner"
        shutil.rmtree(place)
        place.symlink_to(SKILLS_ROOT / "planner")
        done = install("planner", cwd=project)
        assert done.returncode == 0, done.stderr
        assert "replacing a link" in done.stdout
        assert not place.is_symlink() and (place / "SKILL.md").is_file()

    def test_a_lib_of_the_users_own_refuses_before_anything_is_placed(self,
                                                                      project: Path) -> None:
        import shutil

        skills = project / ".claude" / "skills"
        shutil.rmtree(skills / "lib")
        (skills / "lib").mkdir()
        (skills / "lib" / "mine.py").write_text("# my own\n")
        (skills / "__init__.py").unlink()
        shutil.rmtree(skills / "planner")
        refused = install("planner", cwd=project)
        assert refused.returncode == 1 and f"{skills / 'lib'} " in refused.stderr
        assert sorted(p.name for p in skills.iterdir()) == [".gitignore", "_bootstrap.py", "lib"]
        assert [p.name for p in (skills / "lib").iterdir()] == ["mine.py"]
