"""Shared fixtures: the repository's paths and the discovered skills."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SKILLS_ROOT = REPO / ".claude" / "skills"


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
