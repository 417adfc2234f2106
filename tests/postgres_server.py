"""A throwaway PostgreSQL server for the tests, started from Debian's ``postgresql`` binaries.

One server per test session, in a temporary directory, reachable only through a unix
socket in that directory (no TCP port to collide with). ``initdb`` refuses to run as root,
so under root (CI runs as root) the server runs as the ``postgres`` user the Debian package
creates, on a directory handed to that user. Each test gets its own schema (its own
tables) through the URL's ``search_path``, so tests never see each other's matches.
Durability settings are off (``start(durable=True)`` keeps them, for ``bench/``): these tests
kill app servers, never the database.

Without the binaries the PostgreSQL tests fail (they are part of the suite, not optional),
saying what to install.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

import psycopg

MISSING = (
    "PostgreSQL's server binaries were not found (looked for /usr/lib/postgresql/*/bin/pg_ctl "
    "and TANTEO_PG_BINDIR): install the Debian package 'postgresql' "
    "(apt-get install postgresql); the PostgreSQL tests are part of the suite"
)


def find_bindir() -> Path | None:
    """Return the newest installed PostgreSQL ``bin`` directory (or ``TANTEO_PG_BINDIR``)."""
    given = os.environ.get("TANTEO_PG_BINDIR")
    if given:
        return Path(given) if (Path(given) / "pg_ctl").is_file() else None
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")]
    found.sort(key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    return found[-1] if found else None


class PostgresServer:
    """One PostgreSQL server in a temporary directory; :meth:`new_url` is a fresh schema."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="tanteo-pg-"))
        self.data = self.root / "data"
        self._as_owner: list[str] = []
        self._counter = itertools.count(1)
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")  # created by the Debian package
            except KeyError:
                shutil.rmtree(self.root, ignore_errors=True)
                raise RuntimeError(
                    "the tests run as root, and PostgreSQL refuses to: they run it as the "
                    "'postgres' user, which is missing; install the Debian package "
                    "'postgresql' (it creates the user) or run the tests as another user"
                ) from None
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as_owner = ["runuser", "-u", "postgres", "--"]
        self.admin_url = f"postgresql://tanteo@/postgres?host={quote(str(self.root), safe='')}"

    def _run(self, *args: str) -> None:
        result = subprocess.run([*self._as_owner, *args], capture_output=True, text=True, cwd=self.root)
        if result.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed:\n{result.stdout}\n{result.stderr}\n{tail}")

    def start(self, *, durable: bool = False) -> None:
        """Create and start the server; ``durable`` keeps PostgreSQL's default fsync and
        synchronous commit (the benchmark wants them, the tests do not)."""
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "tanteo",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        )
        options = f"-k {self.root} -c listen_addresses='' -c max_connections=400 -c shared_buffers=32MB"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        )

    def new_url(self, prefix: str = "t") -> str:
        """Create an empty schema and return a URL whose connections work in it alone."""
        schema = f"{prefix}_{os.getpid()}_{next(self._counter)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')  # type: ignore[arg-type]
        options = quote(f"-c search_path={schema}", safe="")
        return f"{self.admin_url}&options={options}"

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
