"""docs/api.md, the API reference generated from the framework's docstrings and signatures:
the committed file is fresh, it gives every field of every documented type, `skillrail docs
--check` catches a stale one with the command that fixes it, a field left out of a docstring
is an error, and `inspect.signature` (so `help()`) shows each type's real fields."""

from __future__ import annotations

import inspect
import os
import pydoc
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import skills.lib.workflow as api

from .conftest import REPO, SKILLS_ROOT
from .test_commands import make_skills, skillrail

REFERENCE = REPO / "docs" / "api.md"
#: The documented types built on fields, and the documented functions.
TYPES = ("Workflow", "StepDef", "Rework", "AskUser", "Arg", "Param", "Action", "Dispatch",
         "Resource", "ConventionRef")
FUNCTIONS = ("qr_loop", "decides", "main", "register_workflow", "Template")


def entry(text: str, name: str) -> str:
    """The reference's section on `name`: from its heading to the next."""
    found = re.search(rf"^## {name}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert found, f"no section on {name}"
    return found[1]


class TestCommittedReference:
    def test_docs_check_covers_the_reference_and_finds_it_fresh(self) -> None:
        """In skillrail's checkout, `docs --check` checks docs/api.md too, and it is in sync."""
        done = skillrail("docs", "--check")
        assert done.returncode == 0, done.stderr
        assert "and the API reference" in done.stdout

    @pytest.mark.parametrize("name", TYPES)
    def test_every_field_has_its_type_default_and_meaning(self, name: str) -> None:
        """One bullet per field, in order, each with its type, its default (or 'required')
        and a meaning."""
        cls = getattr(api, name)
        bullets = re.findall(r"^- `(\w+)` \(`([^`]+)`, (required|default `.*?`)\): \S",
                             entry(REFERENCE.read_text(), name).replace("\n  ", " "),
                             re.MULTILINE)
        assert [b[0] for b in bullets] == list(cls._fields)
        for field, _, given in bullets:
            assert (given == "required") == (field not in cls._field_defaults)

    def test_verify_and_ask_user_are_explained(self) -> None:
        """StepDef's `verify=` says how its check decides; `ask_user=` shows AskUser's form."""
        step = " ".join(entry(REFERENCE.read_text(), "StepDef").split())
        verify = step.split("- `verify` ", 1)[1].split(" - `", 1)[0]
        assert verify.startswith('(`str | Callable[[StepContext], str]`, default `""`): ')
        for fact in ("security gateway", 'exit status 0 is the outcome `"ok"`', "VERIFY_OUTPUT",
                     "W018"):
            assert fact in verify
        assert "`AskUser(question, {outcome: label})`" in step

    @pytest.mark.parametrize("name", FUNCTIONS)
    def test_functions_show_their_signature_and_docstring(self, name: str) -> None:
        """A function's section holds its signature in a code block, then its docstring."""
        section = entry(REFERENCE.read_text(), name)
        assert section.lstrip().startswith(f"```python\n{name}(")
        first = inspect.cleandoc(getattr(api, name).__doc__).split("\n")[0]
        assert first in section

    def test_outcome_lists_each_member_with_its_value(self) -> None:
        section = entry(REFERENCE.read_text(), "Outcome")
        for member in api.Outcome:
            assert f"- `{member.name}` (`\"{member.value}\"`): " in section


class TestSignatures:
    @pytest.mark.parametrize("name", TYPES)
    def test_inspect_signature_lists_the_fields(self, name: str) -> None:
        """Not `(*args, **kwargs)`: each field, in order, with its default."""
        cls = getattr(api, name)
        params = inspect.signature(cls).parameters
        assert list(params) == list(cls._fields)
        assert all(p.default is inspect.Parameter.empty for n, p in params.items()
                   if n not in cls._field_defaults)

    def test_help_shows_the_fields_with_their_types(self) -> None:
        """help(StepDef) heads its page with the real call, types as an author writes them,
        and its docstring says what each field means."""
        page = pydoc.render_doc(api.StepDef, renderer=pydoc.plaintext)
        call = page.split("class StepDef(_Marks, _StepFields)\n |  ", 1)[1].split("\n", 1)[0]
        assert call.startswith("StepDef(id: str, title: str, actions: tuple[Action | str, ...] "
                               "= (), next: Mapping[str, str | Rework | None] = {},")
        assert "verify: str | Callable[[StepContext], str] = ''" in call
        assert "verify: A check that decides the step" in page

    def test_a_call_that_does_not_fit_is_still_a_field_error(self) -> None:
        """The signature is for reading: a misspelt field is refused as before."""
        from skills.lib.workflow.base.errors import FieldError

        with pytest.raises(FieldError, match="unknown field 'nxt'"):
            api.Rework("a", 2, "b", nxt="c")  # type: ignore[call-arg]


def checkout(tmp_path: Path) -> Path:
    """A copy of the framework in a checkout of its own, with no skills and no docs/api.md."""
    skills = tmp_path / ".claude" / "skills"
    skills.mkdir(parents=True)
    shutil.copy(SKILLS_ROOT / "__init__.py", skills)
    shutil.copytree(SKILLS_ROOT / "lib", skills / "lib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def docs_in(project: Path, mode: str) -> subprocess.CompletedProcess[str]:
    """`skillrail docs MODE` run by the copied framework, in its checkout."""
    return subprocess.run([sys.executable, "-m", "skills.lib.workflow.commands", "docs", mode],
                          capture_output=True, text=True, cwd=project, timeout=120,
                          env={"PYTHONPATH": str(project / ".claude"), "PATH": "/usr/bin:/bin",
                               "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]})


class TestStaleReference:
    def test_a_stale_reference_fails_the_check_with_the_command_that_fixes_it(
            self, tmp_path: Path) -> None:
        """Missing, then written, then stale after a docstring changes: --check exits 1 with
        one line naming docs/api.md and `skillrail docs --write`, which brings it back."""
        project = checkout(tmp_path)
        missing = docs_in(project, "--check")
        assert missing.returncode == 1 and missing.stderr.count("\n") == 1
        assert "docs/api.md (missing: --write creates it)" in missing.stderr
        assert docs_in(project, "--write").returncode == 0
        assert (project / "docs" / "api.md").read_text() == REFERENCE.read_text()
        parts = project / ".claude" / "skills" / "lib" / "workflow" / "graph" / "model.py"
        parts.write_text(parts.read_text().replace("When to read it, for a listed one.",
                                                   "When to read it, if listed."))
        stale = docs_in(project, "--check")
        assert stale.returncode == 1 and stale.stderr.count("\n") == 1
        assert "docs/api.md (the API reference, from the framework's docstrings)" in stale.stderr
        assert "Run `skillrail docs --write` and commit the result" in stale.stderr
        assert docs_in(project, "--write").returncode == 0
        assert "When to read it, if listed." in (project / "docs" / "api.md").read_text()
        assert docs_in(project, "--check").returncode == 0

    def test_a_field_left_out_of_a_docstring_is_an_error(self, tmp_path: Path) -> None:
        """The reference is never written with a field missing: --write exits 1 naming the
        type and the field, and leaves the file as it was."""
        project = checkout(tmp_path)
        assert docs_in(project, "--write").returncode == 0
        before = (project / "docs" / "api.md").read_text()
        parts = project / ".claude" / "skills" / "lib" / "workflow" / "graph" / "model.py"
        text = parts.read_text()
        parts.write_text(re.sub(r"\n        when: When to read it, for a listed one\.", "", text))
        done = docs_in(project, "--write")
        assert done.returncode == 1 and done.stderr.count("\n") == 1
        assert "ConventionRef's docstring leaves out 'when'" in done.stderr
        assert (project / "docs" / "api.md").read_text() == before

    def test_a_project_using_the_framework_gets_no_reference(self, tmp_path: Path) -> None:
        """Another project's skills (the framework linked in) get their sections; the
        reference stays the framework's own."""
        root = make_skills(tmp_path, {})
        done = skillrail("docs", "--write", "--root", str(root), cwd=tmp_path)
        assert done.returncode == 0 and "API reference" not in done.stdout
        assert not (tmp_path / "docs").exists()
