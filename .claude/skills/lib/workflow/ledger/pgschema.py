"""The run ledger's schema on PostgreSQL (pgstore.py): the same tables, keys, indexes and running
totals as schema.py's SQLite schema, in PostgreSQL's words. PostgreSQL joined at schema 8:
its first migration (BASELINE) makes schema 8 whole, and every later version has both
dialects in schema.MIGRATIONS, one list. A table the ledger reads in insertion order
carries a `rowid` identity column, which SQLite gives every table; a trigger is a PL/pgSQL
function of the same name doing what the SQLite trigger's body does."""

#: Schema 8: tables and indexes (V1-V8 together).
_TABLES = """
CREATE TABLE runs (
    id TEXT PRIMARY KEY, skill TEXT NOT NULL, workflow TEXT NOT NULL, script TEXT NOT NULL,
    fingerprint TEXT NOT NULL, workspace TEXT NOT NULL, session TEXT,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'abandoned')),
    parent TEXT REFERENCES runs(id), step TEXT NOT NULL, decided TEXT, hops INTEGER NOT NULL,
    started DOUBLE PRECISION NOT NULL, updated DOUBLE PRECISION NOT NULL,
    result TEXT CHECK (result IN ('success', 'partial')),
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE TABLE params (run TEXT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
                     value TEXT NOT NULL, PRIMARY KEY (run, name));
CREATE TABLE transitions (run TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,
                          source TEXT NOT NULL, outcome TEXT NOT NULL, target TEXT NOT NULL,
                          at DOUBLE PRECISION NOT NULL, PRIMARY KEY (run, seq));
CREATE TABLE memory (run TEXT NOT NULL REFERENCES runs(id), key TEXT NOT NULL,
                     seq INTEGER NOT NULL, step TEXT NOT NULL, value TEXT NOT NULL,
                     rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
                     PRIMARY KEY (run, key, seq));
CREATE TABLE loops (run TEXT NOT NULL REFERENCES runs(id), edge TEXT NOT NULL,
                    count INTEGER NOT NULL, PRIMARY KEY (run, edge));
CREATE TABLE events (run TEXT NOT NULL REFERENCES runs(id), at DOUBLE PRECISION NOT NULL,
                     kind TEXT NOT NULL, detail TEXT NOT NULL,
                     rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE);
CREATE TABLE agents (session TEXT NOT NULL, agent TEXT NOT NULL,
                     run TEXT NOT NULL REFERENCES runs(id), PRIMARY KEY (session, agent));
CREATE TABLE cases (skill TEXT NOT NULL, run TEXT NOT NULL REFERENCES runs(id),
                    kind TEXT NOT NULL CHECK (kind IN ('success', 'failure', 'feedback')),
                    at DOUBLE PRECISION NOT NULL, text TEXT NOT NULL,
                    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE);
CREATE INDEX runs_by_workspace ON runs(workspace, status);
CREATE INDEX runs_by_session ON runs(session, status);
CREATE INDEX cases_by_skill ON cases(skill, at);
CREATE INDEX runs_by_started ON runs(started);
CREATE INDEX runs_by_skill ON runs(skill, started);
CREATE INDEX runs_by_parent ON runs(parent, started);
CREATE INDEX events_by_run ON events(run, at);
CREATE INDEX runs_by_state ON runs((CASE WHEN result = 'partial' THEN 'partial' ELSE status END),
                                   started);
CREATE INDEX runs_by_skill_result ON runs(skill, status, result);
CREATE TABLE move_totals (skill TEXT, workflow TEXT, source TEXT, outcome TEXT, target TEXT,
                          moves INTEGER NOT NULL,
                          PRIMARY KEY (skill, workflow, source, outcome, target));
CREATE TABLE departure_totals (skill TEXT, workflow TEXT, step TEXT, runs INTEGER NOT NULL,
                               PRIMARY KEY (skill, workflow, step));
CREATE TABLE loop_totals (skill TEXT, workflow TEXT, edge TEXT, runs INTEGER NOT NULL,
                          passes INTEGER NOT NULL, most INTEGER NOT NULL,
                          PRIMARY KEY (skill, workflow, edge));
CREATE TABLE end_totals (skill TEXT, workflow TEXT, state TEXT, runs INTEGER NOT NULL,
                         iterations INTEGER NOT NULL, PRIMARY KEY (skill, workflow, state));
CREATE TABLE check_totals (skill TEXT, workflow TEXT, step TEXT, failures INTEGER NOT NULL,
                           recovered INTEGER NOT NULL, PRIMARY KEY (skill, workflow, step));
CREATE TABLE change_totals (skill TEXT, workflow TEXT, step TEXT, key TEXT, value TEXT,
                            recoveries INTEGER NOT NULL,
                            PRIMARY KEY (skill, workflow, step, key, value));
CREATE TABLE open_failures (run TEXT, step TEXT, seq INTEGER, PRIMARY KEY (run, step, seq));
"""

#: Schema 8's running totals (schema V6 and V8), kept by triggers.
_TRIGGERS = """
CREATE FUNCTION move_total() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM transitions WHERE run = NEW.run AND source = NEW.source
                   AND seq <> NEW.seq) THEN
        INSERT INTO departure_totals SELECT skill, workflow, NEW.source, 1 FROM runs
            WHERE id = NEW.run
            ON CONFLICT (skill, workflow, step) DO UPDATE SET runs = departure_totals.runs + 1;
    END IF;
    INSERT INTO move_totals SELECT skill, workflow, NEW.source, NEW.outcome, NEW.target, 1
        FROM runs WHERE id = NEW.run
        ON CONFLICT (skill, workflow, source, outcome, target)
        DO UPDATE SET moves = move_totals.moves + 1;
    IF NEW.outcome = 'fail' THEN
        INSERT INTO check_totals SELECT skill, workflow, NEW.source, 1, 0 FROM runs
            WHERE id = NEW.run ON CONFLICT (skill, workflow, step)
            DO UPDATE SET failures = check_totals.failures + 1;
        INSERT INTO open_failures VALUES (NEW.run, NEW.source, NEW.seq);
    ELSIF NEW.outcome = 'ok' AND EXISTS (SELECT 1 FROM open_failures WHERE run = NEW.run
                                         AND step = NEW.source) THEN
        INSERT INTO change_totals SELECT r.skill, r.workflow, NEW.source, m.key, m.value,
            COUNT(*) FROM open_failures f JOIN runs r ON r.id = f.run JOIN memory m
            ON m.rowid = (SELECT rowid FROM memory WHERE run = NEW.run
                          AND key >= 'CHANGE_' AND key < 'CHANGE`' AND seq > f.seq
                          AND seq < NEW.seq ORDER BY seq, rowid LIMIT 1)
            WHERE f.run = NEW.run AND f.step = NEW.source GROUP BY r.skill, r.workflow, m.key,
            m.value ON CONFLICT (skill, workflow, step, key, value)
            DO UPDATE SET recoveries = change_totals.recoveries + excluded.recoveries;
        UPDATE check_totals c SET recovered = c.recovered + (SELECT COUNT(*) FROM open_failures
            WHERE run = NEW.run AND step = NEW.source) FROM runs r
            WHERE r.id = NEW.run AND c.skill = r.skill AND c.workflow = r.workflow
            AND c.step = NEW.source;
        DELETE FROM open_failures WHERE run = NEW.run AND step = NEW.source;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER move_total AFTER INSERT ON transitions FOR EACH ROW EXECUTE FUNCTION move_total();
CREATE FUNCTION loop_total() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO loop_totals SELECT skill, workflow, NEW.edge,
        CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE 0 END,
        NEW.count - CASE WHEN TG_OP = 'INSERT' THEN 0 ELSE OLD.count END, NEW.count
        FROM runs WHERE id = NEW.run
        ON CONFLICT (skill, workflow, edge) DO UPDATE SET
            runs = loop_totals.runs + excluded.runs,
            passes = loop_totals.passes + excluded.passes,
            most = GREATEST(loop_totals.most, excluded.most);
    RETURN NULL;
END $$;
CREATE TRIGGER loop_total AFTER INSERT OR UPDATE ON loops FOR EACH ROW
    EXECUTE FUNCTION loop_total();
CREATE FUNCTION end_total() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF OLD.status = 'active' AND NEW.status <> 'active' THEN
        INSERT INTO end_totals VALUES (NEW.skill, NEW.workflow, CASE WHEN NEW.status =
            'abandoned' THEN NEW.status WHEN NEW.result = 'partial' THEN NEW.result
            ELSE 'success' END, 1,
            1 + COALESCE((SELECT SUM(count) FROM loops WHERE run = NEW.id), 0))
            ON CONFLICT (skill, workflow, state) DO UPDATE SET runs = end_totals.runs + 1,
                iterations = end_totals.iterations + excluded.iterations;
        DELETE FROM open_failures WHERE run = NEW.id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER end_total AFTER UPDATE OF status ON runs FOR EACH ROW
    EXECUTE FUNCTION end_total();
"""

BASELINE = _TABLES + _TRIGGERS

#: Schema 9: who started a run where (as SQLite's V9), and a notice on channel `skillrail_runs`
#: naming the run each time it moves or records an event, which `trace --follow` listens for.
V9_POSTGRES = """
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN who TEXT;
CREATE INDEX runs_by_host ON runs(host, who, started);
CREATE FUNCTION notify_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    PERFORM pg_notify('skillrail_runs', NEW.run);
    RETURN NULL;
END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION notify_run();
CREATE TRIGGER transitions_notify AFTER INSERT ON transitions FOR EACH ROW
    EXECUTE FUNCTION notify_run();
"""

V10_POSTGRES = """
ALTER TABLE runs ADD COLUMN folder TEXT;
ALTER TABLE runs ADD COLUMN gate TEXT;
"""
