"""The framework's shape holds: its modules import one another without a cycle (every import
counts, those inside functions and `if TYPE_CHECKING:` blocks too), the layer contracts of
import-linter pass, a module past 800 lines has been looked at (STYLE.md: one concept per
module, whole; past ~800 lines, look again), every silenced type or lint check says why, and a
step loads none of the libraries kept off its path."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, SKILLS_ROOT

LIB = SKILLS_ROOT / "lib"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SKILLS_ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(path: Path, modules: set[str], me: str | None = None,
                    typing: bool = False) -> set[str]:
    """The framework modules `path` (module `me`) imports at run time, anywhere in it:
    functions included, `if TYPE_CHECKING:` blocks left out (`typing`: counted too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set() if typing else {
        id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
        and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    me = me or module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n for n in names if n in modules and n != me}
    return found


def import_graph(typing: bool = False) -> dict[str, set[str]]:
    paths = [p for p in LIB.rglob("*.py") if "__pycache__" not in p.parts]
    modules = {module_name(p) for p in paths}
    return {module_name(p): runtime_imports(p, modules, typing=typing) for p in paths}


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of `graph` (the standard library's topological sort finds it), or []."""
    from graphlib import CycleError, TopologicalSorter

    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        return list(exc.args[1])
    return []


def test_the_frameworks_modules_import_each_other_without_a_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 80  # the whole framework was read
    assert cycle(graph) == []


def test_no_cycle_either_counting_the_imports_only_type_checkers_run() -> None:
    """The graph's types are one module (graph/model.py), so even `if TYPE_CHECKING:` imports,
    which never run, close no cycle: each module can be read after the ones it names."""
    assert cycle(import_graph(typing=True)) == []


def test_the_cycle_finder_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    """Not blind: a module importing another inside a function closes a cycle all the same,
    and a TYPE_CHECKING import does not."""
    (tmp_path / "a.py").write_text("def f():\n    from . import b\n")
    (tmp_path / "b.py").write_text("from . import a\n")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    from . import a\n")
    modules = {"skills.x.a", "skills.x.b", "skills.x.c"}
    graph = {f"skills.x.{n}": runtime_imports(tmp_path / f"{n}.py", modules, f"skills.x.{n}")
             for n in ("a", "b", "c")}
    assert sorted(set(cycle(graph))) == ["skills.x.a", "skills.x.b"]
    assert graph["skills.x.c"] == set()


@pytest.mark.skipif(shutil.which("lint-imports", path=str(Path(sys.executable).parent)) is None,
                    reason="import-linter is not installed (pip install -e '.[test]')")
def test_the_layer_contracts_hold() -> None:
    """import-linter's contracts (pyproject.toml): each layer imports only the layers below it,
    no layer imports the documented re-export modules above them, and the modules every step
    imports import none of pydantic, yaml, jinja2, lxml and psycopg."""
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def python_files(*folders: Path) -> list[Path]:
    return [p for folder in folders for p in folder.rglob("*.py")
            if "__pycache__" not in p.parts and ".venv" not in p.parts]


#: Modules past 800 lines that were looked at and are one concept whole, and why.
LOOKED_AT = {
    ".claude/skills/lib/workflow/graph/model.py": "a workflow as data: its types refer to one "
    "another, and in one module no import closes a cycle, not even a type-only one",
}


def test_a_module_past_800_lines_has_been_looked_at() -> None:
    """Modules are cut by meaning, not length: one past 800 lines is a prompt to look at it,
    never a reason to cut it by itself. A new one fails here until it has been looked at, and
    the reason it stays whole is written in LOOKED_AT."""
    long = {str(p.relative_to(REPO))
            for p in python_files(SKILLS_ROOT, REPO / "benchmarks", REPO / "tests")
            if len(p.read_text(encoding="utf-8").splitlines()) > 800}
    assert long - set(LOOKED_AT) == set()


def test_design_names_every_module_of_the_framework_and_the_runner() -> None:
    """DESIGN.md's section on the layers names each module where it stands, so a module added
    without a place in the design fails here rather than going unseen."""
    design = (REPO / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    section = design[design.index("## 2. The layers"):design.index("## 3. ")]
    words = set(re.findall(r"\w+", section))
    packages = sorted({p.parent for p in LIB.glob("workflow/*/*.py")})
    unnamed = [str(p.relative_to(LIB)) for p in
               sorted(LIB.glob("workflow/*/*.py")) + sorted(LIB.glob("runner/*.py"))
               if p.stem != "__init__" and p.stem not in words]
    unnamed += [f"{p.name}/ (package)" for p in packages  # a layer, or a documented path
                if f" {p.name}/" not in section and f".{p.name}`" not in section]
    assert unnamed == []


#: A checker's silencer with its reason: type-ignore with its code then `  # why`, or noqa with
#: its codes then ` - why`.
_EXPLAINED = re.compile(r"# type: ignore\[[a-z, -]+\]  # \S|# no" r"qa: [A-Z0-9, ]+ - \S")


def test_every_silenced_check_in_the_framework_says_why() -> None:
    """mypy --strict and ruff run over the framework in CI (pyproject.toml); each place that
    silences one names the check and says why, so a reader can tell a reason from a habit."""
    bare = [f"{p.relative_to(REPO)}:{n}: {line.strip()}"
            for p in python_files(LIB) for n, line in
            enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"#\s*(type:\s*ignore|noqa)", line) and not _EXPLAINED.search(line)]
    assert bare == []


def test_the_silencer_check_tells_a_reason_from_none() -> None:
    ignore, noqa = "# type: " + "ignore", "# " + "noqa"  # not silencers of this file's own
    assert _EXPLAINED.search(f"x = 1  {ignore}[attr-defined]  # lxml has no hints")
    assert _EXPLAINED.search(f"except Exception:  {noqa}: BLE001 - a hook never fails")
    for bare in (f"x  {ignore}", f"x  {ignore}[misc]", f"x  {noqa}: BLE001", f"x  {noqa}"):
        assert not _EXPLAINED.search(bare), bare


PYDANTIC = {"pydantic", "importlib.metadata"}
_INVALID_PLAN = (PYDANTIC, "it reads plan.json, and the simulation's plan for the step's "
                 "'invalid' outcome is invalid: the model words its problems (a valid plan is "
                 "read by planlib/plain.py)")
#: A skill's execution settings: a SKILL.md that sets any (the visit's example skills for simple
#: mode and a forked run do) is read with yaml when its frontmatter is not plain text, and
#: checked with the settings' pydantic model (authoring/execution.py).
_SETTINGS = (PYDANTIC | {"yaml"}, "it reads the skill's execution settings")
#: The steps that may load a library kept off the step path, and why: each reads a document
#: that needs it. (workflow, step) -> (the libraries, the reason).
READS_A_DOCUMENT: dict[tuple[str, str], tuple[set[str], str]] = {
    ("executor", "load"): _INVALID_PLAN,
    ("planner", "check-plan"): _INVALID_PLAN,
    ("planner", "check-diffs"): _INVALID_PLAN,
    ("planner", "check-docs"): _INVALID_PLAN,
    # Sealing writes plan.md again from plan.json; the visit's plan.json there is the one the
    # last check's 'invalid' outcome left.
    ("planner", "seal"): _INVALID_PLAN,
    # The step after the plan's approval: with no check to allow, the run passes on through
    # the seal in the same invocation.
    ("planner", "check"): _INVALID_PLAN,
    ("skill-runner", "approve"): (PYDANTIC | {"yaml"}, "printing it checks its PLAN_FILE arg: "
                                  "lib/runner/plan.py validates the runner's plan with its "
                                  "pydantic model (it has no plain reader), and its run's "
                                  "budget, from the skill's settings (below)"),
    ("skill-runner", "mode"): _SETTINGS,
    ("skill-runner", "seal"): _SETTINGS,
}


def step_path_contract() -> set[str]:
    """The modules pyproject.toml's step-path contract holds to importing none of the heavy
    libraries."""
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in contracts["contracts"] if c["name"].startswith(
        "The modules every --step imports")]
    return set(contract["source_modules"])


def shipped_workflows() -> list[str]:
    from skills.lib.workflow.step.discovery import discover_workflows

    return sorted(wf.name for wf in discover_workflows(SKILLS_ROOT).workflows)


def unexplained(name: str, loaded: dict[str, set[str]]) -> dict[str, list[str]]:
    """Step -> the libraries kept off the step path it loaded that neither READS_A_DOCUMENT
    nor a read of the project's policy file (yaml: the user's file is YAML) explains."""
    from .stepimports_support import PROJECT_POLICY_READ

    allowed = {step: libs for (flow, step), (libs, _) in READS_A_DOCUMENT.items() if flow == name}
    found = {}
    for step, seen in loaded.items():
        libs = seen - {PROJECT_POLICY_READ} - allowed.get(step, set())
        if PROJECT_POLICY_READ in seen:
            libs.discard("yaml")
        if libs:
            found[step] = sorted(libs)
    return found


@pytest.mark.slow  # every step of every skill in a fresh interpreter
@pytest.mark.parametrize("name", shipped_workflows())
def test_no_step_loads_a_library_kept_off_the_step_path(name: str, tmp_path: Path) -> None:
    """What import-linter checks in the code, measured in running steps: every step of every
    shipped workflow (the entry step, and every step a run goes on to), printed by its script
    as an agent runs it, imports none of pydantic, yaml, jinja2, lxml, psycopg and
    importlib.metadata, except where READS_A_DOCUMENT says which step reads which document
    that needs one (psycopg: on the SQLite ledger, which these steps use). A step
    that runs a command through the gateway reads the shipped policy from gateway.json."""
    from skills.lib.workflow.authoring.registry import registered

    from .stepimports_support import StepVisit

    wf = registered()[name]
    visit = StepVisit(wf, tmp_path)
    loaded = visit.run()
    assert sorted(set(wf.by_id) - set(loaded)) == []  # every step was printed
    # Every framework module a step loaded is in the step path's import contract.
    assert sorted(visit.framework() - step_path_contract()) == []
    assert unexplained(name, loaded) == {}
    stale = [step for (flow, step), (libs, _) in READS_A_DOCUMENT.items()
             if flow == name and not loaded.get(step, set()) & libs]
    assert stale == []  # each exception is still needed


#: A project policy file (.claude/skillrail.yaml) in the folder the steps run from.
PROJECT_POLICY = """\
version: 2
timeout: 5
programs:
  git:
    subcommands:
      count-objects: {options: {-v: flag}, operands: none}
"""


@pytest.mark.slow  # steps in fresh interpreters
def test_a_step_checks_a_project_policy_file_without_pydantic(tmp_path: Path) -> None:
    """A step that runs a command through the gateway in a project with its own policy file
    reads that file (with yaml: it is the user's YAML) and checks it with the standard library
    (guard/gatecheck.py), not pydantic: commit-message's steps, of which the first runs git."""
    from skills.lib.workflow.authoring.registry import registered

    from .stepimports_support import PROJECT_POLICY_READ, StepVisit

    shipped_workflows()  # registers them
    loaded = StepVisit(registered()["commit-message"], tmp_path, PROJECT_POLICY).run()
    assert [step for step, seen in loaded.items() if PROJECT_POLICY_READ in seen] != []
    assert unexplained("commit-message", loaded) == {}


def test_an_old_module_path_is_the_module_at_its_new_one_and_warns() -> None:
    """Until the next release, `skills.lib.workflow.gateway` and its kin still import: the same
    module object as at the new path (one registry, one ledger class), with a warning."""
    import importlib

    from skills.lib.workflow.base.relocations import MOVED

    for old, new in [("gateway", "guard.gateway"), ("formatters.xml", "protocol.xml"),
                     ("hooks.rules", "guard.rules"), ("run.routing", "step.routing"),
                     ("run.ledger", "ledger.store")]:
        assert MOVED[old] == new
        for name in (old, old.rpartition(".")[0]):
            if name in MOVED:  # an alias only: a real package stays as it is
                sys.modules.pop(f"skills.lib.workflow.{name}", None)
        with pytest.warns(DeprecationWarning) as warned:
            aliased = importlib.import_module(f"skills.lib.workflow.{old}")
        assert any(f"moved to skills.lib.workflow.{new};" in str(w.message) for w in warned)
        real = importlib.import_module(f"skills.lib.workflow.{new}")
        assert aliased is real and real.__spec__ is not None
        assert real.__spec__.name == f"skills.lib.workflow.{new}"


def test_every_package_of_the_framework_is_in_the_distribution() -> None:
    """pyproject.toml names the packages a `pip install` ships: a package missing there (a
    folder split or renamed) breaks every installation, and only an install would say so."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    root = REPO / ".claude"
    found = {str(init.parent.relative_to(root)).replace("/", ".")
             for init in (root / "skills" / "lib").rglob("__init__.py")}
    assert sorted(found - listed) == []
    assert sorted(name for name in listed if not (root / name.replace(".", "/")).is_dir()) == []


def test_the_ledger_module_that_became_a_package_still_gives_its_names_and_warns() -> None:
    """`skills.lib.workflow.ledger` was the store's module; it is the ledger package now, and an
    old `from skills.lib.workflow.ledger import Ledger` gets the store's class, with a warning.
    A name the store never had is an AttributeError, as from any module."""
    from skills.lib.workflow.ledger import store

    with pytest.warns(DeprecationWarning, match=r"ledger\.Ledger moved to .*ledger\.store\.Ledger"):
        from skills.lib.workflow.ledger import Ledger
    assert Ledger is store.Ledger
    with pytest.raises(ImportError):
        from skills.lib.workflow.ledger import NoSuchName  # noqa: F401 - the import is the test


def test_the_documented_paths_import_without_a_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from skills.lib.workflow.graph import fingerprint  # noqa: F401
        from skills.lib.workflow.protocol import PROTOCOL_VERSION  # noqa: F401
        from skills.lib.workflow.types import Rework  # noqa: F401
