"""Shared fixtures: the repository's paths and the discovered skills."""

from __future__ import annotations

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
    """Every test gets its own run ledger (SKILLRAIL_HOME), subprocesses included: no test
    touches the user's ledger or sees another test's runs."""
    home = tmp_path_factory.mktemp("ledger")
    monkeypatch.setenv("SKILLRAIL_HOME", str(home))
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
