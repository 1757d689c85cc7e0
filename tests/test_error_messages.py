"""What a user or an agent sees when something is wrong, as they see it: real subprocesses (step
scripts, `skillrail`, the hook entry point), one `error: ...` line that names the problem and
the way out, never an internal error or a traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SKILLS_ROOT
from .harness import shell
from .hooks_support import SKILLRAIL, env, hook, payload


def skillrail(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`skillrail ARGS` in `cwd`, as the user types it in their terminal."""
    return shell([*SKILLRAIL, *args], cwd=cwd, env=env(session=None))


def fails(argv: list[str], cwd: Path, code: int | None = None) -> str:
    """Run argv in cwd; it must fail with one error line (exit `code` when given): that line."""
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=60,
                          env=env(session=None))
    assert proc.returncode != 0 and proc.stdout == "", (proc.stdout, proc.stderr)
    assert code is None or proc.returncode == code, proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    return proc.stderr


@pytest.mark.parametrize(("skill", "flag"), [("planner", "--request=x"),
                                             ("skill-runner",
                                              f"--skill={SKILLS_ROOT / 'problem-analysis'}")])
def test_a_seal_step_printed_before_its_plan_exists_says_where_the_plan_comes_from(
        skill: str, flag: str, tmp_path: Path) -> None:
    script = SKILLS_ROOT / skill / "scripts" / f"{skill}.py"
    line = fails([sys.executable, str(script), "--step", "seal", "--stateless", flag],
                 tmp_path, code=2)
    assert f"the file {tmp_path.resolve()}" in line
    assert "plan.json, which does not exist" in line and "step 'seal'" in line
    assert "start at the entry step" in line and f"{script} --step " in line


def test_docs_leaves_the_skills_install_linked_in_alone_and_keeps_the_projects_own(
        tmp_path: Path) -> None:
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    assert skillrail("install", "--target", "claude", "planner", cwd=tmp_path).returncode == 0
    assert skillrail("new", "my-skill", cwd=tmp_path).returncode == 0
    shipped = {p: p.read_bytes() for p in (SKILLS_ROOT / "planner").glob("*.md")}
    for mode, done in (("--write", "of 2 file(s)"), ("--check", "checked 2 file(s) of 1 skill")):
        proc = skillrail("docs", mode, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert done in proc.stdout and "left 1 linked skill alone: planner" in proc.stdout
    assert "skillrail:workflow:start" in (tmp_path / ".claude/skills/my-skill/README.md"
                                          ).read_text()
    assert {p: p.read_bytes() for p in shipped} == shipped


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "UserPromptSubmit"])
def test_a_payload_nested_thousands_deep_is_let_through_with_a_note_saying_so(
        event: str) -> None:
    data = payload("pretooluse-bash-step-script", hook_event_name=event)
    deep = "[" * 5000 + "]" * 5000  # PostToolUse reads it: it mentions a step printed
    raw = json.dumps(data | {"tool_input": "@", "prompt": "<step "}).replace('"@"', deep)
    proc = hook(event, raw)
    assert proc.stdout == ""  # fails open, as every hook failure does
    assert proc.stderr == ("skillrail hook: the payload nests too deep to read (more than "
                           "about 1000 levels of JSON arrays or objects); letting the action "
                           "through\n")


def test_a_framework_copied_without_its_conventions_says_how_to_get_them(
        tmp_path: Path) -> None:
    """A framework copied by hand, leaving its conventions/ behind: the skill that needs one
    names the folder and how to install the framework whole."""
    package = tmp_path / "site-packages" / "skills"
    shutil.copytree(SKILLS_ROOT / "lib", package / "lib",
                    ignore=shutil.ignore_patterns("__pycache__", "conventions"))
    shutil.copytree(SKILLS_ROOT / "incoherence", package / "incoherence")
    shutil.copy(SKILLS_ROOT / "__init__.py", package)
    script = package / "incoherence" / "scripts" / "incoherence.py"
    proc = subprocess.run([sys.executable, str(script), "--step", "1"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60,
                          env={k: v for k, v in env(session=None).items() if k != "PYTHONPATH"})
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    finding = proc.stderr.splitlines()[1]
    assert finding.startswith("  W016 workflow 'incoherence', step 'merge': convention "
                              f"'severity' is not in {package.resolve() / 'lib' / 'conventions'}. ")
    assert "Use one of: (none)" not in finding and "this copy lacks them" in finding
    assert finding.endswith("Install it again (`skillrail init --update` in a project, or "
                            "`pip install skillrail`)")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with two new skills of its own, `good` and `bad`, and a subfolder."""
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    (tmp_path / "src" / "deep").mkdir(parents=True)
    for name in ("good", "bad"):
        assert skillrail("new", name, cwd=tmp_path).returncode == 0
    return tmp_path


def test_a_skill_is_found_from_a_subfolder_of_its_project(project: Path) -> None:
    proc = skillrail("describe", "good", cwd=project / "src" / "deep")
    assert proc.returncode == 0, proc.stderr
    assert f"script: {project.resolve()}/.claude/skills/good/scripts/good.py" in proc.stdout
    line = fails([*SKILLRAIL, "graph", "nope"], project / "src")
    assert line.startswith(f"error: no workflow or skill named 'nope' (under "
                           f"{project.resolve()}/.claude/skills)")


def test_a_skill_whose_script_has_findings_is_named_with_them(project: Path) -> None:
    script = project / ".claude" / "skills" / "bad" / "scripts" / "bad.py"
    script.write_text(script.read_text().replace('next={"ok": "answer"}',
                                                 'next={"ok": "answr"}'))
    proc = skillrail("describe", "bad", cwd=project / "src")
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    head, *findings = proc.stderr.splitlines()
    assert head.startswith("error: skill 'bad' is there, but its script does not load: its "
                           "workflow has 3 problems, listed below")
    assert str(script.resolve()) in head or str(script) in head
    assert findings[0].startswith("  W003 workflow 'bad', step 'work', outcome 'ok': routes "
                                  "to 'answr'") and len(findings) == 3


def test_a_skill_whose_script_fails_to_import_is_named_with_the_error(project: Path) -> None:
    script = project / ".claude" / "skills" / "good" / "scripts" / "good.py"
    script.write_text(script.read_text() + "raise RuntimeError('half written')\n")
    line = fails([*SKILLRAIL, "simulate", "good"], project)
    assert line.startswith("error: skill 'good' is there, but its script does not load: "
                           "import failed: RuntimeError: half written")
