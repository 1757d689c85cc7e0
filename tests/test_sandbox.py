"""The OS sandbox around gateway commands (bubblewrap): read-only files (the workspace writable
only for a program marked `writes: true`, and never its .git or .claude), a private /tmp and
HOME, hidden credentials and skillrail state, no network; and, where bwrap is missing, a plain
statement of it, or a refusal when the policy requires the sandbox."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest
from skills.lib.workflow.base.errors import GatewayRefusal
from skills.lib.workflow.guard import sandbox

from .gateway_support import HAS_BWRAP, World

needs_bwrap = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap is not installed "
                                                       "(apt-get install bubblewrap)")

TRY_WRITE = """import sys
for path in sys.argv[1:]:
    try:
        open(path, 'w').write('x')
        print(path, 'written')
    except OSError as exc:
        print(path, type(exc).__name__)
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    made = World(tmp_path)
    monkeypatch.chdir(made.workspace)
    made.unrestricted()
    made.script("write.py", TRY_WRITE)
    # Reads the files a list names: paths outside the workspace cannot be arguments (the
    # policy layer refuses them), so the sandbox is what stands between a script and them.
    made.script("read.py", "import sys\nfor p in open(sys.argv[1]).read().split():\n    try:\n"
                           "        print(p, open(p).read().strip())\n    except OSError as "
                           "exc:\n        print(p, type(exc).__name__)")
    return made


def results(text: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in text.splitlines())


@needs_bwrap
def test_the_workspace_is_read_only_unless_the_program_writes(world: World) -> None:
    world.policy_file("sandbox: required\n")
    target = world.workspace / "new.txt"
    done = world.run(f"python3 ${{SKILL_DIR}}/scripts/write.py {target}")
    assert results(done.head)[str(target)] == "OSError" and not target.exists()
    world.policy_file("sandbox: required\n"
                      "programs:\n  python3: {interpreter: skill, writes: true}\n")
    git_file, claude_file = world.workspace / ".git" / "x", world.workspace / ".claude" / "x"
    done = world.run(f"python3 ${{SKILL_DIR}}/scripts/write.py {target} {git_file} {claude_file}")
    assert results(done.head) == {str(target): "written", str(git_file): "OSError",
                                  str(claude_file): "OSError"}
    assert target.exists() and not git_file.exists() and not claude_file.exists()


@needs_bwrap
def test_tmp_and_home_are_private(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    world.policy_file("sandbox: required\n")
    world.script("tmp.py", "import os; open('/tmp/from-inside', 'w').write('x'); "
                           "print(sorted(os.listdir('/tmp')), os.environ['HOME'])")
    marker = Path("/tmp") / f"skillrail-test-{os.getpid()}"
    marker.write_text("host")
    try:
        done = world.run("python3 ${SKILL_DIR}/scripts/tmp.py")
        assert done.status == "ok", done.head
        assert marker.name not in done.head and "/tmp/skillrail-home" in done.head
        assert not Path("/tmp/from-inside").exists()
    finally:
        marker.unlink()


@needs_bwrap
def test_credentials_and_skillrail_state_are_hidden(world: World, ledger_home: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    home = world.root / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    key.write_text("PRIVATE KEY")
    monkeypatch.setenv("HOME", str(home))
    (ledger_home / "runs.sqlite3").write_text("runs")
    world.policy_file("sandbox: required\n")
    (world.workspace / "paths.txt").write_text(
        f"{key} {ledger_home / 'runs.sqlite3'} {world.workspace / 'README.md'}")
    done = world.run("python3 ${SKILL_DIR}/scripts/read.py paths.txt")
    assert results(done.head) == {str(key): "FileNotFoundError",
                                  str(ledger_home / "runs.sqlite3"): "FileNotFoundError",
                                  str(world.workspace / "README.md"): "# app"}


@needs_bwrap
def test_there_is_no_network(world: World) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
    world.script("connect.py", "import socket, sys\ntry:\n    socket.create_connection(('127.0.0"
                               ".1', int(sys.argv[1])), timeout=3)\n    print('connected')\n"
                               "except OSError as exc:\n    print(type(exc).__name__)")
    world.policy_file("sandbox: off\n")
    assert world.run(f"python3 ${{SKILL_DIR}}/scripts/connect.py {port}").head == "connected\n"
    world.policy_file("sandbox: required\n")
    assert world.run(f"python3 ${{SKILL_DIR}}/scripts/connect.py {port}").head != "connected\n"
    server.close()


def test_without_bwrap_the_policy_layer_alone_applies_and_says_so(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = world.root / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap (and nothing else) on PATH
    assert sandbox.describe("auto").startswith("sandbox: none (install bubblewrap")
    assert world.run("python3 ${SKILL_DIR}/scripts/echo.py hi").head == "args: hi\n"
    world.policy_file("sandbox: required\n")
    with pytest.raises(GatewayRefusal, match=r"sandbox-missing.*apt-get install bubblewrap"):
        world.run("python3 ${SKILL_DIR}/scripts/echo.py hi")
    assert "nothing runs" in sandbox.describe("required")
