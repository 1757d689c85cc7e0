"""What a user or an agent sees when something is wrong, as they see it: real subprocesses (step
scripts, `skillrail`, the hook entry point), one `error: ...` line that names the problem and
the way out, never an internal error or a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SKILLS_ROOT


def fails(argv: list[str], cwd: Path, code: int | None = None) -> str:
    """Run argv in cwd; it must fail with one error line (exit `code` when given): that line."""
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=60)
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
    assert f"the file {tmp_path.resolve()}" in line or f"the file {tmp_path}" in line
    assert "plan.json, which does not exist" in line and "step 'seal'" in line
    assert "start at the entry step" in line and f"{script} --step " in line
