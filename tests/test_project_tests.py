"""The project's own tests (issue 28): `skillrail init` finds how a project runs its tests and
writes the command into the policy's `tests:`; `doctor` says whether it starts; a check names it
`${PROJECT_TESTS}` and it runs as the project runs it, in the sandbox, in a clone with an
`origin` remote; a refusal of `python -m pytest` says which key would allow it.

Each sample project is made as its kind makes it, as far as this machine can: a real virtual
environment (`venv`, with pytest reachable through a `.pth` file, as an installed package is),
a real uv project (`uv init`, `uv add --dev pytest`: uv fetches pytest from its index), a real
poetry project (its environment in poetry's cache, outside the project, as by default), a real
npm package whose tests node runs, a crate `cargo init` made. The runs go through the real gateway
and bubblewrap (the process boundary is the subject); finding and the policy's checks are
in-process."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import site
import subprocess
import sys
import venv
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skills.lib.workflow.base.errors import GatewayRefusal
from skills.lib.workflow.guard.approval import verdict
from skills.lib.workflow.guard.gatepolicy import Policy, load_policy
from skills.lib.workflow.guard.gateway import check
from skills.lib.workflow.protocol.reading import decided as read_decided
from skills.lib.workflow.tools.projecttests import Found, NotFound, detect
from skills.planner.planlib.checks import checks_to_approve

from .conftest import REPO
from .harness import decided, first_action, next_cmd_text, notes, shell
from .repo_shapes import git
from .test_approved_checks import approval_of, tdd_plan
from .test_planner import Agent

SKILL = str(REPO / ".claude" / "skills" / "problem-analysis")
PASSING = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


def python_env(root: Path, name: str = ".venv", pytest_in_it: bool = True) -> None:
    """A real virtual environment in the project; pytest reachable from it as an installed
    package is (a .pth file naming the site-packages that hold it)."""
    venv.create(root / name, with_pip=False, symlinks=True)
    if pytest_in_it:
        found = next(Path(p) for p in site.getsitepackages() if (Path(p) / "pytest").is_dir())
        packages = next((root / name / "lib").glob("python3*/site-packages"))
        (packages / "dev.pth").write_text(f"{found}\n")


def python_project(root: Path, manager: str = "") -> Path:
    """A small package with one test, laid out as `manager` (uv, poetry, or plain) lays it."""
    (root / "src" / "calc").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "calc" / "__init__.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests" / "test_calc.py").write_text(PASSING)
    tool = {"uv": "[tool.uv]\ndev-dependencies = [\"pytest\"]\n",
            "poetry": "[tool.poetry]\nname = \"calc\"\nversion = \"0.1.0\"\n"}.get(manager, "")
    (root / "pyproject.toml").write_text(
        "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n" + tool
        + "[tool.pytest.ini_options]\npythonpath = [\"src\"]\n")
    if manager:
        (root / {"uv": "uv.lock", "poetry": "poetry.lock"}[manager]).write_text("# lock\n")
    if manager == "poetry":
        (root / "poetry.toml").write_text("[virtualenvs]\nin-project = true\n")
    return root


def node_project(root: Path, lock: str = "") -> Path:
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "calc", "version": "1.0.0", "scripts": {"test": "node --test"}}))
    (root / "test" / "add.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "test('adds', () => assert.strictEqual(require('../add.js')(2, 2), 4));\n")
    (root / "add.js").write_text("module.exports = (a, b) => a + b;\n")
    if lock:
        (root / lock).write_text("")
    return root


@pytest.mark.parametrize(("make", "command"), [
    (lambda r: (python_project(r), python_env(r)), ".venv/bin/python -m pytest -q"),
    (lambda r: (python_project(r, "uv"), python_env(r)), ".venv/bin/python -m pytest -q"),
    (lambda r: (python_project(r, "poetry"), python_env(r)), ".venv/bin/python -m pytest -q"),
    (lambda r: ((r / "tests").mkdir(), (r / "setup.py").write_text(""),
                python_env(r, "venv", pytest_in_it=False)), "venv/bin/python -m unittest -q"),
    (node_project, "npm test"),
    (lambda r: node_project(r, "pnpm-lock.yaml"), "pnpm test"),
    (lambda r: node_project(r, "yarn.lock"), "yarn test"),
    (lambda r: (r / "Cargo.toml").write_text("[package]\nname = \"calc\"\n"),
     "cargo test --offline"),
    (lambda r: (r / "go.mod").write_text("module calc\n"), "go test ./..."),
], ids=[".venv", "uv", "poetry", "venv-unittest", "npm", "pnpm", "yarn", "cargo", "go"])
def test_each_kind_of_project_is_found_with_the_command_its_environment_runs(
        tmp_path: Path, make, command: str) -> None:
    make(tmp_path)
    found = detect(tmp_path)
    assert isinstance(found, Found) and found.command == command, found
    if command.startswith(("cargo", "go")):  # toolchains kept under the user's home
        assert found.env and all(v.startswith("~/") for k, v in found.env
                                 if k.endswith(("HOME", "PATH")))


@pytest.mark.parametrize(("make", "why", "fix"), [
    (lambda r: python_project(r, "uv"), "no environment in the project", "uv sync"),
    (lambda r: python_project(r), "no environment in the project", "python3 -m venv .venv"),
    (lambda r: (r / "package.json").write_text('{"scripts": {"test": "echo \\"Error: no test '
                                               'specified\\" && exit 1"}}'),
     "no `test` script", "Add one"),
    (lambda r: (r / "package.json").write_text("{oops"), "cannot be read", "Fix package.json"),
    (lambda r: None, "no test setup found", "by hand"),
], ids=["uv-without-.venv", "python-without-env", "npm-placeholder", "bad-json", "nothing"])
def test_a_project_without_a_runnable_command_gets_why_and_the_fix(
        tmp_path: Path, make, why: str, fix: str) -> None:
    make(tmp_path)
    found = detect(tmp_path)
    assert isinstance(found, NotFound) and why in found.why and fix in found.fix, found


def clone(path: Path) -> Path:
    """A project as most are: a clone, with an origin remote and a commit."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "remote", "add", "origin", "https://example.com/calc.git")
    return path


def commit(path: Path) -> None:
    git(path, "add", "-A")
    git(path, "commit", "-qm", "project")


def skillrail(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return shell(["skillrail", *args], cwd=root)


PY_BREAK = ("tests/test_calc.py", "== 4", "== 5")
#: kind: (how the project is made, a test broken (file, text, replacement), what the run
#: prints when it passes, and when it fails)
CASES = {
    ".venv": (lambda r: (python_project(r), python_env(r)), PY_BREAK, "1 passed", "1 failed"),
    "uv": (None, ("tests/test_calc.py", "== 4", "== 5"), "1 passed", "1 failed"),
    "poetry": (None, PY_BREAK, "1 passed", "1 failed"),
    "npm": (node_project, ("test/add.test.js", "2), 4)", "2), 5)"), "# pass 1", "# fail 1"),
    "cargo": (None, ("src/lib.rs", ", 4);", ", 5);"), "1 passed", "1 failed"),
}


def uv_project(root: Path) -> None:
    """A project as uv makes it: `uv init`, then pytest added as a development dependency
    (uv resolves it from its index and syncs the project's .venv)."""
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    for argv in ([uv, "init", "-q", "--lib", "--name", "calc", "--vcs", "none", "."],
                 [uv, "add", "-q", "--dev", "pytest"]):
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    (root / "tests").mkdir()
    (root / "src" / "calc" / "__init__.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests" / "test_calc.py").write_text(PASSING)


def poetry_project(root: Path) -> None:
    """A project as poetry makes it: `poetry init`, pytest added as a development dependency,
    `poetry install`; its environment in poetry's cache, outside the project (the default)."""
    poetry = shutil.which("poetry")
    assert poetry is not None
    (root / "src" / "calc").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "calc" / "__init__.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests" / "test_calc.py").write_text(PASSING)
    (root / "README.md").write_text("# calc\n")
    # Outside any activated virtual environment (this suite's own, in CI), which poetry would
    # take for the project's instead of making its own.
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    for argv in ([poetry, "init", "-n", "-q", "--name", "calc"],
                 [poetry, "add", "-q", "--group", "dev", "pytest"], [poetry, "install", "-q"]):
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300,
                              env=env)
        assert done.returncode == 0, f"{argv[1]}: {done.stdout}{done.stderr}"


def cargo_project(root: Path) -> None:
    done = shell(["cargo", "init", "-q", "--lib", "--name", "calc", "--vcs", "none"], cwd=root)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("kind", list(CASES))
def test_init_writes_the_tests_doctor_sees_them_start_and_a_check_runs_them_sandboxed(
        tmp_path: Path, kind: str) -> None:
    make, broken, passed, failed = CASES[kind]
    tool = {"npm": "npm", "cargo": "cargo", "uv": "uv", "poetry": "poetry"}.get(kind)
    if tool and shutil.which(tool) is None and not (Path(sys.executable).parent / tool).exists():
        pytest.skip(f"{tool} is not installed on this machine")
    root = clone(tmp_path / "calc")
    (make or {"uv": uv_project, "poetry": poetry_project, "cargo": cargo_project}[kind])(root)
    commit(root)
    done = skillrail(root, "init")
    assert done.returncode == 0, done.stderr
    found = detect(root)
    assert isinstance(found, Found)
    assert f"the project's tests: `{found.command}`" in done.stdout
    policy = (root / ".claude" / "skillrail.yaml").read_text()
    assert f"command: {json.dumps(found.command)}" in policy
    doctor = skillrail(root, "doctor")
    assert f"ok    the project's tests (${{PROJECT_TESTS}}): `{found.command}`" in doctor.stdout
    ran = skillrail(root, "gateway", "check", "problem-analysis", "${PROJECT_TESTS}", "--run")
    assert ran.returncode == 0 and passed in ran.stdout, ran.stdout + ran.stderr
    assert "the workspace writable" in ran.stdout and "bubblewrap" in ran.stdout
    # Through a skill's own check: release-check's `tests` step, verify="${PROJECT_TESTS}".
    skill = root / ".claude" / "skills" / "release-check"
    shutil.copytree(REPO / "tests" / "fixtures" / "release-check", skill)
    assert skillrail(root, "trust", str(skill)).returncode == 0
    assert check_step(root, skill) == ("ok", "The project's tests ran; their exit status "
                                             "decided this step. [exit 0]")
    name, text, replacement = broken
    source = (root / name).read_text()
    assert text in source
    (root / name).write_text(source.replace(text, replacement))
    ran = skillrail(root, "gateway", "check", "problem-analysis", "${PROJECT_TESTS}", "--run")
    assert ran.returncode == 1 and failed in ran.stdout, ran.stdout
    outcome, note = check_step(root, skill)
    assert outcome == "fail" and note.endswith("]") and "[exit 0]" not in note, note


def check_step(root: Path, skill: Path) -> tuple[str, str]:
    """Run release-check as an agent to its check of the project's tests: the outcome the
    check decided, and its <decided> note."""
    script = skill / "scripts" / "release-check.py"
    first = shell([sys.executable, str(script), "--step", "1", "--version=v1.0.0"], cwd=root)
    assert first.returncode == 0, first.stderr
    argv = shlex.split(next_cmd_text(ET.fromstring(first.stdout)))
    after = shell([*argv, "--set", "CHANGES=none"], cwd=root)
    assert after.returncode == 0, after.stderr
    passed = read_decided(ET.fromstring(after.stdout))
    assert [d.step for d in passed] == ["tests"]
    return passed[0].outcome, passed[0].note


def test_doctor_says_what_keeps_the_tests_from_starting_and_the_lines_to_add(
        tmp_path: Path) -> None:
    root = clone(tmp_path / "calc")
    python_project(root)
    python_env(root, pytest_in_it=False)
    policy = root / ".claude" / "skillrail.yaml"
    policy.parent.mkdir()
    policy.write_text("version: 2\n")
    doctor = skillrail(root, "doctor")
    assert "FAIL  the project's tests: skillrail.yaml names none; found `.venv/bin/python -m " \
           "pytest -q`" in doctor.stdout
    assert f"add to {policy}:\n        tests:\n          command: \".venv/bin/python -m " \
           "pytest -q\"" in doctor.stdout
    policy.write_text("version: 2\ntests: {command: .venv/bin/python -m pytest -q}\n")
    doctor = skillrail(root, "doctor")
    assert "pytest is not installed for `.venv/bin/python`" in doctor.stdout
    assert "fix: Install it there (`.venv/bin/python -m pip install pytest`" in doctor.stdout
    policy.write_text("version: 2\ntests: {command: venv/bin/python -m pytest}\n")
    assert "venv/bin/python does not exist" in skillrail(root, "doctor").stdout
    assert doctor.returncode == 1


def policy_in(root: Path, text: str) -> Policy:
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude" / "skillrail.yaml").write_text("version: 2\n" + text)
    return load_policy(SKILL, str(root))


def test_the_tests_run_word_for_word_writable_with_their_own_variables(tmp_path: Path) -> None:
    policy = policy_in(tmp_path, "tests:\n  command: cargo test --offline\n  timeout: 900\n"
                                 "  env: {CARGO_HOME: ~/.cargo}\n")
    for written in ("${PROJECT_TESTS}", "  ${PROJECT_TESTS} ", "cargo test --offline"):
        checked = check(written, policy)
        assert checked.argv == ["cargo", "test", "--offline"] and checked.writes
        assert checked.timeout == 900 and checked.env == (("CARGO_HOME", "~/.cargo"),)
    with pytest.raises(GatewayRefusal) as refused:
        check("cargo test", policy)  # any other words are read against the programs' rules
    assert refused.value.rule == "not-in-policy"
    assert verdict("${PROJECT_TESTS}", policy) == (None, False)  # no approval needed


def test_without_tests_in_the_policy_a_check_naming_them_says_how_to_get_them(
        tmp_path: Path) -> None:
    with pytest.raises(GatewayRefusal) as refused:
        check("${PROJECT_TESTS}", policy_in(tmp_path, ""))
    assert refused.value.rule == "no-project-tests" and "skillrail doctor" in refused.value.fix
    refusal, approve = verdict("${PROJECT_TESTS}", policy_in(tmp_path, ""))
    assert refusal is not None and not approve  # a plan naming them is told, not approved


def test_a_refused_test_runner_names_the_key_that_would_allow_it(tmp_path: Path) -> None:
    policy = policy_in(tmp_path, "")
    with pytest.raises(GatewayRefusal) as refused:
        check("python3 -m pytest -q", policy)
    assert "${PROJECT_TESTS}" in refused.value.fix
    assert "`programs: {python3: {interpreter: skill, modules: [pytest]}}`" in refused.value.fix
    with pytest.raises(GatewayRefusal) as refused:
        check("npm test", policy)
    assert refused.value.rule == "not-in-policy" and "${PROJECT_TESTS}" in refused.value.fix


@pytest.mark.parametrize(("text", "said"), [
    ("tests: {command: 'pytest; rm -rf ~'}", "tests (line 2): command: "),
    ("tests: {command: 'go test ${PKG}'}", "tests (line 2): command: "),
    ("tests: {command: ''}", "it is empty"),
    ("tests: {command: npm test, env: {PATH: /x}}", "PATH and HOME are the gateway's own"),
    ("tests: {command: npm test, extra: 1}", "tests.extra (line 2): not a key here"),
], ids=["shell", "variable", "empty", "path", "unknown-key"])
def test_a_bad_tests_entry_is_one_clear_error_naming_the_key(tmp_path: Path, text: str,
                                                             said: str) -> None:
    from skills.lib.workflow.base.errors import SkillrailError

    with pytest.raises(SkillrailError) as bad:
        policy_in(tmp_path, text + "\n")
    assert said in str(bad.value) and "skillrail.yaml" in str(bad.value)


def test_the_step_interpreter_is_the_one_gateway_check_names(tmp_path: Path) -> None:
    """`gateway check` runs a skill's scripts with the python3 a step runs with, not its own:
    here a second interpreter named with --python."""
    root = clone(tmp_path / "calc")
    python_env(root, pytest_in_it=False)
    other = str(root / ".venv" / "bin" / "python")
    done = skillrail(root, "gateway", "check", SKILL,
                     "python3 ${SKILL_DIR}/scripts/problem-analysis.py --help", "--python", other)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith(f"runs: {other} -I -S")
    assert sys.executable not in done.stdout.splitlines()[1]


def test_a_plan_whose_checks_are_the_projects_tests_needs_no_exception_and_runs_them(
        tmp_path: Path) -> None:
    """A test-first plan names `${PROJECT_TESTS}` for its red and green checks: the approval
    lists no command outside the policy (so an approval given in advance may take it), the seal
    approves none, and the project's own tests, in its .venv, decide red and green."""
    root = clone(tmp_path / "greet")
    python_env(root)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = [\".\"]\n")
    policy_in(root, "tests: {command: .venv/bin/python -m pytest -q}\n")
    commit(root)
    plan = tdd_plan()
    for step in plan["steps"]:  # type: ignore[union-attr]
        step["verify"] = "${PROJECT_TESTS}"
    agent = Agent(root)
    approval = approval_of(agent, plan)
    question = approval.findtext("DO/ask_user/question", "")
    assert "then `.venv/bin/python -m pytest -q` must fail (its test is red)" in question
    assert "outside the project's command policy" not in question
    sealed = agent.follow(approval, "approve")
    assert json.loads((root / ".skill-runner" / "plan.json").read_text())[
        "approved_commands"] == []
    start = shlex.split(first_action(sealed).split("follow the steps it prints: ")[1])
    doc = agent.run(start)
    (root / "test_greet.py").write_text(
        "from greet import greet\n\n\ndef test_greet():\n    assert greet('a') == 'Hello, a'\n")
    doc = agent.follow(doc, RESULT_RED="wrote test_greet.py")
    assert decided(doc) == [("red-verify", "fail")] and doc.get("id") == "red-eval"
    assert notes(doc) == [  # pytest's exit 2: the import failed
        "A red test was expected here: the test comes before the code, so this check must "
        "fail. [exit 2]"]
    said = "".join(i.text or "" for i in doc.iterfind("memory/*"))
    assert "ModuleNotFoundError: No module named 'greet'" in said, said
    doc = agent.follow(agent.follow(doc, "pass"), RESULT_GREEN="nothing yet")
    assert decided(doc) == [("green-verify", "fail")]
    (root / "greet.py").write_text("def greet(name):\n    return f'Hello, {name}'\n")
    doc = agent.follow(doc, CHANGE_GREEN="write greet.py")
    doc = agent.follow(doc, RESULT_GREEN="wrote greet.py")
    assert decided(doc) == [("green-verify", "ok")] and doc.get("id") == "green-eval"
    with pytest.MonkeyPatch.context() as patch:  # the planner's check, read in the project
        patch.chdir(root)
        assert checks_to_approve(["${PROJECT_TESTS}"]) == []
        assert checks_to_approve(["python -m pytest -q"]) == ["python -m pytest -q"]


def test_gateway_check_tries_a_command_as_it_would_run_once_approved(tmp_path: Path) -> None:
    """A command the policy refuses is refused with the key that would allow it; with
    --approved it is checked and run as a plan's approved check would be (found on PATH
    outside the workspace, the workspace read-only, the approved commands' time limit)."""
    root = clone(tmp_path / "calc")
    refused = skillrail(root, "gateway", "check", SKILL, "python3 -m this")
    assert refused.returncode == 1 and "modules: [this]" in refused.stdout
    tried = skillrail(root, "gateway", "check", SKILL, "python3 -m this", "--approved",
                      "--run")
    lines = tried.stdout.splitlines()
    assert lines[0].startswith("approved for one run (--approved), beside ")
    assert lines[2] == "limits: 300 s, 10000 characters of output"  # not writable
    assert tried.returncode == 0 and "Beautiful is better than ugly." in tried.stdout
