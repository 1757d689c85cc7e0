"""The run ledger's schema: one SQL script per version, applied in order by `Ledger` (ledger.py).
The version lives in `PRAGMA user_version` and only moves forward; append, never edit."""

import sqlite3
from collections.abc import Callable

_V1 = """
CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    skill       TEXT NOT NULL,
    workflow    TEXT NOT NULL,
    script      TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    workspace   TEXT NOT NULL,
    session     TEXT,
    status      TEXT NOT NULL CHECK (status IN ('active', 'completed', 'abandoned')),
    parent      TEXT REFERENCES runs(id),
    step        TEXT NOT NULL,
    decided     TEXT,
    hops        INTEGER NOT NULL,
    started     REAL NOT NULL,
    updated     REAL NOT NULL
);
CREATE INDEX runs_by_workspace ON runs(workspace, status);
CREATE TABLE params (
    run   TEXT NOT NULL REFERENCES runs(id),
    name  TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run, name)
);
CREATE TABLE transitions (
    run     TEXT NOT NULL REFERENCES runs(id),
    seq     INTEGER NOT NULL,
    source  TEXT NOT NULL,
    outcome TEXT NOT NULL,
    target  TEXT NOT NULL,
    at      REAL NOT NULL,
    PRIMARY KEY (run, seq)
);
CREATE TABLE memory (
    run   TEXT NOT NULL REFERENCES runs(id),
    key   TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    step  TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run, key, seq)
);
CREATE TABLE loops (
    run   TEXT NOT NULL REFERENCES runs(id),
    edge  TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (run, edge)
);
CREATE TABLE events (
    run    TEXT NOT NULL REFERENCES runs(id),
    at     REAL NOT NULL,
    kind   TEXT NOT NULL,
    detail TEXT NOT NULL
);
"""

# V2: what the Claude Code hooks (hooks/) keep per agent session. `turns`: when the user last
# spoke in a session (recorded by the UserPromptSubmit hook; its presence is also the sign that
# hooks run for that session, see sessions.py); `agents`: the sub-run a sub-agent works in.
# Pauses are events ('pause', 'unpause') of the run, so they show in its trace.
_V2 = """
CREATE TABLE turns (
    session TEXT PRIMARY KEY,
    first   REAL NOT NULL,
    last    REAL NOT NULL
);
CREATE TABLE agents (
    session TEXT NOT NULL,
    agent   TEXT NOT NULL,
    run     TEXT NOT NULL REFERENCES runs(id),
    PRIMARY KEY (session, agent)
);
CREATE INDEX runs_by_session ON runs(session, status);
"""


def _script(sql: str) -> Callable[[sqlite3.Connection], None]:
    """A migration that runs `sql` statement by statement inside the caller's transaction
    (`executescript` would commit it first)."""
    def run(db: sqlite3.Connection) -> None:
        for statement in sql.split(";"):
            if statement.strip():
                db.execute(statement)
    return run


# V3: what skill-runner learns per target skill (learned.py): the steps and key outputs of runs
# that passed, the evaluator findings that failed, and the user's feedback.
_V3 = """
CREATE TABLE cases (
    skill  TEXT NOT NULL,
    run    TEXT NOT NULL REFERENCES runs(id),
    kind   TEXT NOT NULL CHECK (kind IN ('success', 'failure', 'feedback')),
    at     REAL NOT NULL,
    text   TEXT NOT NULL
);
CREATE INDEX cases_by_skill ON cases(skill, at)
"""


# V4: the user's turns moved to the evidence store (evidence.py), which the agent's Bash cannot
# write: a gate whose evidence sat in this file could be answered with an UPDATE.
_V4 = "DROP TABLE turns"


# V5: indexes on what the listings filter and sort by, so that `skillrail runs`, `status` and
# `stats` read what they show rather than every run (issue 17): runs newest first, overall and
# per skill and per status (the active runs of a workspace use V1's runs_by_workspace); a run's
# sub-runs; a run's events in time order (trace, the hooks' pause check, the injected-command
# cache a step reads).
_V5 = """
CREATE INDEX runs_by_started ON runs(started);
CREATE INDEX runs_by_skill ON runs(skill, started);
CREATE INDEX runs_by_status ON runs(status, started);
CREATE INDEX runs_by_parent ON runs(parent, started);
CREATE INDEX events_by_run ON events(run, at)
"""


#: Migration i brings a database from user_version i to i + 1. Append only.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _script(_V1), _script(_V2), _script(_V3), _script(_V4), _script(_V5))
SCHEMA_VERSION = len(MIGRATIONS)
