"""Registration is validation: every finding of a workflow at once, did-you-mean in every
name a finding quotes, and a registry that refuses a second workflow of the same name from
another script."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from skills.lib.workflow import (
    Arg,
    InvalidWorkflow,
    StepDef,
    Workflow,
    register_workflow,
    registered,
)
from skills.lib.workflow.authoring.registry import unregister
from skills.lib.workflow.base.errors import FieldError
from skills.lib.workflow.graph.model import marked

from .validate_support import Register, end, refused, where


class TestAllFindingsAtOnce:
    """One InvalidWorkflow carries every problem."""

    def test_several_problems_are_reported_together(self, register: Register) -> None:
        """A workflow with many faults lists each, in one error, each with its own code."""
        wf = Workflow("many-faults", [
            StepDef("start", "S", next={"ok": "fnish"}, args=[Arg("cause", "c")]),
            StepDef("orphan", "O", next={"ok": None}),
            StepDef("stuck", "Stuck"),
        ])
        found = refused(register, wf, r"workflow 'many-faults' has \d+ problems")
        assert {"W003", "W004", "W005", "W015"} <= {f.code for f in found}
        assert ("start", "ok") in where(found, "W003")
        assert {("orphan", None), ("stuck", None)} <= where(found, "W004")
        assert where(found, "W005") == {("stuck", None)}

    def test_each_finding_is_one_line_of_the_error(self, register: Register) -> None:
        """The error's text is a summary line and then one indented line per finding."""
        wf = Workflow("faults-lines", [StepDef("start", "S", next={"ok": "nowhere"}),
                                       end("orphan")])
        with pytest.raises(InvalidWorkflow) as caught:
            register(wf)
        lines = str(caught.value).split("\n")
        assert lines[0].startswith("workflow 'faults-lines' has 3 problems")
        assert lines[1:] == [f"  {f}" for f in caught.value.findings]
        assert len(caught.value.findings) == 3


class TestDidYouMean:
    """Misspelt names get the closest real one."""

    def test_misspelt_target_suggests_the_step(self, register: Register) -> None:
        """'revew' is answered with 'review'."""
        wf = Workflow("typo-target", [
            StepDef("start", "S", next={"ok": "revew"}),
            StepDef("review", "R", next={"ok": None})])
        found = refused(register, wf, re.escape("Did you mean 'review'?"))
        assert [f.fix for f in found if f.code == "W003"] == [
            "Name an existing step, or None to end the run. Did you mean 'review'?"]

    def test_far_off_target_suggests_nothing(self, register: Register) -> None:
        """A name close to no step gets no suggestion."""
        wf = Workflow("far-target", [StepDef("start", "S", next={"ok": "xyzzy"}),
                                     end("review")])
        found = refused(register, wf, r"routes to 'xyzzy'")
        assert not any("Did you mean" in f.fix for f in found)


class TestRegistry:
    """Registering adds a valid workflow; a name is owned by one source file."""

    def test_valid_workflow_registers(self) -> None:
        """A valid workflow is registered under its name, with the defining file recorded."""
        wf = register_workflow(Workflow("valid-flow", [StepDef("start", "S", next={"ok": "end"}),
                                                       end()]))
        try:
            assert registered()["valid-flow"] is wf
            assert wf.source == str(Path(__file__).resolve())
        finally:
            unregister("valid-flow")

    def test_duplicate_name_from_another_file_is_refused(self, register: Register) -> None:
        """A second workflow of the same name from a different script is W001."""
        register(marked(Workflow("shared-name", [end()]), source="/skills/one/scripts/one.py"))
        other = marked(Workflow("shared-name", [end()]), source="/skills/two/scripts/two.py")
        with pytest.raises(InvalidWorkflow, match=r"W001 workflow 'shared-name': duplicate "
                                                  r"workflow name, already registered from "
                                                  r"/skills/one/scripts/one\.py\. Give one of "
                                                  r"the workflows another name"):
            register(other)
        assert registered()["shared-name"].source == "/skills/one/scripts/one.py"

    def test_same_name_from_the_same_file_replaces(self, register: Register) -> None:
        """Re-importing a script registers its workflow again, replacing the old one."""
        first = register(marked(Workflow("reimported", [end()]), source="/skills/a/scripts/a.py"))
        again = register(marked(Workflow("reimported", [end("finish")]),
                                source="/skills/a/scripts/a.py"))
        assert registered()["reimported"] is again is not first


class TestWorkflowIsImmutable:
    """What a Workflow derives from its steps (`by_id`) is built once, so it must not change."""

    def test_a_workflow_refuses_an_attribute(self) -> None:
        """Nothing can be set on a workflow, a field or any other name."""
        wf = Workflow("frozen", [end()])
        with pytest.raises(AttributeError, match=r"a Workflow is immutable; _replace\(extra="):
            wf.extra = 1  # type: ignore[attr-defined]
        with pytest.raises(AttributeError):
            wf.name = "thawed"  # type: ignore[misc]

    def test_a_replaced_workflow_looks_up_its_own_steps(self) -> None:
        """`_replace` makes a new workflow whose lookup is its own; the first keeps its own."""
        wf = Workflow("before", [end("start")])
        assert list(wf.by_id) == ["start"]
        other = wf._replace(steps=(end("finish"),))
        assert list(other.by_id) == ["finish"]
        assert list(wf.by_id) == ["start"]

    def test_the_lookup_is_read_only(self) -> None:
        """A caller cannot add a step to the shared lookup."""
        wf = Workflow("lookup", [end()])
        with pytest.raises(TypeError):
            wf.by_id["end"] = end("other")  # type: ignore[index]


class TestTheFrameworksMarks:
    """What the framework records on a step or a workflow (a review-loop role, the defining
    script, a generated or adapted origin) is not a field an author can pass."""

    def test_an_author_cannot_pass_a_mark(self) -> None:
        """`qr=` and `source=` are unknown keywords to an author, named in the error."""
        with pytest.raises(FieldError, match=r"StepDef.*\bqr\b"):
            StepDef("s", "S", next={"ok": None}, qr=None)  # type: ignore[call-arg]
        with pytest.raises(FieldError, match=r"Workflow.*\bsource\b"):
            Workflow("w", [end()], source="/x.py")  # type: ignore[call-arg]
        assert "qr" not in StepDef._fields and "generated" not in Workflow._fields

    def test_a_copy_keeps_its_marks_and_an_edit_cannot_set_one(self) -> None:
        """`_replace` carries the marks to the copy; setting one is refused like a field."""
        wf = marked(Workflow("marked", [end()]), source="/s/scripts/s.py", generated=True)
        copy = wf._replace(description="changed")
        assert (copy.source, copy.generated, copy.legacy) == ("/s/scripts/s.py", True, False)
        assert Workflow("plain", [end()]).source == ""
        with pytest.raises(AttributeError, match=r"immutable"):
            wf.source = "/elsewhere.py"  # type: ignore[misc]
        with pytest.raises(TypeError, match=r"Workflow has no mark qr"):
            marked(wf, qr=None)

    def test_a_review_loop_marks_each_of_its_steps(self) -> None:
        """qr_loop marks its work, review, gate and escalation steps with their roles, and an
        author's own steps carry none."""
        from skills.lib.workflow import Rework, qr_loop
        work = StepDef("draft", "Draft", actions=["Write it."], next={"ok": "review"})
        review = StepDef("review", "Review", actions=["Review it."], next={"ok": None})
        steps = qr_loop("notes", work=work, review=review, on_pass="done", limit=2)
        roles = {s.id: s.qr.role for s in steps if s.qr is not None}
        assert roles == {"draft": "work", "review": "review", "notes-gate": "gate",
                         "notes-escalate": "escalate"}
        assert work.qr is None and isinstance(steps[2].next["fail"], Rework)


class TestTheDocumentedForm:
    """`Workflow("name", StepDef(...), StepDef(...))`, the form the original system documented,
    is the same workflow as the keyword form (issue 18 starts here)."""

    def test_steps_after_the_name_are_the_steps(self) -> None:
        first = StepDef(id="one", title="One", actions=["Do one."], next={"ok": "end"})
        positional = Workflow("documented", first, end(), description="two steps")
        assert positional == Workflow("documented", steps=[first, end()],
                                      description="two steps")
        assert positional.entry == "one" and list(positional.by_id) == ["one", "end"]

    def test_steps_given_twice_are_refused(self) -> None:
        with pytest.raises(TypeError, match=r"either after the name or as steps=\[\.\.\.\], "
                                            r"not both"):
            Workflow("twice", end(), steps=[end()])

    def test_a_name_alone_is_a_workflow_without_steps_that_registration_refuses(self) -> None:
        with pytest.raises(InvalidWorkflow, match="W002 workflow 'bare': the workflow has no "
                                                  "steps"):
            register_workflow(Workflow("bare"))
