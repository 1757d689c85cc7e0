"""`skillrail simulate` walks every edge of a team's own skill with checks (issue 28): the
release-check fixture (changes, the project's tests with a fix loop, a reviewed changelog, the
user's approval, the tag) reaches 100% in a clone, its checks really run in the scratch folder,
trusted there and nowhere else; an edge no walk could take says why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from skills.lib.workflow.guard.trust import untrusted

from .conftest import REPO
from .harness import shell
from .repo_shapes import git

FIXTURE = REPO / "tests" / "fixtures" / "release-check"


def project(tmp_path: Path) -> Path:
    """A clone (origin remote, a commit) holding the release-check skill of its own."""
    root = tmp_path / "app"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", "git@example.com:team/app.git")
    shutil.copytree(FIXTURE, root / ".claude" / "skills" / "release-check")
    (root / "README.md").write_text("# app\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "app")
    return root


def simulate(root: Path, *names: str) -> tuple[int, list[dict[str, object]]]:
    done = shell(["skillrail", "simulate", *names, "--root", str(root / ".claude" / "skills"),
                  "--json"], cwd=root)
    assert done.stderr == "", done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_release_check_skill_simulates_over_every_edge(tmp_path: Path) -> None:
    root = project(tmp_path)
    skill = str(root / ".claude" / "skills" / "release-check")
    assert untrusted(skill) is not None  # the user has not trusted it
    status, [report] = simulate(root, "release-check")
    assert (status, report["coverage"], report["failures"]) == (0, 1, []), report
    assert untrusted(skill) is not None  # the walk trusted it in its scratch ledger only


def test_an_edge_a_check_never_gave_says_why_and_how_to_walk_it(tmp_path: Path) -> None:
    """A check of the skill's own script, with no `prepare`, fails in the scratch folder on
    every walk: its 'ok' edge is reported with the check's last note and the fix."""
    root = project(tmp_path)
    script = root / ".claude" / "skills" / "release-check" / "scripts"
    (script / "never.py").write_text("import sys\n\nif __name__ == '__main__':\n"
                                     "    print('no release notes')\n    sys.exit(3)\n")
    main = script / "release-check.py"
    main.write_text(main.read_text().replace('verify="${PROJECT_TESTS}"',
                                             'verify="python3 ${SKILL_DIR}/scripts/never.py"'))
    status, [report] = simulate(root, "release-check")
    assert status == 1 and report["failures"] == []
    said = dict(zip(map(tuple, report["untaken"]), report["why_untaken"], strict=True))
    assert said[("tests", "ok", "changelog")] == (
        "its check never gave 'ok' (last: fail: The project's tests ran; their exit status "
        "decided this step. [exit 3]); give the step a `prepare` that sets up the world for "
        "'ok', or check the project's tests with ${PROJECT_TESTS}")
    assert said[("changelog", "-", "review")] == "no walk reached step 'changelog'"
