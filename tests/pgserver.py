"""A throwaway PostgreSQL server for the tests of the ledger's PostgreSQL backend: a cluster made
in a temporary folder, reached over a Unix socket in that folder only (no TCP port), and removed
when the tests end or the process exits.

The server runs as the current user, or as the `postgres` user when the tests run as root
(initdb and postgres refuse to run as root). psycopg is imported only by the methods that send
SQL, so importing this module costs a test that asks for no server nothing."""

from __future__ import annotations

import importlib.util
import os
import pwd
import shlex
import shutil
import subprocess
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from .pgprocess import TOOLS, PgServerError, alive, find_bindir, kill_tree, one_line, tail

USER = "skillrail"  # the cluster's superuser, and the database `PgServer.url` names
RUN_AS = "postgres"  # who runs the server when the tests run as root
PORT = 5432  # names the socket file only: each cluster has its own socket folder

#: The server's settings. fsync and full_page_writes are off for speed: they guard against a
#: crash of the machine, which a throwaway cluster does not outlive. A crash of the server
#: (kill()) loses nothing committed, since synchronous_commit stays on: a commit returns once its
#: WAL is written, and the kernel keeps what was written when the server dies. 100 connections
#: leave room for 8-way races, each with a few connections, beside the fixtures' own.
SETTINGS = {
    "listen_addresses": "",
    "max_connections": "100",
    "shared_buffers": "32MB",
    "fsync": "off",
    "full_page_writes": "off",
}


def _close(stop: list[str], env: dict[str, str], folder: Path) -> None:
    """Stop the server at once (if it runs) and remove its folder: what PgServer.close and the
    exit of the process do."""
    if (folder / "data" / "postmaster.pid").exists():
        subprocess.run(stop, env=env, cwd=folder, capture_output=True, timeout=60, check=False)
    shutil.rmtree(folder, ignore_errors=True)


class PgServer:
    """A PostgreSQL cluster in a temporary folder, made and started on construction.

    `url` names the database `skillrail`, made at the first start; fresh_database() gives the url
    of a new empty one. The folder goes with close(), the end of the process, or the object."""

    def __init__(self, bindir: Path | None = None, settings: dict[str, str] | None = None,
                 timeout: float = 60) -> None:
        why = self.why_not(bindir)
        if why:
            raise PgServerError(why)
        self.bindir = bindir or find_bindir()
        self.settings = {**SETTINGS, **(settings or {})}
        self.timeout = timeout
        self._databases = 0
        base = tempfile.gettempdir()
        if len(base) > 50:  # a Unix socket's path (lock file included) must fit in 107 bytes
            base = "/tmp"
        self.folder = Path(tempfile.mkdtemp(prefix="skillrail-pg-", dir=base))
        self._env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        stop = self._as_server_user([self._tool("pg_ctl"), "stop", "-D", str(self.data),
                                     "-m", "immediate", "-w"])
        self._finalizer = weakref.finalize(self, _close, stop, self._env, self.folder)
        try:
            self._make()
            self.start()
            self._sql(f'CREATE DATABASE "{USER}"')
        except BaseException:
            self.close()
            raise

    @staticmethod
    def why_not(bindir: Path | None = None) -> str | None:
        """Why no server can be started here, in one line; None when one can."""
        if bindir is None and (bindir := find_bindir()) is None:
            return ("no PostgreSQL server programs (initdb, pg_ctl, postgres, pg_isready) on PATH "
                    "or in /usr/lib/postgresql/*/bin (apt-get install postgresql)")
        missing = [t for t in TOOLS if not os.access(bindir / t, os.X_OK)]
        if missing:
            return f"no {', '.join(missing)} in {bindir}"
        if importlib.util.find_spec("psycopg") is None:
            return "psycopg is not installed (pip install -e '.[postgres]')"
        if os.geteuid() == 0:
            try:
                pwd.getpwnam(RUN_AS)
            except KeyError:
                return (f"the tests run as root, which PostgreSQL refuses, and there is no "
                        f"'{RUN_AS}' user to run it as")
            if not (shutil.which("runuser") or shutil.which("setpriv")):
                return (f"the tests run as root and neither runuser nor setpriv is here to run "
                        f"PostgreSQL as '{RUN_AS}'")
        return None

    # -- where things are --------------------------------------------------------------------

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def sockets(self) -> Path:
        return self.folder / "sockets"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    @property
    def url(self) -> str:
        """The libpq url of the database `skillrail`."""
        return self.url_of(USER)

    def url_of(self, database: str) -> str:
        return f"postgresql://{USER}@/{database}?host={quote(str(self.sockets))}&port={PORT}"

    # -- the server's life -------------------------------------------------------------------

    def running(self) -> bool:
        pid = self._postmaster()
        return pid is not None and alive(pid)

    def start(self) -> None:
        """Start the server (after stop() or kill(): same data, same url); waits until it
        accepts connections. Does nothing if it runs."""
        if self.running():
            return
        options = [f"--{name}={value}" for name, value in self.settings.items()]
        options += [f"--unix_socket_directories={self.sockets}", f"--port={PORT}"]
        self._run([self._tool("pg_ctl"), "start", "-D", str(self.data), "-l", str(self.log),
                   "-w", "-t", str(int(self.timeout)), "-o", shlex.join(options)],
                  "PostgreSQL did not start")
        deadline = time.monotonic() + self.timeout
        ready = [self._tool("pg_isready"), "-q", "-h", str(self.sockets), "-p", str(PORT),
                 "-U", USER, "-d", "postgres", "-t", "1"]
        while subprocess.run(ready, env=self._env, capture_output=True, check=False).returncode:
            if time.monotonic() > deadline:
                raise PgServerError(f"PostgreSQL accepts no connections after {self.timeout:g}s: "
                                    f"{tail(self.log)}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (pg_ctl stop -m fast); start() brings it back with the same data."""
        if self.running():
            self._run([self._tool("pg_ctl"), "stop", "-D", str(self.data), "-m", "fast", "-w",
                       "-t", str(int(self.timeout))], "PostgreSQL did not stop")

    def restart(self) -> None:
        """A clean restart: stop -m fast, then start (same data, same url)."""
        self.stop()
        self.start()

    def kill(self) -> None:
        """Crash the server: SIGKILL to the postmaster and to every process it started, as when
        it dies at once (no orphan backend is left holding its shared memory, so start() can
        follow at once, and recovers from the WAL)."""
        pid = self._postmaster()
        if pid is None or not alive(pid):
            return
        kill_tree(pid, self.timeout)
        # A dead postmaster not yet reaped by its new parent still answers kill(pid, 0), and the
        # next postmaster would take its lock files for a live server's: they go, as they would
        # once it was reaped.
        for lock in (self.data / "postmaster.pid", self.sockets / f".s.PGSQL.{PORT}.lock"):
            lock.unlink(missing_ok=True)

    def close(self) -> None:
        """Stop the server at once and remove its folder; the object is spent."""
        self._finalizer()

    def __enter__(self) -> PgServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- databases and connections -----------------------------------------------------------

    def fresh_database(self) -> str:
        """The url of a new, empty database (a copy of template0)."""
        self._databases += 1
        name = f"test{self._databases}"
        self._sql(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url_of(name)

    def drop_database(self, url: str) -> None:
        """Drop the database `url` names, ending the connections to it."""
        name = urlsplit(url).path.lstrip("/")
        self._sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def terminate_connections(self) -> int:
        """End every other client connection (pg_terminate_backend), as a dropped connection;
        returns once those backends are gone, with how many there were."""
        with self._connect() as conn:
            others = ("SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' "
                      "AND pid <> pg_backend_pid()")
            pids = [row[0] for row in conn.execute(others)]
            for pid in pids:
                conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
            deadline = time.monotonic() + self.timeout
            while conn.execute(f"{others} AND pid = ANY(%s)", (pids,)).fetchone():
                if time.monotonic() > deadline:
                    raise PgServerError(f"backends {pids} outlived pg_terminate_backend")
                time.sleep(0.02)
        return len(pids)

    # -- helpers -----------------------------------------------------------------------------

    def _tool(self, name: str) -> str:
        assert self.bindir is not None
        return str(self.bindir / name)

    def _as_server_user(self, argv: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return argv
        if shutil.which("runuser"):
            return ["runuser", "-u", RUN_AS, "--", *argv]
        user = pwd.getpwnam(RUN_AS)
        return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups",
                "--", *argv]

    def _run(self, argv: list[str], failure: str) -> None:
        done = subprocess.run(self._as_server_user(argv), env=self._env, cwd=self.folder,
                              capture_output=True, text=True, timeout=self.timeout + 30,
                              check=False)
        if done.returncode:
            said = one_line(done.stderr or done.stdout)
            raise PgServerError(f"{failure}: {said or 'no message'}; log: {tail(self.log)}")

    def _make(self) -> None:
        """The folder, given to the server's user (the socket folder stays reachable by everyone,
        root without CAP_DAC_OVERRIDE included), and the cluster in it."""
        self.folder.chmod(0o755)
        self.sockets.mkdir(mode=0o755)
        self.log.touch(mode=0o644)
        if os.geteuid() == 0:
            user = pwd.getpwnam(RUN_AS)
            for path in (self.folder, self.sockets, self.log):
                os.chown(path, user.pw_uid, user.pw_gid)
        # --no-sync: initdb does not wait for the disk, as fsync=off has the server not wait.
        self._run([self._tool("initdb"), "-D", str(self.data), "-U", USER, "--auth=trust",
                   "--no-locale", "-E", "UTF8", "--no-sync"], "initdb failed")

    def _postmaster(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def _connect(self, database: str = "postgres") -> Any:
        import psycopg

        return psycopg.connect(self.url_of(database), autocommit=True,
                               connect_timeout=int(self.timeout))

    def _sql(self, statement: str) -> None:
        with self._connect() as conn:
            conn.execute(statement)
