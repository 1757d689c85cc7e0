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
from skills.lib.workflow.base.errors import GatewayRefusal, SkillrailError
from skills.lib.workflow.guard import sandbox

from .gateway_support import HAS_BWRAP, STEP_SCRIPT, World
from .test_gateway import skillrail

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


#: What a command sees of the network: its interfaces, then whether a port of the host answers.
CONNECT = """import socket, sys
print(' '.join(sorted(name for _, name in socket.if_nameindex())))
try:
    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=3).close()
    print('connected')
except OSError as exc:
    print(type(exc).__name__)
"""


@needs_bwrap
def test_there_is_no_network(world: World) -> None:
    """Inside the sandbox a command runs in a network of its own, loopback alone, where a port
    the host listens on is refused; the same command outside the sandbox reaches it."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
    world.script("connect.py", CONNECT)
    try:
        with pytest.MonkeyPatch.context() as user:
            user.setenv("SKILLRAIL_SANDBOX", "off")
            outside = world.run(f"python3 ${{SKILL_DIR}}/scripts/connect.py {port}")
        assert (outside.status, outside.head.splitlines()[1:]) == ("ok", ["connected"])
        world.policy_file("sandbox: required\n")
        inside = world.run(f"python3 ${{SKILL_DIR}}/scripts/connect.py {port}")
        assert (inside.status, inside.head.splitlines()) == ("ok", ["lo",
                                                                    "ConnectionRefusedError"])
    finally:
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


@needs_bwrap
def test_a_bwrap_inside_the_workspace_is_never_taken_for_the_sandbox(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """bwrap runs outside any sandbox: it is looked up outside the workspace, as every program
    the gateway runs is."""
    fake = world.workspace / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ntouch {world.canary}\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    world.policy_file("sandbox: required\n")
    assert world.run("python3 ${SKILL_DIR}/scripts/echo.py hi").head == "args: hi\n"
    assert not world.canary.exists()


@needs_bwrap
def test_a_projects_sandbox_off_is_ignored_and_said_so(world: World, ledger_home: Path) -> None:
    """The project's file is the agent's and any pull request's to write: it may make the
    sandbox stricter, never turn it off."""
    world.policy_file("sandbox: off\n")
    target = world.workspace / "new.txt"
    done = world.run(f"python3 ${{SKILL_DIR}}/scripts/write.py {target}")
    assert results(done.head)[str(target)] == "OSError" and not target.exists()
    shown = skillrail("gateway", "policy", cwd=world.workspace).stdout
    assert "the project's `sandbox: off` (.claude/skillrail.yaml) is ignored" in shown
    assert "SKILLRAIL_SANDBOX=off" in shown
    (world.skill / "scripts" / "attack.py").write_text(STEP_SCRIPT)
    world.trust()
    step = world.step("git status --short")
    assert step.returncode == 0 and "`sandbox: off` (.claude/skillrail.yaml) is ignored" in \
        step.stderr, step.stderr


def test_the_user_turns_the_sandbox_off_in_their_environment(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLRAIL_SANDBOX", "off")
    target = world.workspace / "new.txt"
    done = world.run(f"python3 ${{SKILL_DIR}}/scripts/write.py {target}")
    assert results(done.head)[str(target)] == "written"
    assert sandbox.describe("off").startswith("sandbox: off (SKILLRAIL_SANDBOX=off")


@needs_bwrap
def test_a_project_that_requires_the_sandbox_keeps_it_whatever_the_user_says(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLRAIL_SANDBOX", "off")
    world.policy_file("sandbox: required\n")
    target = world.workspace / "new.txt"
    done = world.run(f"python3 ${{SKILL_DIR}}/scripts/write.py {target}")
    assert results(done.head)[str(target)] == "OSError"


def test_an_unknown_sandbox_setting_of_the_user_is_one_error(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLRAIL_SANDBOX", "no")
    with pytest.raises(SkillrailError, match=r"SKILLRAIL_SANDBOX='no'.*auto, required or off"):
        world.run("python3 ${SKILL_DIR}/scripts/echo.py hi")


#: A script that starts a daemon (forked twice, its own session, its output closed), which
#: writes the canary a little later unless it is killed; then it returns, or sleeps.
DAEMON = """import os, sys, time
token, canary, then = sys.argv[1], sys.argv[2], sys.argv[3]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        code = "import sys, time; time.sleep(3); open(sys.argv[1], 'w').write('ran')"
        os.execv(sys.executable, [sys.executable, "-c", code, canary, token])
    os._exit(0)
os.wait()
print("daemon started", flush=True)
if then == "sleep":
    time.sleep(60)
"""


def running(token: str) -> list[int]:
    """The processes whose command line holds `token`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if token.encode() in cmdline.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def gone(token: str, seconds: float = 20) -> bool:
    """Whether every process holding `token` ends within `seconds` (polled)."""
    import time

    deadline = time.monotonic() + seconds
    while running(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("then", ["return", "sleep"])
@pytest.mark.parametrize("mode", [pytest.param("off", id="policy-only"),
                                  pytest.param("required", id="bwrap", marks=needs_bwrap)])
def test_nothing_a_command_started_outlives_its_step(world: World, mode: str,
                                                     then: str) -> None:
    """A daemon (double fork, new session) leaves the command's process group; the step ends
    the command's whole tree when the command returns or times out."""
    world.sandbox(mode, policy="programs:\n  python3: {interpreter: skill, writes: true, "
                               "timeout: 2}\n")
    world.script("daemon.py", DAEMON)
    (world.skill / "scripts" / "attack.py").write_text(STEP_SCRIPT)
    world.trust()
    token = f"skillrail-daemon-{os.getpid()}-{mode}-{then}"
    # The step's own process ends as an agent's would: a real one.
    step = world.step(f"python3 ${{SKILL_DIR}}/scripts/daemon.py {token} CANARY {then}",
                      process=True)
    assert step.returncode == 0 and "daemon started" in step.stdout, step.stdout + step.stderr
    assert gone(token), f"still running: {running(token)}"
    assert not world.canary.exists()
