"""A new user adopts skillrail in a project of their own (issue 21), exactly as the README says:
from a fresh virtual environment and a scratch git project outside this repository,
`pip install` of the checkout (not editable), `skillrail init`, a clean `skillrail doctor`, a
skill run to `<complete>` by a plain `python3` with no virtual environment, `skillrail new` with
`validate` and the generated test, and `skillrail hooks install` writing a settings.json that
names no path of this machine. Nothing here imports from the checkout: every command runs from
the installed package or the project's copies."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.protocol.reading import asked

from .conftest import REPO

#: A python3 with no virtual environment and none of the framework's libraries on its path.
from .harness import cmd_text, offered

PLAIN = shutil.which("python3", path="/usr/bin:/bin")


class User:
    """A shell in `project` with the fresh venv's bin first on PATH."""

    def __init__(self, venv: Path, project: Path, home: Path) -> None:
        self.venv, self.project = venv, project
        self.env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home),
                    "SKILLRAIL_HOME": str(home / "state"), "LANG": "C.UTF-8"}

    def sh(self, *argv: str | Path, cwd: Path | None = None,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                              cwd=cwd or self.project, env=env or self.env, timeout=600)
        assert proc.returncode == 0, f"{shlex.join(map(str, argv))}:\n{proc.stdout}{proc.stderr}"
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc


@pytest.fixture(scope="module")
def user(tmp_path_factory: pytest.TempPathFactory) -> User:
    """The fresh venv with skillrail installed from this checkout, and an empty git project."""
    root = tmp_path_factory.mktemp("adopter")
    venv, project = root / "venv", root / "project"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    project.mkdir()
    who = User(venv, project, root)
    who.sh(venv / "bin" / "pip", "install", "-q", str(REPO), "pytest", cwd=root)
    who.sh("git", "init", "-q")
    (project / "README.md").write_text("# a project\n")
    return who


@pytest.mark.slow  # a new venv and a pip install
@pytest.mark.skipif(PLAIN is None, reason="no python3 in /usr/bin or /bin")
def test_a_new_user_adopts_skillrail_in_a_project_of_their_own(user: User) -> None:
    installed = user.sh("python", "-c", "import skills, sys; print(skills.__file__)").stdout
    assert str(user.venv) in installed and str(REPO) not in installed  # not editable
    user.sh("skillrail", "validate", cwd=user.venv)  # the package's own skills, conventions too
    done = user.sh("skillrail", "init").stdout
    assert "Commit it: git add .claude/skills .claude/skillrail.yaml" in done
    doctor = user.sh("skillrail", "doctor").stdout
    assert doctor.rstrip().endswith("no problem"), doctor
    assert run_to_complete(user, ".claude/skills/problem-analysis/scripts/problem-analysis.py")
    assert shipped_skills_run_their_commands(user)
    user.sh("skillrail", "new", "triage-bugs", "--description",
            "Triages a bug report into a severity and an owner. Use for new bug reports.")
    user.sh("skillrail", "validate")
    user.sh("python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
            ".claude/skills/triage-bugs/tests/test_triage_bugs.py")
    user.sh("skillrail", "hooks", "install")
    text = (user.project / ".claude" / "settings.json").read_text()
    assert '"command": "skillrail-hook PreToolUse"' in text  # the user's own installation
    for machine_path in (str(user.venv), str(REPO), str(user.project), sys.executable):
        assert machine_path not in text, machine_path


def shipped_skills_run_their_commands(user: User) -> bool:
    """skillrail's own skills need no `skillrail trust`: the installed package's are trusted by
    the digests shipped with it, and so are the project's untouched copies, on a machine that
    never recorded them too (a clone of the project)."""
    blocked = user.sh("python", "-c", "import os, skills; from skills.lib.workflow.guard.trust "
                      "import SHIPPED, untrusted; here = os.path.dirname(skills.__file__); "
                      "print([n for n in SHIPPED if untrusted(os.path.join(here, n))])")
    clone = {**user.env, "PATH": "/usr/bin:/bin",
             "SKILLRAIL_HOME": str(user.project.parent / "clone-state")}
    step = ET.fromstring(user.sh(str(PLAIN), ".claude/skills/commit-message/scripts/"
                                 "commit-message.py", "--step", "1", "--stateless",
                                 env=clone).stdout)
    found = step.find("DO/context[@name='git-diff']")
    return blocked.stdout == "[]\n" and found is not None and found.get("status", "ok") == "ok"


def run_to_complete(user: User, script: str) -> bool:
    """Follow a skill from its first step with the plain python3, taking the first command each
    step offers and giving each value it asks for, until a step holds <complete>."""
    plain = {**user.env, "PATH": "/usr/bin:/bin"}
    argv = [str(PLAIN), script, "--step", "1"]
    for _ in range(40):
        doc = ET.fromstring(user.sh(*argv, env=plain).stdout)
        if doc.find("NEXT/complete") is not None:
            return True
        invoke = offered(doc)[0]
        argv = shlex.split(cmd_text(invoke))
        assert argv[0] == PLAIN or os.path.realpath(argv[0]) == os.path.realpath(str(PLAIN))
        for arg in asked(invoke):
            argv += ["--set", f"{arg.key}={arg.choices[0] if arg.choices else 'a short answer'}"]
    return False
