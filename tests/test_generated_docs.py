"""`skillrail docs` and SKILL.md: the generated section (how to run the skill, its steps, the way
back) is derived from the workflows, placed under the title when missing, kept in step by
--write, checked by --check, and never touches the author's text around it."""

from __future__ import annotations

import re
from pathlib import Path

from .test_commands import BROKEN, make_skills, skillrail
from .test_scaffold import new
from .test_skills import BOOTSTRAP

START, END = "<!-- skillrail:workflow:start -->", "<!-- skillrail:workflow:end -->"

#: A skill with a required and a choice param, a counted loop, a sub-agent script it dispatches
#: and a second entry script: every kind of fact the section shows.
MAIN = BOOTSTRAP + '''
from skills.lib.workflow import (Action, Arg, Dispatch, Param, Rework, StepDef, Workflow, main,
                                 register_workflow)

WORKFLOW = register_workflow(Workflow(name="tour", params=[
    Param("topic", "what to look at, in one line", required=True),
    Param("depth", "how far to go", default="some", choices=("some", "all"))], steps=[
    StepDef("look", "Look around", actions=[Action("Note it.", out="SEEN")],
            args=[Arg("SEEN", "what you saw")], next={"ok": "ask"}),
    StepDef("ask", "Have a helper look", reads=("SEEN",),
            dispatch=Dispatch("explore", "Look again.", "one line", script="scripts/helper.py"),
            actions=[Action("Record the reply.", out="REPLY")], args=[Arg("REPLY", "the reply")],
            next={"again": Rework("look", 3, "done"), "ok": "done"},
            when={"again": "more to see", "ok": "seen enough"}),
    StepDef("done", "Report", actions=[Action("Tell the user.", out="reply")],
            next={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


def _simple(name: str, skill: str, title: str) -> str:
    return BOOTSTRAP + f'''
from skills.lib.workflow import Action, StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="{name}", skill="{skill}",
    description="It does the {name} part.", steps=[
    StepDef("go", "{title}", actions=[Action("Reply.", out="reply")], next={{"ok": None}}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''


SKILL_MD = """---
name: tour
description: Tours a repository. Use when asked for a tour.
---

# Tour

Author's advice: give --topic in the user's words.

Rules that hold throughout:

- Author's rule.
"""


def tour(tmp_path: Path, skill_md: str = SKILL_MD) -> Path:
    """A skills root holding the `tour` skill: entry script, sub-agent, second entry, SKILL.md."""
    root = make_skills(tmp_path, {"tour": MAIN})
    scripts = root / "tour" / "scripts"
    (scripts / "helper.py").write_text(_simple("tour-helper", "tour", "Look again"))
    (scripts / "wrap-up.py").write_text(_simple("tour-wrap-up", "tour", "Wrap up"))
    (root / "tour" / "SKILL.md").write_text(skill_md)
    return root


def docs(root: Path, mode: str) -> tuple[int, str, str]:
    done = skillrail("docs", mode, "--root", str(root))
    return done.returncode, done.stdout, done.stderr


def section(text: str) -> str:
    """The text between the markers (exactly one pair)."""
    assert text.count(START) == 1 and text.count(END) == 1
    return text.split(START, 1)[1].split(END, 1)[0]


class TestSkillMdSection:
    def test_a_skill_md_without_markers_fails_the_check_and_write_puts_it_under_the_title(
            self, tmp_path: Path) -> None:
        """--check exits 1 naming the file, that it has no section, and the fix command;
        --write adds the section right below the title, the author's text kept around it."""
        root = tour(tmp_path)
        status, _, err = docs(root, "--check")
        assert status == 1 and err.count("\n") == 1
        assert "tour/SKILL.md (no generated section: --write adds one)" in err
        assert f"skillrail docs --write --root {root}" in err
        assert docs(root, "--write")[0] == 0
        text = (root / "tour" / "SKILL.md").read_text()
        head, rest = text.split(START)
        assert head == SKILL_MD.split("Author's advice")[0]
        assert rest.split(END)[1] == "\n\nAuthor's advice: give --topic in the user's words.\n" \
            "\nRules that hold throughout:\n\n- Author's rule.\n"
        assert docs(root, "--check")[0] == 0

    def test_the_section_shows_the_entry_commands_params_steps_and_the_way_back(
            self, tmp_path: Path) -> None:
        """Both entry scripts with ${CLAUDE_SKILL_DIR}, the required param as a placeholder,
        every param's help, numbered steps with the loop's cap, the resume line; the
        dispatched sub-agent script and any diagram are left out."""
        root = tour(tmp_path)
        docs(root, "--write")
        text = section((root / "tour" / "SKILL.md").read_text())
        assert "    python3 ${CLAUDE_SKILL_DIR}/scripts/tour.py --step 1 --topic 'TOPIC'\n" in text
        assert "    python3 ${CLAUDE_SKILL_DIR}/scripts/wrap-up.py --step 1\n" in text
        assert "**tour-wrap-up**: It does the tour-wrap-up part." in text
        assert "- `--topic 'TOPIC'` (required): what to look at, in one line" in text
        assert "- `--depth some|all` (default: some): how far to go" in text
        steps = re.findall(r"^\d+\. .*$", text, re.MULTILINE)
        assert steps[:3] == [
            "1. `look`: Look around",
            "2. `ask`: Have a helper look (one `explore` sub-agent; `again`: back to `look`, "
            "at most 3 passes)",
            "3. `done`: Report"]
        assert "`<complete>`" in text and "`--set KEY='VALUE'`" in text
        assert ("${CLAUDE_SKILL_DIR}/scripts/tour.py --resume` (or `wrap-up.py`)" in text)
        assert "helper.py" not in text and "mermaid" not in text

    def test_drift_inside_the_markers_is_found_and_write_restores_only_the_section(
            self, tmp_path: Path) -> None:
        """A hand edit between the markers fails --check; --write puts the generated text
        back and leaves every byte outside the markers as the author left it."""
        root = tour(tmp_path)
        docs(root, "--write")
        skill_md = root / "tour" / "SKILL.md"
        fresh = skill_md.read_text()
        edited = ("Added on top.\n" + fresh.replace("--topic 'TOPIC'", "--topik 'x'")
                  + "Added below.\n")
        skill_md.write_text(edited)
        status, _, err = docs(root, "--check")
        assert status == 1 and "tour/SKILL.md" in err and "no generated section" not in err
        assert docs(root, "--write")[0] == 0
        assert skill_md.read_text() == "Added on top.\n" + fresh + "Added below.\n"

    def test_write_is_idempotent(self, tmp_path: Path) -> None:
        """A second --write changes nothing and says so."""
        root = tour(tmp_path)
        docs(root, "--write")
        before = {p: p.read_text() for p in (root / "tour").glob("*.md")}
        status, out, _ = docs(root, "--write")
        assert status == 0 and out == "rewrote 0 of 2 file(s)\n"
        assert {p: p.read_text() for p in (root / "tour").glob("*.md")} == before

    def test_the_generated_section_passes_lint(self, tmp_path: Path) -> None:
        """The commands in the section name real scripts and flags they accept."""
        root = tour(tmp_path)
        docs(root, "--write")
        linted = skillrail("lint", str(root / "tour"))
        assert linted.returncode == 0 and "0 errors, 0 warnings" in linted.stdout, linted.stdout

    def test_malformed_markers_are_an_error_naming_the_file(self, tmp_path: Path) -> None:
        """A start marker without its end: exit 1, one line naming SKILL.md, nothing written."""
        broken = SKILL_MD.replace("# Tour\n", f"# Tour\n\n{START}\n")
        root = tour(tmp_path, broken)
        done = skillrail("docs", "--write", "--root", str(root))
        assert done.returncode == 1 and done.stderr.count("\n") == 1
        assert "markers are malformed" in done.stderr and "tour/SKILL.md" in done.stderr
        assert (root / "tour" / "SKILL.md").read_text() == broken

    def test_a_skill_without_skill_md_gets_none(self, tmp_path: Path) -> None:
        """Docs never invents a SKILL.md (lint reports it missing); README is still written."""
        root = make_skills(tmp_path, {"bare": _simple("bare", "bare", "Go")})
        assert docs(root, "--write")[0] == 0
        assert not (root / "bare" / "SKILL.md").exists()
        assert (root / "bare" / "README.md").is_file()


class TestReadmeSection:
    def test_readme_shows_the_same_commands_and_steps_plus_every_diagram(
            self, tmp_path: Path) -> None:
        """The README's section has SKILL.md's step lines and commands (with the project path
        for people), then a diagram per workflow, the sub-agent's marked as such."""
        root = tour(tmp_path)
        docs(root, "--write")
        readme = section((root / "tour" / "README.md").read_text())
        skill_md = section((root / "tour" / "SKILL.md").read_text())
        step_lines = re.findall(r"^\d+\. .*$", skill_md, re.MULTILINE)
        assert step_lines and all(line in readme for line in step_lines)
        assert ("    python3 .claude/skills/tour/scripts/tour.py --step 1 --topic 'TOPIC'\n"
                in readme)
        assert readme.count("```mermaid") == 3
        assert "#### tour-helper (sub-agent, `scripts/helper.py`)" in readme

    def test_a_stale_readme_is_found_and_fixed(self, tmp_path: Path) -> None:
        """A README whose steps no longer match fails --check by name; --write fixes it."""
        root = tour(tmp_path)
        docs(root, "--write")
        readme = root / "tour" / "README.md"
        readme.write_text(readme.read_text().replace("Look around", "Look about"))
        status, _, err = docs(root, "--check")
        assert status == 1 and "tour/README.md" in err and "SKILL.md" not in err
        docs(root, "--write")
        assert "Look about" not in readme.read_text() and docs(root, "--check")[0] == 0

    def test_an_old_diagram_section_is_replaced_in_place(self, tmp_path: Path) -> None:
        """A README from before the section held the usage: its 'diagram' markers become the
        'workflow' section where they stand, with no second section added."""
        root = tour(tmp_path)
        readme = root / "tour" / "README.md"
        readme.write_text("# tour\n\n## Diagram\n\n<!-- skillrail:diagram:start -->\nold\n"
                          "<!-- skillrail:diagram:end -->\n\n## Worked example\n\nMine.\n")
        assert docs(root, "--write")[0] == 0
        text = readme.read_text()
        assert "skillrail:diagram" not in text and "old" not in text
        assert text.startswith(f"# tour\n\n## Diagram\n\n{START}\n")
        assert text.endswith(f"{END}\n\n## Worked example\n\nMine.\n")


class TestScope:
    def test_naming_skills_limits_the_check(self, tmp_path: Path) -> None:
        """`docs --check NAME` looks at that skill only, even while another skill's script does
        not load; an unknown name exits 2 with a hint."""
        root = tour(tmp_path)
        (root / "other" / "scripts").mkdir(parents=True)
        (root / "other" / "scripts" / "other.py").write_text(_simple("other", "other", "Go"))
        assert skillrail("docs", "--write", "other", "--root", str(root)).returncode == 0
        assert skillrail("docs", "--check", "other", "--root", str(root)).returncode == 0
        assert skillrail("docs", "--check", "--root", str(root)).returncode == 1
        (root / "broken" / "scripts").mkdir(parents=True)
        (root / "broken" / "scripts" / "broken.py").write_text(BROKEN)
        assert skillrail("docs", "--check", "other", "--root", str(root)).returncode == 0
        assert "failed to load" in skillrail("docs", "--check", "--root", str(root)).stderr
        unknown = skillrail("docs", "--check", "toor", "--root", str(root))
        assert unknown.returncode == 2 and "Did you mean 'tour'?" in unknown.stderr

    def test_a_new_skill_is_in_sync_as_created(self, tmp_path: Path) -> None:
        """`skillrail new` writes SKILL.md and README.md with their sections already fresh."""
        root = make_skills(tmp_path, {})
        assert new(root, "review-pr").returncode == 0
        assert docs(root, "--check")[0] == 0

    def test_the_repository_files_are_in_sync(self) -> None:
        """Every committed SKILL.md and README.md matches its workflows."""
        done = skillrail("docs", "--check")
        assert done.returncode == 0, done.stderr
