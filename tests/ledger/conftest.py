"""Fixtures of the ledger tests: each test gets its own skill script and ledger file."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import write_script


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """This test's own copy of the skill script (tests that rewrite it touch no other test)."""
    return write_script(tmp_path / "chain" / "scripts" / "chain.py")


@pytest.fixture
def ledger_file(ledger_home: Path) -> Path:
    """Where the step scripts of this test keep their ledger."""
    return ledger_home / "runs.sqlite3"


# -- running steps ---------------------------------------------------------------------------

