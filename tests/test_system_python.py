"""A teammate whose `python3` is the system's (issue 29): Debian's and Ubuntu's Python is marked
as managed by the system (PEP 668), so `pip install` into it is refused, and it has none of
skillrail's libraries. The steps that need no library run there; a step whose policy file
holds a typo names it without pydantic; where a library is needed, the fix given is one that
works there, and `skillrail doctor` gives the same. Run with the machine's own /usr/bin/python3,
as the teammate would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .harness import shell
from .repo_shapes import git, repository

SYSTEM = "/usr/bin/python3"


def why_not() -> str | None:
    if not os.path.exists(SYSTEM):
        return f"no {SYSTEM} on this machine"
    probe = ("import os, sys, sysconfig, importlib.util as u; print(sys.version_info >= (3, 11), "
             "os.path.isfile(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')), "
             "u.find_spec('pydantic') is None)")
    said = subprocess.run([SYSTEM, "-c", probe], capture_output=True, text=True, timeout=30)
    recent, managed, bare = (said.stdout.split() + ["False"] * 3)[:3]
    if recent != "True":
        return f"{SYSTEM} is older than 3.11 (tests/test_old_python.py covers that)"
    if managed != "True":
        return f"{SYSTEM} is not marked as managed by the system (no EXTERNALLY-MANAGED)"
    if bare != "True":
        return f"{SYSTEM} has pydantic (a system package): nothing is missing to test"
    return None


pytestmark = pytest.mark.skipif(why_not() is not None, reason=why_not() or "")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A clone set up with `skillrail init`, its policy file holding a typo."""
    root = repository(tmp_path / "app", "https://github.com/acme/app.git")
    done = shell(["skillrail", "init", "commit-message"], cwd=root)
    assert done.returncode == 0, done.stderr
    git(root, "add", "-A")
    git(root, "commit", "-qm", "app")
    return root


def system_env(home: Path) -> dict[str, str]:
    """The teammate's shell: the system's programs only, a HOME of their own."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
            "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]}


def test_a_typo_in_the_policy_is_named_without_pydantic(project: Path, tmp_path: Path) -> None:
    policy = project / ".claude" / "skillrail.yaml"
    policy.write_text(policy.read_text() + "progams: {}\n")
    script = project / ".claude" / "skills" / "commit-message" / "scripts" / "commit-message.py"
    step = subprocess.run([SYSTEM, str(script), "--step", "1"], capture_output=True, text=True,
                          cwd=project, env=system_env(tmp_path / "home"), timeout=60)
    assert step.returncode == 0, step.stderr
    assert "has the key 'progams', which a policy does not have" in step.stdout
    assert "Did you mean 'programs'?" in step.stdout and "pydantic" not in step.stdout


@pytest.mark.slow  # pip downloads pydantic
def test_the_fix_doctor_gives_installs_on_the_system_python(project: Path,
                                                            tmp_path: Path) -> None:
    """doctor names what the teammate's python3 lacks and a command that installs it there
    (for the user, under a HOME of the test's own); run as given, it works."""
    home = tmp_path / "home"
    env = {**os.environ, "PATH": "/usr/bin:/bin",  # python3: the system's
           "HOME": str(home)}
    env.pop("PYTHONPATH", None)
    doctor = shell(["skillrail", "doctor"], cwd=project, env=env)
    line = next(line for line in doctor.stdout.splitlines()
                if line.startswith("      fix: ") and f"{SYSTEM} is the system's Python" in line)
    command = line.split("Install for your user: ", 1)[1].split(";", 1)[0]
    assert command.startswith(f"{SYSTEM} -m pip install --user --break-system-packages ")
    installed = subprocess.run([*command.split(), "-q"], capture_output=True, text=True,
                               env=system_env(home), timeout=600)
    assert installed.returncode == 0, installed.stderr
    after = shell(["skillrail", "doctor"], cwd=project, env=env)
    system = next(line for line in after.stdout.splitlines() if f"({SYSTEM})" in line)
    assert system.startswith("ok    python 3.11"), after.stdout
