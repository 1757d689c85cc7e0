"""Shared fixtures: the repository's paths and the discovered skills."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from skills.lib.workflow import Workflow, register_workflow
from skills.lib.workflow.authoring.registry import unregister

REPO = Path(__file__).resolve().parents[1]
SKILLS_ROOT = REPO / ".claude" / "skills"

# pg_server and pg_url: a throwaway PostgreSQL server, started only for the tests that ask.
pytest_plugins = ["tests.pgfixtures"]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(autouse=True)
def ledger_home(tmp_path_factory: pytest.TempPathFactory,
                monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own run ledger (SKILLRAIL_HOME) and Codex folder (CODEX_HOME),
    subprocesses included: no test touches the user's ledger or config, or sees another
    test's runs."""
    home = tmp_path_factory.mktemp("ledger")
    monkeypatch.setenv("SKILLRAIL_HOME", str(home))
    # Nor the user's Codex config, which `hooks install --client codex` records trust in.
    monkeypatch.setenv("CODEX_HOME", str(home / "codex"))
    # Runs answer their questions as the test says, wherever the suite runs: a CI service's
    # `CI` would make every run stop at its first question (guard/askgate.unattended).
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("SKILLRAIL_UNATTENDED", raising=False)
    return home


@pytest.fixture
def register() -> Iterator[Callable[[Workflow], Workflow]]:
    """register_workflow, with every name it was given dropped from the registry afterwards."""
    names: list[str] = []

    def add(wf: Workflow) -> Workflow:
        names.append(wf.name)
        return register_workflow(wf)

    yield add
    for name in names:
        unregister(name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """With SKILLRAIL_NO_SKIP=1 (CI sets it, .ci/run), a skipped test fails: every claim a user
    relies on (bubblewrap, PostgreSQL, Graphviz, Chromium, the real Claude Code client) is
    exercised on every landing, never quietly left out because a tool was missing."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("SKILLRAIL_NO_SKIP") == "1" and \
            not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped where SKILLRAIL_NO_SKIP=1 forbids it: {reason}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """What `-m "not slow"` leaves out beside the tests marked so: the real client's tests
    and every test on a PostgreSQL server (a ledger test's postgres backend included)."""
    for item in items:
        params = getattr(item, "callspec", None)
        if ("realclient" in item.path.parts
                or {"pg_server", "pg_url"} & set(getattr(item, "fixturenames", ()))
                or (params is not None
                    and {"postgres", "postgresql"} & {str(v) for v in params.params.values()})):
            item.add_marker(pytest.mark.slow)
