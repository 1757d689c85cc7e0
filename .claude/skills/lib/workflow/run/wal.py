"""The ledger's write-ahead log, kept between steps and kept short (ledger.py opens it): each
step's commit then costs no disk sync, and no step pays for copying a long WAL."""

# The C module alone, as in ledger.py.
import _sqlite3 as sqlite3
import contextlib
import os
import sys
import time

#: A WAL longer than this is emptied by the process that leaves it so (`trim_wal`).
WAL_CHECKPOINT_BYTES = 1024 * 1024
#: Characters a path may hold that an SQLite URI reads as syntax.
_URI_ESCAPES = {"%": "%25", "?": "%3f", "#": "%23"}


def keep_wal(db: sqlite3.Connection, path: str, busy_ms: int) -> sqlite3.Connection | None:
    """Keep the WAL file when this process lets go of the ledger. The last connection to
    close would checkpoint it (an fdatasync of it and of the ledger) and delete it, and the
    next step's first commit would write a new one (an fdatasync of it and of the folder):
    four syncs a step that synchronous=NORMAL does not ask for, since a commit in the WAL
    survives its process. `trim_wal` keeps the kept WAL short. Python 3.12 turns the
    close's checkpoint off (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE); 3.11 cannot, so there a
    read-only connection, returned, stays open until this one has closed (Ledger.__exit__):
    this one is then not the last, and the read-only one cannot checkpoint."""
    if sys.version_info >= (3, 12):
        db.setconfig(sqlite3.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, True)
        return None
    uri = "file:" + "".join(_URI_ESCAPES.get(c, c) for c in path) + "?mode=ro"
    keeper = sqlite3.connect(uri, uri=True, timeout=busy_ms / 1000, isolation_level=None)
    keeper.execute("PRAGMA schema_version").fetchone()  # in WAL mode, holds a shared lock
    return keeper


def trim_wal(db: sqlite3.Connection, path: str) -> None:
    """Checkpoint the WAL and empty it once it is over WAL_CHECKPOINT_BYTES, waiting for
    no one (a later exit does it). SQLite's own checkpoints cannot keep a kept WAL short:
    each process, the first to open the ledger, rebuilds the WAL's index counting none of
    it as copied, so no writer ever finds it all copied and starts it over, and past 1,000
    pages every step's first commit copies all of it again (tens of ms once it is big)."""
    with contextlib.suppress(OSError, sqlite3.Error):
        if os.stat(path + "-wal").st_size > WAL_CHECKPOINT_BYTES:
            db.execute("PRAGMA busy_timeout = 0")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()


def use_wal(db: sqlite3.Connection, busy_ms: int) -> None:
    """Switch a new ledger to WAL once (the mode persists in the file). Changing the mode
    takes an exclusive lock that SQLite's busy timeout does not wait for, so wait here."""
    deadline = time.monotonic() + busy_ms / 1000
    while db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            db.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
