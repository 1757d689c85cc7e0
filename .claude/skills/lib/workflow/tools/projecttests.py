"""How a project runs its own tests: found from its files, written by `skillrail init` into
the policy's `tests:` (the command a check names `${PROJECT_TESTS}`), and checked by `doctor`.

The command is what the project's own environment runs, as the gateway will run it: word for
word, no shell, an empty HOME, no network, in the sandbox. So a Python project's tests run with
the interpreter of its environment (`.venv/bin/python -m pytest`), not through a manager that
would want its caches or the network (`uv run`, `poetry run`); a toolchain that keeps its
installation under the user's home (cargo, go) gets those folders back as `~/...` variables,
which hold on every teammate's machine.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import NamedTuple

from ..authoring.commandtext import words
from ..guard.gatepolicy import TESTS_TIMEOUT

#: The project environments looked for, in order: uv and an in-project poetry (`virtualenvs.
#: in-project`) make `.venv`; `venv` and `env` are what `python3 -m venv` is most often given.
ENVIRONMENTS = (".venv", "venv", "env")
#: Why there is no command when the project has no test setup of a known kind at all.
NOTHING = "no test setup found"
#: npm's own placeholder for a package with no tests.
_NO_NPM_TESTS = "no test specified"


class Found(NamedTuple):
    """The project's test command, and what it needs to run."""

    command: str  # as the policy writes it
    why: str  # how it was found, for people
    env: tuple[tuple[str, str], ...] = ()
    timeout: float = TESTS_TIMEOUT


class NotFound(NamedTuple):
    """No test command could be set up, and what to do about it."""

    why: str
    fix: str


def detect(root: Path) -> Found | NotFound:
    """The test command of the project at `root` (the first kind that applies: Python, then
    Node, Rust and Go), or why there is none."""
    missing: NotFound | None = None
    for finder in (_python, _node, _cargo, _go):
        found = finder(root)
        if isinstance(found, Found):
            return found
        missing = missing or found
    return missing or NotFound(NOTHING + " (no pyproject.toml, setup.py, tests/, "
                               "package.json, Cargo.toml or go.mod)",
                               "Add `tests: {command: ...}` to .claude/skillrail.yaml by hand "
                               "(the file shows an example; `skillrail doctor` then checks that "
                               "the command starts)")


def _python(root: Path) -> Found | NotFound | None:
    manifests = [n for n in ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "noxfile.py",
                             "pytest.ini", "requirements.txt") if (root / n).is_file()]
    if not manifests and not (root / "tests").is_dir():
        return None
    pyproject = _toml(root / "pyproject.toml")
    given = pyproject.get("tool")
    tool: dict[str, object] = given if isinstance(given, dict) else {}
    manager = ("uv" if (root / "uv.lock").is_file() or "uv" in tool else
               "poetry" if (root / "poetry.lock").is_file() or "poetry" in tool else
               "hatch" if "hatch" in tool else "pdm" if (root / "pdm.lock").is_file() else "")
    for name in ENVIRONMENTS:
        python = root / name / "bin" / "python"
        if python.is_file() and (root / name / "pyvenv.cfg").is_file():
            runner = "pytest" if _imports(str(python), "pytest") or _uses_pytest(
                root, pyproject) else "unittest"
            managed = f"{manager} project, " if manager else ""
            return Found(f"{name}/bin/python -m {runner} -q",
                         f"{managed}{runner} in its environment {name}/")
    if manager == "poetry":
        found = _poetry_env(root)
        if found is not None:
            return found
    if (root / "tox.ini").is_file() or "tox" in tool:
        return Found("tox", "tox (it builds its own environments: the first run needs the "
                     "network, which the sandbox does not give; run `tox` once yourself)",
                     timeout=1800.0)
    if (root / "noxfile.py").is_file():
        return Found("nox --reuse-existing-virtualenvs", "nox, reusing the environments it "
                     "made (run `nox` once yourself first)", timeout=1800.0)
    create = {"uv": "uv sync", "poetry": "poetry config virtualenvs.in-project true && "
              "poetry install", "hatch": "python3 -m venv .venv && .venv/bin/pip install -e .",
              "pdm": "pdm install"}.get(manager, "python3 -m venv .venv && .venv/bin/pip "
                                                 "install -e . pytest")
    return NotFound(f"a Python project ({', '.join(manifests) or 'tests/'}) with no environment "
                    f"in the project ({', '.join(n + '/' for n in ENVIRONMENTS)})",
                    f"Create one (`{create}`), then run `skillrail doctor` again")


def _poetry_env(root: Path) -> Found | None:
    """poetry's environment for this project when it keeps it outside (its cache): run
    through `poetry run`, told where its environments are, as a path under `~`."""
    poetry = shutil.which("poetry")
    if poetry is None:
        return None
    done = _output([poetry, "config", "virtualenvs.path"], root)
    home = os.path.expanduser("~")
    if not done or not done.startswith(home + os.sep):
        return None
    where = "~" + done[len(home):]
    return Found("poetry run python -m pytest -q", "poetry project, pytest in poetry's "
                 "environment (outside the project)", (("POETRY_VIRTUALENVS_PATH", where),))


def _uses_pytest(root: Path, pyproject: dict[str, object]) -> bool:
    tool = pyproject.get("tool")
    if isinstance(tool, dict) and "pytest" in tool:
        return True
    if (root / "pytest.ini").is_file() or (root / "conftest.py").is_file() \
            or (root / "tests" / "conftest.py").is_file():
        return True
    for name, section in (("setup.cfg", "tool:pytest"), ("tox.ini", "pytest")):
        parser = configparser.ConfigParser()
        try:
            parser.read(root / name, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue
        if parser.has_section(section):
            return True
    return False


def _node(root: Path) -> Found | NotFound | None:
    manifest = root / "package.json"
    if not manifest.is_file():
        return None
    try:
        scripts = json.loads(manifest.read_text(encoding="utf-8")).get("scripts") or {}
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return NotFound("package.json cannot be read as JSON", "Fix package.json")
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or _NO_NPM_TESTS in test:
        return NotFound("package.json has no `test` script", "Add one (\"scripts\": {\"test\": "
                        "...}), then run `skillrail doctor` again")
    tool = ("pnpm" if (root / "pnpm-lock.yaml").is_file() else
            "yarn" if (root / "yarn.lock").is_file() else "npm")
    return Found(f"{tool} test", f"the `test` script of package.json, run by {tool}")


def _cargo(root: Path) -> Found | None:
    if not (root / "Cargo.toml").is_file():
        return None
    return Found("cargo test --offline", "Cargo.toml, run offline from the crates cargo has "
                 "already fetched", _homes({"CARGO_HOME": "~/.cargo", "RUSTUP_HOME": "~/.rustup"}),
                 timeout=1800.0)


def _go(root: Path) -> Found | None:
    if not (root / "go.mod").is_file():
        return None
    return Found("go test ./...", "go.mod, from the modules go has already fetched",
                 _homes({"GOPATH": "~/go", "GOTOOLCHAIN": "local", "GOPROXY": "off"}),
                 timeout=1800.0)


def _homes(defaults: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """A toolchain's variables: the user's own value when it lies under their home (written
    with `~`, so it holds on a teammate's machine), else the toolchain's default."""
    home = os.path.expanduser("~")
    out = {}
    for name, default in defaults.items():
        mine = os.environ.get(name, "")
        out[name] = ("~" + mine[len(home):] if mine.startswith(home + os.sep) else default)
    return tuple(out.items())


def _imports(python: str | list[str], module: str, cwd: Path | None = None) -> bool:
    """Whether `python` (a program, or the words that start one: `poetry run python`) can
    import `module` (found, not run)."""
    start = [python] if isinstance(python, str) else python
    return _output([*start, "-c", f"import importlib.util as u; print(u.find_spec('{module}') "
                    "is not None)"], cwd) == "True"


def _output(argv: list[str], cwd: Path | None) -> str:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60,
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def problem(command: str, root: Path) -> NotFound | None:
    """What keeps the test command from starting here, with the fix; None when it starts: its
    program exists, and a Python module it runs imports."""
    argv = words(command)
    name = argv[0]
    if "/" in name or name.startswith("~"):
        program = os.path.join(root, os.path.expanduser(name))
        if not os.access(program, os.X_OK):
            return NotFound(f"{name} does not exist", "Create the project's environment "
                            "(e.g. `uv sync`, or `python3 -m venv .venv` and install the "
                            "project into it)")
    elif shutil.which(name) is None:
        return NotFound(f"'{name}' is not installed (not on PATH)", f"Install {name}")
    else:
        program = name
    if "-m" in argv[1:-1]:  # `X -m MODULE`, `poetry run python -m MODULE`: it must import
        at = argv.index("-m")
        python, module = [program, *argv[1:at]], argv[at + 1]
        if not _imports(python, module, root):
            shown = " ".join([name, *argv[1:at]])
            return NotFound(f"{module} is not installed for `{shown}`",
                            f"Install it there (`{shown} -m pip install {module}`, or add it "
                            "to the project's development dependencies and install them)")
    return None


def policy_lines(found: Found) -> str:
    """The `tests:` block for .claude/skillrail.yaml."""
    lines = ["tests:", f"  command: {json.dumps(found.command)}"]
    if found.timeout != TESTS_TIMEOUT:
        lines.append(f"  timeout: {found.timeout:g}")
    if found.env:
        lines.append("  env: {" + ", ".join(f"{k}: {json.dumps(v)}"
                                           for k, v in found.env) + "}")
    return "\n".join(lines) + "\n"
