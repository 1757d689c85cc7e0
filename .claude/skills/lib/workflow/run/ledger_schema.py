"""The run ledger's schema: one SQL script per version, applied in order by `Ledger` (ledger.py).
The version lives in `PRAGMA user_version` and only moves forward; append, never edit. The
running totals `stats` reads (V6, V8) are ledger_totals.py's; PostgreSQL's words for every
version are pgschema.py's, loaded only for a PostgreSQL ledger."""

# The C module alone, as in ledger.py.
import _sqlite3 as sqlite3
from collections.abc import Callable

from .ledger_totals import V6, V8

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


def _script(sql: str, postgres: str = "") -> Callable[[sqlite3.Connection], None]:
    """A migration that runs `sql` statement by statement inside the caller's transaction
    (`executescript` would commit it first); on PostgreSQL (pgstore.Connection), the script
    pgschema.py names `postgres`, the same version in its words ('' before schema 8, which
    pgschema.BASELINE makes whole). Named, so a step on SQLite never imports pgschema."""
    def run(db: sqlite3.Connection) -> None:
        if not isinstance(db, sqlite3.Connection):
            if postgres:
                from . import pgschema

                db.script(getattr(pgschema, postgres))
            return
        for statement in _statements(sql):
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


# V7: how a completed run ended (issue 20): 'success', or 'partial' when its workflow says it
# met only part of what it set out to do (a skill-runner plan that ran out of its budget or left
# steps unmet). NULL while the run is active, for an abandoned run, and for runs completed
# before V7 (read as success).
_V7 = "ALTER TABLE runs ADD COLUMN result TEXT CHECK (result IN ('success', 'partial'))"


# V9 (issue 22): where and by whom a run was started, for `runs --mine` on a ledger a team
# shares. Its workspace, from this version on, names the repository and the project's path in it
# the same on every machine (workspace.py); runs started before keep their folder.
_V9 = """
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN who TEXT;
CREATE INDEX runs_by_host ON runs(host, who, started)
"""


# V10 (issue 26): where a run lives on the machine that started it (`folder`: the project folder,
# resolved), beside its workspace, which names the repository for sharing and is no folder; and
# `gate`: the Claude Code settings file that installed skillrail's hooks when the run started,
# which makes its questions binding for life (guard/askgate.py). NULL for runs started before.
_V10 = """
ALTER TABLE runs ADD COLUMN folder TEXT;
ALTER TABLE runs ADD COLUMN gate TEXT
"""


def _statements(sql: str) -> list[str]:
    """`sql` split into its statements; a trigger, whose body holds ';' too, stays whole."""
    found, pending = [], ""
    for part in sql.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                found.append(pending)
            pending = ""
    return found


#: Migration i brings a database from user_version i to i + 1. Append only.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _script(_V1), _script(_V2), _script(_V3), _script(_V4), _script(_V5), _script(V6),
    _script(_V7), _script(V8, "BASELINE"), _script(_V9, "V9_POSTGRES"),
    _script(_V10, "V10_POSTGRES"))
SCHEMA_VERSION = len(MIGRATIONS)
