"""The run ledger's schema: one SQL script per version, applied in order by `Ledger` (store.py).
The version lives in `PRAGMA user_version` and only moves forward; append, never edit. The
running totals `stats` reads (listing.totals) are V6 and V8: kept by triggers in the
transaction that records each move, loop pass or end of a run. PostgreSQL's words for every
version are pgschema.py's, loaded only for a PostgreSQL ledger."""

# The C module alone, as in store.py.
import _sqlite3 as sqlite3
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


# V6: the running totals `skillrail stats` reads (listing.totals), kept by triggers in the
# transaction that records each move or loop pass, so stats reads a few small tables instead
# of grouping every transition of every run. Per skill and workflow: how often each move was
# made; how many runs left each step at least once; per rework edge, the runs that took it, the
# sum of their counts and the largest. A loop count only grows, and it is written with INSERT OR
# REPLACE: the BEFORE trigger still sees the row it replaces ('was'). Filled from the ledger first.
V6 = """
CREATE TABLE move_totals (
    skill TEXT NOT NULL, workflow TEXT NOT NULL, source TEXT NOT NULL, outcome TEXT NOT NULL,
    target TEXT NOT NULL, moves INTEGER NOT NULL,
    PRIMARY KEY (skill, workflow, source, outcome, target)
) WITHOUT ROWID;
CREATE TABLE departure_totals (
    skill TEXT NOT NULL, workflow TEXT NOT NULL, step TEXT NOT NULL, runs INTEGER NOT NULL,
    PRIMARY KEY (skill, workflow, step)
) WITHOUT ROWID;
CREATE TABLE loop_totals (
    skill TEXT NOT NULL, workflow TEXT NOT NULL, edge TEXT NOT NULL, runs INTEGER NOT NULL,
    passes INTEGER NOT NULL, most INTEGER NOT NULL,
    PRIMARY KEY (skill, workflow, edge)
) WITHOUT ROWID;
CREATE INDEX runs_by_skill_status ON runs(skill, status);
INSERT INTO move_totals SELECT r.skill, r.workflow, t.source, t.outcome, t.target, COUNT(*)
    FROM transitions t JOIN runs r ON r.id = t.run GROUP BY 1, 2, 3, 4, 5;
INSERT INTO departure_totals SELECT r.skill, r.workflow, t.source, COUNT(DISTINCT t.run)
    FROM transitions t JOIN runs r ON r.id = t.run GROUP BY 1, 2, 3;
INSERT INTO loop_totals SELECT r.skill, r.workflow, l.edge, COUNT(*), SUM(l.count),
    MAX(l.count) FROM loops l JOIN runs r ON r.id = l.run GROUP BY 1, 2, 3;
CREATE TRIGGER move_total AFTER INSERT ON transitions BEGIN
    INSERT INTO move_totals SELECT skill, workflow, NEW.source, NEW.outcome, NEW.target, 1
        FROM runs WHERE id = NEW.run
        ON CONFLICT (skill, workflow, source, outcome, target) DO UPDATE SET moves = moves + 1;
END;
CREATE TRIGGER departure_total BEFORE INSERT ON transitions
WHEN NOT EXISTS (SELECT 1 FROM transitions WHERE run = NEW.run AND source = NEW.source) BEGIN
    INSERT INTO departure_totals SELECT skill, workflow, NEW.source, 1
        FROM runs WHERE id = NEW.run
        ON CONFLICT (skill, workflow, step) DO UPDATE SET runs = runs + 1;
END;
CREATE TRIGGER loop_total BEFORE INSERT ON loops BEGIN
    INSERT INTO loop_totals SELECT r.skill, r.workflow, NEW.edge, was.count IS NULL,
        NEW.count - COALESCE(was.count, 0), NEW.count
        FROM runs r LEFT JOIN loops was ON was.run = NEW.run AND was.edge = NEW.edge
        WHERE r.id = NEW.run
        ON CONFLICT (skill, workflow, edge) DO UPDATE SET runs = runs + excluded.runs,
            passes = passes + excluded.passes, most = MAX(most, excluded.most);
END
"""



#: A run as the listings show it: its status, 'partial' for a run completed with part done.
#: Schema 8 indexes this expression and listing.py queries it, so both must read the same;
#: never edit it (the index of an existing ledger was built from it).
RUN_STATE = "CASE WHEN result = 'partial' THEN 'partial' ELSE status END"
#: The memory keys that say what a retry does differently (skill-runner's CHANGE_<step>).
_CHANGE = "key >= 'CHANGE_' AND key < 'CHANGE`'"

# V8: what `skillrail stats` says of outcomes and recoveries (issue 20), kept like V6's totals.
# The listings filter and count by state (RUN_STATE), so `runs --status partial` and stats
# read indexes. end_totals: per skill, workflow and how a run ended (success, partial,
# abandoned), the runs and their iterations, each 1 + the sum of its loop counters, taken when
# the run stops being active (its counters no longer move). check_totals: per step, the moves
# out of it with outcome 'fail', and how many of them a later 'ok' move out of the same step of
# the same run followed (recovered); open_failures holds a run's failures not followed yet.
# change_totals: per recovering step, the first CHANGE_* value the run recorded after each
# recovered failure and before the pass, and how often.
V8 = f"""
DROP INDEX runs_by_status;
DROP INDEX runs_by_skill_status;
CREATE INDEX runs_by_state ON runs({RUN_STATE}, started);
CREATE INDEX runs_by_skill_result ON runs(skill, status, result);
CREATE TABLE end_totals (
    skill TEXT NOT NULL, workflow TEXT NOT NULL, state TEXT NOT NULL, runs INTEGER NOT NULL,
    iterations INTEGER NOT NULL,
    PRIMARY KEY (skill, workflow, state)
) WITHOUT ROWID;
CREATE TABLE check_totals (
    skill TEXT NOT NULL, workflow TEXT NOT NULL, step TEXT NOT NULL, failures INTEGER NOT NULL,
    recovered INTEGER NOT NULL,
    PRIMARY KEY (skill, workflow, step)
) WITHOUT ROWID;
CREATE TABLE change_totals (
    skill TEXT NOT NULL, workflow TEXT NOT NULL, step TEXT NOT NULL, key TEXT NOT NULL,
    value TEXT NOT NULL, recoveries INTEGER NOT NULL,
    PRIMARY KEY (skill, workflow, step, key, value)
) WITHOUT ROWID;
CREATE TABLE open_failures (
    run TEXT NOT NULL, step TEXT NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (run, step, seq)
) WITHOUT ROWID;
INSERT INTO end_totals SELECT skill, workflow, CASE WHEN status = 'abandoned' THEN status
    WHEN result = 'partial' THEN result ELSE 'success' END, COUNT(*),
    SUM(1 + COALESCE((SELECT SUM(count) FROM loops WHERE run = runs.id), 0))
    FROM runs WHERE status != 'active' GROUP BY 1, 2, 3;
CREATE TEMP TABLE failed AS SELECT t.run, t.source, t.seq, (SELECT MIN(p.seq) FROM transitions
    p WHERE p.run = t.run AND p.source = t.source AND p.outcome = 'ok' AND p.seq > t.seq)
    AS passed FROM transitions t WHERE t.outcome = 'fail';
INSERT INTO check_totals SELECT r.skill, r.workflow, f.source, COUNT(*), COUNT(f.passed)
    FROM failed f JOIN runs r ON r.id = f.run GROUP BY 1, 2, 3;
INSERT INTO change_totals SELECT r.skill, r.workflow, f.source, m.key, m.value, COUNT(*)
    FROM failed f JOIN runs r ON r.id = f.run JOIN memory m ON m.rowid = (SELECT rowid FROM
    memory WHERE run = f.run AND {_CHANGE} AND seq > f.seq AND seq < f.passed
    ORDER BY seq, rowid LIMIT 1) GROUP BY 1, 2, 3, 4, 5;
INSERT INTO open_failures SELECT f.run, f.source, f.seq FROM failed f JOIN runs r
    ON r.id = f.run WHERE f.passed IS NULL AND r.status = 'active';
DROP TABLE temp.failed;
CREATE TRIGGER end_total AFTER UPDATE OF status ON runs
WHEN OLD.status = 'active' AND NEW.status != 'active' BEGIN
    INSERT INTO end_totals VALUES (NEW.skill, NEW.workflow, CASE WHEN NEW.status =
        'abandoned' THEN NEW.status WHEN NEW.result = 'partial' THEN NEW.result
        ELSE 'success' END, 1,
        1 + COALESCE((SELECT SUM(count) FROM loops WHERE run = NEW.id), 0))
        ON CONFLICT (skill, workflow, state) DO UPDATE SET runs = runs + 1,
            iterations = iterations + excluded.iterations;
    DELETE FROM open_failures WHERE run = NEW.id;
END;
CREATE TRIGGER check_failed AFTER INSERT ON transitions WHEN NEW.outcome = 'fail' BEGIN
    INSERT INTO check_totals SELECT skill, workflow, NEW.source, 1, 0 FROM runs
        WHERE id = NEW.run
        ON CONFLICT (skill, workflow, step) DO UPDATE SET failures = failures + 1;
    INSERT INTO open_failures VALUES (NEW.run, NEW.source, NEW.seq);
END;
CREATE TRIGGER check_recovered AFTER INSERT ON transitions WHEN NEW.outcome = 'ok' AND EXISTS
    (SELECT 1 FROM open_failures WHERE run = NEW.run AND step = NEW.source) BEGIN
    INSERT INTO change_totals SELECT r.skill, r.workflow, NEW.source, m.key, m.value, COUNT(*)
        FROM open_failures f JOIN runs r ON r.id = f.run JOIN memory m ON m.rowid = (SELECT
        rowid FROM memory WHERE run = NEW.run AND {_CHANGE} AND seq > f.seq
        AND seq < NEW.seq ORDER BY seq, rowid LIMIT 1)
        WHERE f.run = NEW.run AND f.step = NEW.source GROUP BY m.key, m.value
        ON CONFLICT (skill, workflow, step, key, value) DO UPDATE SET
            recoveries = recoveries + excluded.recoveries;
    UPDATE check_totals SET recovered = recovered + (SELECT COUNT(*) FROM open_failures
        WHERE run = NEW.run AND step = NEW.source)
        WHERE (skill, workflow, step) = (SELECT skill, workflow, NEW.source FROM runs
                                         WHERE id = NEW.run);
    DELETE FROM open_failures WHERE run = NEW.run AND step = NEW.source;
END
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
