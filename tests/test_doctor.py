"""`skillrail doctor` in a project `skillrail init` set up: clean as set up, and each thing a user
can break named with the fix that mends it (a cold read broke each of these and doctor said
"no problem"); the ways a broken setup still fails gently: a step script with its framework
gone says so in one line, a hook whose program is missing lets the action through, and an
update leaves a copy the user changed alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .test_commands import skillrail

#: PATH with this virtual environment's programs first (`skillrail-hook` among them), as for a
#: user who installed skillrail and activated it.
VENV_PATH = f"{Path(sys.executable).parent}:/usr/bin:/bin"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    done = skillrail("init", "problem-analysis", "commit-message", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


def doctor(project: Path) -> tuple[int, dict[str, str]]:
    """The exit status, and each failed check's text -> its fix, with this venv's bin first on
    PATH (its python3 has the libraries some steps load), as for a user who activated it."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
           "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"], "HOME": os.environ.get("HOME", "/")}
    proc = subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "doctor",
                           "--json"], capture_output=True, text=True, cwd=project, env=env,
                          timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    return proc.returncode, {c["what"]: c["fix"] for c in report["checks"] if not c["ok"]}


def test_a_project_as_init_left_it_is_clean(project: Path) -> None:
    assert doctor(project) == (0, {})


def test_running_a_step_leaves_no_untracked_cache(project: Path) -> None:
    """A step run by a Python that writes bytecode (as a user's does) leaves __pycache__
    beside the framework and the skill's script; init's .gitignore keeps them out of `git
    status`, and so out of every step that shows it to the agent."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", "-c",
                               "core.excludesFile=/dev/null", *args],  # no ignore of the machine's
                              cwd=project, capture_output=True, text=True, check=True).stdout

    git("add", "-A")
    git("commit", "-qm", "skillrail")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    script = project / ".claude" / "skills" / "problem-analysis" / "scripts" / "problem-analysis.py"
    done = subprocess.run([sys.executable, str(script), "--step", "1"],
                          cwd=project, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert list((project / ".claude" / "skills" / "lib").rglob("__pycache__"))
    assert git("status", "--porcelain", "--untracked-files=all") == ""


@pytest.mark.parametrize(("break_it", "said", "fix"), [
    (lambda p: (p / ".claude" / "skillrail.yaml").write_text("version: 2\nprograms: [\n"),
     "command policy", "Fix the file's YAML"),
    (lambda p: (p / ".claude" / "settings.json").write_text('{"hooks": '),
     "settings.json cannot be read", "Fix it by hand"),
    (lambda p: shutil.rmtree(p / ".claude" / "skills" / "problem-analysis" / "resources"),
     "these do not: problem-analysis", "skillrail install --force SKILL"),
    (lambda p: shutil.rmtree(p / ".claude" / "skills" / "lib"),
     "no framework at", "skillrail init --update"),
    (lambda p: (p / ".claude" / "skills" / "ghost").symlink_to(p / "nowhere"),
     "links that lead nowhere: ghost", "skillrail uninstall ghost"),
])
def test_each_breakage_is_named_with_its_fix(project: Path, break_it: object, said: str,
                                             fix: str) -> None:
    break_it(project)  # type: ignore[operator]
    code, failed = doctor(project)
    assert code == 1
    assert any(said in what and fix in how for what, how in failed.items()), failed


def test_hooks_in_both_settings_files_are_named(project: Path) -> None:
    for flags in ([], ["--local"]):
        assert skillrail("hooks", "install", *flags, cwd=project, path=VENV_PATH).returncode == 0
    code, failed = doctor(project)
    assert code == 1 and failed.get("hooks installed in both settings.json and "
                                    "settings.local.json: each runs twice") == \
        "skillrail hooks uninstall --local"


def test_a_hook_whose_program_is_missing_lets_the_action_through(project: Path) -> None:
    """Claude Code takes a hook's exit 2 for a refusal: `skillrail-hook` not found is exit 127,
    which refuses nothing, and doctor says the hooks do not run for this user."""
    assert skillrail("hooks", "install", cwd=project, path=VENV_PATH).returncode == 0
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    command = hooks["PreToolUse"][0]["hooks"][0]["command"]
    assert command == "skillrail-hook PreToolUse"
    proc = subprocess.run(["sh", "-c", command], capture_output=True, text=True, input="{}",
                          env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode == 127 and proc.stdout == ""
    bare = {"PATH": "/usr/bin:/bin", "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]}
    done = subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "doctor",
                           "--json"], capture_output=True, text=True, cwd=project, env=bare,
                          timeout=120)
    failed = {c["what"]: c["fix"] for c in json.loads(done.stdout)["checks"] if not c["ok"]}
    assert any("they run skillrail-hook, which is not on PATH here" in w
               and "pip install skillrail" in f for w, f in failed.items()), failed


def test_a_step_script_with_its_framework_gone_says_so_in_one_line(project: Path) -> None:
    shutil.rmtree(project / ".claude" / "skills" / "lib")
    (project / ".claude" / "skills" / "lib").symlink_to(project / "gone")
    script = project / ".claude" / "skills" / "problem-analysis" / "scripts" / \
        "problem-analysis.py"
    proc = subprocess.run([sys.executable, str(script), "--step", "1"], capture_output=True,
                          text=True, cwd=project, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr.count("\n")) == (1, "", 1)
    assert "skillrail's framework is missing" in proc.stderr and "init --update" in proc.stderr


def test_an_update_leaves_a_copy_the_user_changed_alone(project: Path) -> None:
    skill_md = project / ".claude" / "skills" / "problem-analysis" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nOur team's note.\n")
    update = skillrail("init", "--update", cwd=project)
    assert update.returncode == 0, update.stderr
    assert "left alone: " in update.stdout and "changed since skillrail installed it" in \
        update.stdout
    assert skill_md.read_text().endswith("Our team's note.\n")
    forced = skillrail("install", "--force", "problem-analysis", cwd=project)
    assert forced.returncode == 0, forced.stderr
    assert not skill_md.read_text().endswith("Our team's note.\n")


def test_a_python3_on_path_without_the_libraries_is_named(project: Path) -> None:
    """SKILL.md's commands and the hooks run the python3 on PATH: doctor checks that one too,
    and names what it lacks with the command that installs it."""
    plain = shutil.which("python3", path="/usr/bin:/bin")
    has = plain and subprocess.run([plain, "-c", "import pydantic"], capture_output=True,
                                   timeout=60).returncode == 0
    if plain is None or has:
        pytest.skip("no python3 in /usr/bin or /bin without pydantic here")
    proc = subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "doctor"],
                          capture_output=True, text=True, cwd=project, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "SKILLRAIL_HOME":
                               os.environ["SKILLRAIL_HOME"], "HOME": os.environ.get("HOME", "/")})
    assert proc.returncode == 1
    assert f"({plain}): lacks pydantic" in proc.stdout
    managed = subprocess.run([plain, "-c", "import os, sysconfig; print(os.path.isfile("
                              "os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))"],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    install = ("--user --break-system-packages " if managed == "True" else "") + "pydantic"
    assert f"{plain} -m pip install {install}" in proc.stdout  # a system Python refuses a plain one


def test_a_local_hook_whose_interpreter_is_gone_is_installed_again(project: Path) -> None:
    """A --local hook names this machine's interpreter: when that is gone (a venv rebuilt
    elsewhere) the framework is still there, and the fix is to install the hooks again."""
    assert skillrail("hooks", "install", "--local", cwd=project).returncode == 0
    path = project / ".claude" / "settings.local.json"
    gone = str(project / "old-venv" / "bin" / "python")
    path.write_text(path.read_text().replace(json.dumps(sys.executable)[1:-1], gone))
    assert gone in path.read_text()
    failed = doctor(project)[1]
    assert any(f"run a file that is gone: {gone}" in w and "skillrail hooks install --local" in f
               and "init --update" not in f for w, f in failed.items()), failed
