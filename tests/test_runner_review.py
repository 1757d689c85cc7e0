"""skill-runner, as a review found it: a step's used-up retries are counted in good English
(one pluralizer for the runner), and a simple run of a skill that is not there is refused in
one line, not with a traceback."""

from __future__ import annotations

import ast
import importlib.util
import json
import shlex
import sys
from pathlib import Path

import pytest
from skills.lib.workflow.graph.model import Rework
from skills.lib.workflow.protocol.reading import decided as read_decided

from .conftest import SKILLS_ROOT
from .harness import first_action
from .test_planner import Agent
from .test_skill_runner import long_plan, plan_to_approval, refused

RUN_STEPS = SKILLS_ROOT / "skill-runner" / "scripts" / "run-steps.py"
#: The name of a skill's default budget, and the one module that may assign it.
BUDGET = "DEFAULT_ITERATIONS"
EXECUTION = str(Path("lib", "workflow", "authoring", "execution.py"))
SAMPLE_PLAN = SKILLS_ROOT / "skill-runner" / "resources" / "sample-plan.json"


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return Agent(tmp_path)


def test_a_step_whose_retries_are_used_up_says_retries(agent: Agent) -> None:
    """A plan step that fails every attempt: after its 3 retries (the default) the printed
    step says 'retries', never 'retrys', on its way to asking the user."""
    sealed = agent.follow(plan_to_approval(agent, long_plan(1)), "approve")
    doc = agent.run(shlex.split(first_action(sealed).split("follow the steps it prints: ")[1]))
    for attempt in range(4):
        assert doc.get("id") == "part-1", attempt
        doc = agent.follow(agent.follow(doc, RESULT_PART_1="done"), "fail",
                           FINDINGS_PART_1="not written")
        doc = agent.follow(doc, CHANGE_PART_1=f"approach {attempt}")
    assert doc.get("id") == "part-1-escalate"
    said = {d.step: d.note for d in read_decided(doc)}
    assert said["part-1-again"] == "This step's 3 retries are used up: the user decides."
    assert "retrys" not in agent.printed[-1]
    assert "failed 4 times" in doc.findtext("DO/ask_user/question", "")


def test_the_runners_pluralizer_knows_retries() -> None:
    from skills.lib.runner.target import times

    assert [times(1, "retry", "retries"), times(3, "retry", "retries"), times(1, "time"),
            times(2, "time")] == ["1 retry", "3 retries", "1 time", "2 times"]
    assert sys.modules["skills.lib.runner.target"].__dict__.get("_times") is None


@pytest.mark.parametrize("given", [["--skill=nonexistent"], ["--skill", "nonexistent"]])
def test_a_simple_run_of_no_skill_is_refused_in_one_line(given: list[str],
                                                         tmp_path: Path) -> None:
    """The simple run's workflow is built from the skill's SKILL.md when the script loads:
    a --skill naming none is refused as --skill's own check words it (exit 2, one line), not
    with the FileNotFoundError of reading it."""
    error = refused([sys.executable, str(RUN_STEPS), "--step", "step-1", *given], tmp_path)
    assert error.startswith("error: --skill is refused: no SKILL.md in 'nonexistent'"), error
    assert error.rstrip().endswith("Fix the value and run the command again")


def test_the_default_budget_is_one_constant() -> None:
    """DEFAULT_ITERATIONS is assigned once, in the settings' module, and every other module
    that names it imports it from there: read from the source, since a second `= 15` anywhere
    holds an int equal (and, cached by CPython, identical) to the first."""
    assigned: list[str] = []
    imported: dict[str, str] = {}
    for path in sorted(SKILLS_ROOT.rglob("*.py")):
        where, text = str(path.relative_to(SKILLS_ROOT)), path.read_text(encoding="utf-8")
        if BUDGET not in text:  # no module binds a name it never spells
            continue
        for node in ast.walk(ast.parse(text, where)):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
                assigned += [where] * names.count(BUDGET)
            elif isinstance(node, ast.ImportFrom) and any(
                    (a.asname or a.name) == BUDGET for a in node.names):
                imported[where] = imported_module(path, node)
    assert assigned == [EXECUTION]
    assert imported and set(imported.values()) == {"skills.lib.workflow.authoring.execution"}, \
        imported


def test_the_default_budget_follows_its_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """With DEFAULT_ITERATIONS changed where it is defined, a plan that names no budget gets
    the new one from the plan model's default and from the plan run's fallback (its shared
    counter of attempts); the settings' defaults are that constant's."""
    from skills.lib.runner.learn import learner
    from skills.lib.runner.plan import plan_model
    from skills.lib.workflow import Param
    from skills.lib.workflow.authoring import execution

    assert execution.Settings().max_iterations == execution.DEFAULT_ITERATIONS
    assert execution.settings_model().model_fields["max_iterations"].default == \
        execution.DEFAULT_ITERATIONS
    changed = execution.DEFAULT_ITERATIONS + 22
    monkeypatch.setattr(execution, "DEFAULT_ITERATIONS", changed)
    assert plan_model.__wrapped__().model_fields["budget"].default == changed
    spec = importlib.util.spec_from_file_location("skills.lib.runner.build_afresh",
                                                  SKILLS_ROOT / "lib" / "runner" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)  # its imports read the constant as it is now
    plan = json.loads(SAMPLE_PLAN.read_text(encoding="utf-8"))
    del plan["budget"]
    workflow = build.plan_workflow(plan, learner(plan), Param("plan", "the plan"))
    caps = {edge.max_iterations for edge in workflow.by_id["next"].next.values()
            if isinstance(edge, Rework)}
    assert caps == {changed}


def imported_module(path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module `node` (in the file at `path`) imports from."""
    if node.level == 0:
        return node.module or ""
    package = ("skills", *path.relative_to(SKILLS_ROOT).parent.parts)
    base = package[:len(package) - node.level + 1]
    return ".".join((*base, *([node.module] if node.module else [])))
