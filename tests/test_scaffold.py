"""`skillrail new`: a new skill that validates and passes its own test as generated, names
checked against the Agent Skills rules, and nothing ever overwritten."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from skills.lib.workflow.base.errors import UsageError
from skills.lib.workflow.tools.scaffold import check_name

from .test_commands import make_skills, skillrail
from .test_skills import BOOTSTRAP


def new(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`skillrail new ... --root ROOT`, run in the folder that holds ROOT's `.claude/`."""
    return skillrail("new", *args, "--root", str(root), cwd=root.parents[1])


def front_matter(skill_md: Path) -> tuple[dict[str, str], str]:
    """SKILL.md's YAML frontmatter, parsed, and its body."""
    _, front, body = skill_md.read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(front), body


class TestNames:
    @pytest.mark.parametrize(("name", "message"), [
        ("Review-PR", "is not valid"),
        ("review_pr", "is not valid"),
        ("-review", "is not valid"),
        ("review-", "is not valid"),
        ("review--pr", "is not valid"),
        ("", "is not valid"),
        ("1review", "starts with a digit"),
        ("a" * 65, "65 characters long; the limit is 64"),
    ])
    def test_a_name_breaking_the_rules_is_refused(self, name: str, message: str) -> None:
        """Upper case, underscores, stray hyphens, a leading digit, >64 characters: UsageError."""
        with pytest.raises(UsageError, match=message):
            check_name(name)

    @pytest.mark.parametrize("name", ["a", "review-pr", "x2-y3", "a" * 64])
    def test_a_name_within_the_rules_is_accepted(self, name: str) -> None:
        """Lowercase words of letters and digits joined by single hyphens, up to 64 characters."""
        check_name(name)

    def test_a_bad_name_exits_2_with_one_line_and_creates_nothing(self, tmp_path: Path) -> None:
        """The command refuses a bad name with one stderr line saying how to fix it."""
        root = make_skills(tmp_path, {})
        proc = new(root, "Review_PR")
        assert (proc.returncode, proc.stdout) == (2, "")
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
        assert "lowercase letters, digits and single hyphens" in proc.stderr
        assert sorted(p.name for p in root.iterdir()) == ["__init__.py", "lib"]
        assert not (tmp_path / "tests").exists()


class TestNewSkill:
    def test_the_generated_skill_validates_and_passes_its_own_test(self, tmp_path: Path) -> None:
        """Fresh from `new`: validate finds nothing, and the generated test, run by pytest,
        follows the script from its first step to <complete>."""
        root = make_skills(tmp_path, {})
        created = new(root, "review-pr")
        assert created.returncode == 0, created.stderr
        lines = created.stdout.splitlines()
        listed = [line.strip() for line in lines[1:lines.index("next:")]]
        test = ".claude/skills/review-pr/tests/test_review_pr.py"
        assert listed == [".claude/skills/review-pr/SKILL.md",
                          ".claude/skills/review-pr/scripts/review-pr.py",
                          ".claude/skills/review-pr/README.md", test]
        assert (f"  skillrail validate --root {root} && skillrail lint {root} && pytest "
                f"{test}   # pytest: pip install pytest") in lines
        report = json.loads(skillrail("validate", "--root", str(root), "--json").stdout)
        assert (report["ok"], report["workflows"]) == (True, ["review-pr"])
        tested = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
            cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert tested.returncode == 0, tested.stdout + tested.stderr
        assert "1 passed" in tested.stdout
        # The project's own test command does not collect it (a check running the project's
        # tests must not run the skill again).
        collected = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert "test_review_pr" not in collected.stdout, collected.stdout

    def test_the_generated_test_runs_the_skills_checks_with_the_values_it_is_given(
            self, tmp_path: Path) -> None:
        """An author adds a check (verify=) and an arg whose check wants a real value: the
        generated test trusts the skill in its private ledger, so the check runs and takes its
        'ok' edge (its 'fail' edge leads to a step no value passes), and it reports the value
        VALUES gives, which the arg's check accepts where the placeholder text is refused."""
        root = make_skills(tmp_path, {})
        assert new(root, "review-pr").returncode == 0
        script = root / "review-pr" / "scripts" / "review-pr.py"
        (script.parent / "passes.py").write_text("print('checked')\n")
        added = (
            '    next={"ok": "check"},\n)\n\n'
            'check = StepDef("check", "Check it", verify="python3 ${SKILL_DIR}/scripts/'
            'passes.py",\n                next={"ok": "answer", "fail": "broken"})\n'
            'broken = StepDef("broken", "The check did not pass", actions=[Action("Say why.", '
            'out="WHY")],\n                 args=[Arg("WHY", "why", check=lambda value, params: '
            '"never accepted")],\n                 next={"ok": "answer"})\n')
        text = script.read_text()
        for old, new_text in (
                ('    next={"ok": "answer"},\n)\n', added),
                ("Arg(\"RESULT\", \"TODO: what this value holds; write 'unknown' when it cannot "
                 "be found\")", 'Arg("RESULT", "the answer", check=lambda value, params: None if '
                 'value == "42" else "must be 42")'),
                ("steps=[work, answer]", "steps=[work, check, answer, broken]")):
            assert old in text, old
            text = text.replace(old, new_text)
        script.write_text(text)
        test = root / "review-pr" / "tests" / "test_review_pr.py"

        def tested() -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p",
                                   "no:cacheprovider", str(test)], cwd=tmp_path,
                                  capture_output=True, text=True, timeout=120)

        refused = tested()
        assert refused.returncode == 1 and "must be 42" in refused.stdout, refused.stdout
        test.write_text(test.read_text().replace("VALUES: dict[str, str] = {}",
                                                 'VALUES: dict[str, str] = {"RESULT": "42"}'))
        passed = tested()
        assert passed.returncode == 0, passed.stdout + passed.stderr
        assert "never accepted" not in passed.stdout

    def test_the_generated_test_gives_required_params_and_fails_on_a_check_not_run(
            self, tmp_path: Path) -> None:
        """A required param gets its sample on the first step; a check that cannot run at all
        (a command the policy refuses) fails the test, naming the step, instead of walking the
        check's 'fail' edge as if the check had failed."""
        root = make_skills(tmp_path, {})
        assert new(root, "review-pr").returncode == 0
        script = root / "review-pr" / "scripts" / "review-pr.py"
        text = script.read_text()
        for old, new_text in (
                ("    steps=[work, answer],\n", '    steps=[work, check, answer],\n    params=['
                 'Param("version", "the version", required=True, sample="v1.0.0")],\n'),
                ('    next={"ok": "answer"},\n)\n', '    next={"ok": "check"},\n)\n\ncheck = '
                 'StepDef("check", "Check it", verify="git push", next={"ok": "answer", '
                 '"fail": "answer"})\n'),
                ("from skills.lib.workflow import Action, Arg, StepDef,",
                 "from skills.lib.workflow import Action, Arg, Param, StepDef,")):
            assert old in text, old
            text = text.replace(old, new_text)
        script.write_text(text)
        test = root / "review-pr" / "tests" / "test_review_pr.py"
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               str(test)], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 1, done.stdout
        assert "step 'check': the check was not run: refused by the gateway's rule" in \
            done.stdout and "--version is required" not in done.stdout

    def test_the_generated_skill_lints_and_simulates_fully(self, tmp_path: Path) -> None:
        """Fresh from `new`: lint finds no error (its placeholders are warnings, tests/test_lint
        has them) and simulate walks every edge."""
        root = make_skills(tmp_path, {})
        assert new(root, "review-pr").returncode == 0
        linted = skillrail("lint", str(root / "review-pr"))
        assert linted.returncode == 0 and ": 0 errors, " in linted.stdout
        walked = json.loads(skillrail("simulate", "review-pr", "--root", str(root),
                                      "--json").stdout)
        assert walked[0]["coverage"] == 1 and walked[0]["failures"] == []

    def test_skill_md_names_the_skill_and_its_invocation(self, tmp_path: Path) -> None:
        """SKILL.md: frontmatter name and a TODO description; the body gives the exact entry
        command and the way back with --resume; the script starts with the bootstrap lines."""
        root = make_skills(tmp_path, {})
        assert new(root, "review-pr").returncode == 0
        meta, body = front_matter(root / "review-pr" / "SKILL.md")
        assert meta["name"] == "review-pr"
        assert meta["description"].startswith("TODO")
        assert "python3 ${CLAUDE_SKILL_DIR}/scripts/review-pr.py --step 1\n" in body
        assert "${CLAUDE_SKILL_DIR}/scripts/review-pr.py --resume" in body
        assert "--run RUN_ID" in body
        script = (root / "review-pr" / "scripts" / "review-pr.py").read_text(encoding="utf-8")
        assert BOOTSTRAP in script and 'name="review-pr"' in script

    def test_the_description_is_kept_verbatim(self, tmp_path: Path) -> None:
        """A description YAML would misread (a colon, a leading quote) is quoted and reads back
        exactly as given."""
        root = make_skills(tmp_path, {})
        text = "'Triage' bugs: label, dedupe, assign. Use when asked to triage #issues."
        assert new(root, "triage", "--description", text).returncode == 0
        meta, _ = front_matter(root / "triage" / "SKILL.md")
        assert meta["description"] == text

    @pytest.mark.parametrize("text", ["Use <b>this</b>", "two\nlines", " ", "x" * 1025])
    def test_a_bad_description_is_refused(self, tmp_path: Path, text: str) -> None:
        """Angle brackets, line breaks, blank or over 1024 characters: exit 2, nothing made."""
        root = make_skills(tmp_path, {})
        proc = new(root, "triage", "--description", text)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1
        assert not (root / "triage").exists()


class TestNeverOverwrites:
    def test_an_existing_skill_is_refused_and_left_alone(self, tmp_path: Path) -> None:
        """A second `new` with the same name exits 2 and changes no file."""
        root = make_skills(tmp_path, {})
        assert new(root, "review-pr").returncode == 0
        skill_md = root / "review-pr" / "SKILL.md"
        skill_md.write_text("mine\n")
        again = new(root, "review-pr")
        assert again.returncode == 2 and "already exists" in again.stderr
        assert "never overwrites" in again.stderr
        assert skill_md.read_text() == "mine\n"

class TestRoot:
    def test_the_default_root_is_the_local_claude_skills(self, tmp_path: Path) -> None:
        """Without --root, the skill goes into ./.claude/skills of the working directory."""
        make_skills(tmp_path, {})
        proc = skillrail("new", "triage", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert (tmp_path / ".claude" / "skills" / "triage" / "scripts" / "triage.py").is_file()
        assert (tmp_path / ".claude" / "skills" / "triage" / "tests" / "test_triage.py").is_file()

    def test_no_local_skills_folder_is_a_usage_error(self, tmp_path: Path) -> None:
        """Without --root and without ./.claude/skills: exit 2, telling how to fix it."""
        proc = skillrail("new", "triage", cwd=tmp_path)
        assert proc.returncode == 2 and "no .claude/skills folder" in proc.stderr
        assert "--root DIR" in proc.stderr
        assert list(tmp_path.iterdir()) == []

    def test_a_missing_root_is_a_usage_error(self, tmp_path: Path) -> None:
        """--root naming no folder: exit 2, nothing created."""
        proc = skillrail("new", "triage", "--root", str(tmp_path / "nowhere"), cwd=tmp_path)
        assert proc.returncode == 2 and "is not a folder" in proc.stderr
        assert list(tmp_path.iterdir()) == []
