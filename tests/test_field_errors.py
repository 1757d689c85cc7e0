"""A graph type made with a field it does not have (a typo), without one it needs, or with one
twice says so in the author's terms, at the author's line: a FieldError (a TypeError and a
SkillrailError), never `_StepFields.__new__() got an unexpected keyword argument`. A step script
that makes one is one error line when run, and a load error in `skillrail validate`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skills.lib.workflow import (
    Action,
    Arg,
    AskUser,
    ConventionRef,
    Dispatch,
    Param,
    Resource,
    Rework,
    SkillrailError,
    StepDef,
    Workflow,
)
from skills.lib.workflow.base.errors import FieldError

from .test_commands import BOOTSTRAP, make_skills, skillrail

#: Each public type authors make, with the fields it needs.
NEEDED: dict[type, tuple[Any, ...]] = {
    StepDef: ("a", "A"), Workflow: ("flow", []), Action: ("Do it.",), Arg: ("KEY",),
    Param: ("topic", "what it is about"), Rework: ("a", 3, "b"), AskUser: ("Go on?", {}),
    Resource: ("guide", "resources/guide.md", "when stuck"), ConventionRef: ("style",),
    Dispatch: ("reviewer",),
}
HERE = re.escape(__file__)


def raised(make: Callable[[], object]) -> FieldError:
    with pytest.raises(FieldError) as info:
        make()
    return info.value


class TestTheMessage:
    def test_a_typo_in_a_step_names_the_field_it_meant_and_the_line(self) -> None:
        """StepDef("a", "A", nxt=...): the type, the unknown field, the closest field, and
        the file and line of the call."""
        error = raised(lambda: StepDef("a", "A", nxt={"ok": None}))  # type: ignore[call-arg]
        assert re.fullmatch(rf"StepDef got an unknown field 'nxt' \({HERE}, line \d+\)\. "
                            r"Did you mean 'next'\?", str(error))
        assert isinstance(error, TypeError) and isinstance(error, SkillrailError)

    @pytest.mark.parametrize(("make", "said"), [
        (lambda: Workflow("w", stepz=[]), "Workflow got an unknown field 'stepz'"),
        (lambda: Arg("K", descrbe="x"), "Arg got an unknown field 'descrbe'"),
        (lambda: Dispatch("a", promt="x"), "Dispatch got an unknown field 'promt'"),
        (lambda: Resource("a", "b", "c", inlin=True), "Resource got an unknown field 'inlin'"),
        (lambda: AskUser("q", option={}), "AskUser got an unknown field 'option'"),
        (lambda: ConventionRef("x", wen="y"), "ConventionRef got an unknown field 'wen'"),
        (lambda: Action(txt="x"), "Action got an unknown field 'txt'"),
        (lambda: Rework("a", 3), "Rework is missing the field 'on_exhausted'"),
        (lambda: Param("p"), "Param is missing the field 'help'"),
        (lambda: StepDef("a"), "StepDef is missing the field 'title'"),
        (lambda: Arg("K", key="x"), "Arg got the field 'key' twice, by position and by name"),
        (lambda: Rework("a", 3, "b", "c", 5), "Rework has 4 fields, but 5 were given"),
    ])
    def test_every_public_type_says_what_does_not_fit(self, make: Callable[[], object],
                                                      said: str) -> None:
        """Unknown, missing, doubled and surplus fields, for each type an author makes."""
        text = str(raised(make))  # type: ignore[arg-type]
        assert text.startswith(f"{said} ({__file__}, line ")
        assert "__new__" not in text

    @given(st.sampled_from(list(NEEDED)), st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True))
    def test_any_unknown_keyword_is_named_with_its_type(self, kind: type, key: str) -> None:
        """Whatever the type and the keyword it does not have: a FieldError naming both."""
        fields: tuple[str, ...] = kind._fields  # type: ignore[attr-defined]
        if key in fields:
            assert kind(*NEEDED[kind][:fields.index(key)], **{key: NEEDED[kind][0]}) is not None
            return
        error = raised(lambda: kind(*NEEDED[kind], **{key: 1}))
        assert str(error).startswith(f"{kind.__name__} got an unknown field '{key}' (")

    def test_another_type_error_is_left_as_it_was(self) -> None:
        """A call whose fields fit but whose values do not is Python's own error."""
        with pytest.raises(TypeError, match="not iterable") as info:
            StepDef("a", "A", actions=5)  # type: ignore[arg-type]
        assert not isinstance(info.value, FieldError)

    def test_fitting_calls_are_unchanged(self) -> None:
        """Positional, keyword and _replace still build the same values."""
        assert Arg("K", "what", False) == Arg(key="K", describe="what", required=False)
        assert Arg("K")._replace(required=False).required is False
        assert Rework("a", 2, "b").max_iterations == 2


TYPO = BOOTSTRAP + '''
from skills.lib.workflow import StepDef, Workflow, main, register_workflow

WORKFLOW = register_workflow(Workflow(name="typo", steps=[
    StepDef("a", "A", nxt={"ok": None}),
]))

if __name__ == "__main__":
    sys.exit(main(WORKFLOW))
'''
#: The line of TYPO that makes the StepDef with the typo.
LINE = TYPO.splitlines().index('    StepDef("a", "A", nxt={"ok": None}),') + 1


def test_a_script_with_a_typo_prints_one_line_when_run(tmp_path: Path) -> None:
    """Run as the agent runs it: exit 1, one error line with the script's line, no
    traceback."""
    script = make_skills(tmp_path, {"typo": TYPO}) / "typo" / "scripts" / "typo.py"
    proc = subprocess.run([sys.executable, str(script), "--step", "1"], capture_output=True,
                          text=True, timeout=60, env=bare_env())
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (f"error: StepDef got an unknown field 'nxt' ({script}, line {LINE}). "
                           "Did you mean 'next'?\n")


def test_validate_reports_the_typo_as_the_scripts_load_error(tmp_path: Path) -> None:
    """`skillrail validate`: the file, then the same message; exit 1, no traceback."""
    root = make_skills(tmp_path, {"typo": TYPO})
    proc = skillrail("validate", "--root", str(root))
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr
    script = root / "typo" / "scripts" / "typo.py"
    assert (f"{script}: StepDef got an unknown field 'nxt' ({script.resolve()}, line {LINE}). "
            "Did you mean 'next'?") in proc.stdout.splitlines()


def bare_env() -> dict[str, str]:
    """A bare environment, as an agent's may be, but for the test's own ledger (conftest's
    SKILLRAIL_HOME): no run lands in the user's ledger."""
    return {"PATH": "/usr/bin:/bin", "SKILLRAIL_HOME": os.environ["SKILLRAIL_HOME"]}
