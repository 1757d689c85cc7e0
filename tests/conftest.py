"""Shared fixtures: the repository's paths and the discovered skills."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SKILLS_ROOT = REPO / ".claude" / "skills"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO
