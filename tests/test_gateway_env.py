"""What a gateway command inherits: an allow-listed environment, a private empty HOME, git with no
system or user config and with every program-running key of the repository's own config
neutralised. Each hostile set-up is first shown to fire with plain git or Python (the control),
then shown not to fire through a real step that injects the same command, under the policy
layer alone and inside bwrap."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from skills.lib.workflow.base.errors import GatewayRefusal

from .gateway_support import HAS_BWRAP, STEP_SCRIPT, World, git

SANDBOXES = [pytest.param("off", id="policy-only"),
             pytest.param("required", id="bwrap", marks=pytest.mark.skipif(
                 not HAS_BWRAP, reason="bubblewrap is not installed (apt-get install bubblewrap)"))]


@pytest.fixture(params=SANDBOXES)
def world(request: pytest.FixtureRequest, tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> World:
    made = World(tmp_path)
    made.policy_file(f"sandbox: {request.param}\n")
    monkeypatch.chdir(made.workspace)
    (made.workspace / "README.md").write_text("# app\nchanged\n")  # something to diff
    (made.skill / "scripts" / "attack.py").write_text(STEP_SCRIPT)
    made.trust()
    return made


def evil(world: World) -> str:
    """A program that creates the canary: what a hostile config names."""
    path = world.root / "outside" / "evil.sh"
    path.write_text(f"#!/bin/sh\ntouch {world.canary}\ncat\n")
    path.chmod(0o755)
    return str(path)


def fsmonitor(world: World, env: dict[str, str]) -> None:
    git("config", "core.fsmonitor", evil(world), cwd=world.workspace)


def textconv(world: World, env: dict[str, str]) -> None:
    git("config", "diff.evil.textconv", evil(world), cwd=world.workspace)
    (world.workspace / ".gitattributes").write_text("* diff=evil\n")


def diff_command(world: World, env: dict[str, str]) -> None:
    git("config", "diff.evil.command", evil(world), cwd=world.workspace)
    (world.workspace / ".gitattributes").write_text("* diff=evil\n")


def external_diff(world: World, env: dict[str, str]) -> None:
    git("config", "diff.external", evil(world), cwd=world.workspace)


def clean_filter(world: World, env: dict[str, str]) -> None:
    git("config", "filter.evil.clean", evil(world), cwd=world.workspace)
    git("config", "filter.evil.required", "true", cwd=world.workspace)
    (world.workspace / ".gitattributes").write_text("* filter=evil\n")


def process_filter(world: World, env: dict[str, str]) -> None:
    git("config", "filter.evil.process", evil(world), cwd=world.workspace)
    (world.workspace / ".gitattributes").write_text("* filter=evil\n")


def signature(world: World, env: dict[str, str]) -> None:
    """A commit with a (fake) signature, shown with log.showSignature: git runs gpg.program."""
    ws = world.workspace
    text = git("cat-file", "commit", "HEAD", cwd=ws)
    head, body = text.split("\n\n", 1)
    signed = (head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAAB\n -----END PGP "
              "SIGNATURE-----\n\n" + body)
    sha = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=ws,
                         input=signed, capture_output=True, text=True, check=True).stdout.strip()
    git("update-ref", "refs/heads/main", sha, cwd=ws)
    git("config", "gpg.program", evil(world), cwd=ws)
    git("config", "log.showSignature", "true", cwd=ws)


def included(world: World, env: dict[str, str]) -> None:
    """The hostile key in a file the repository's config includes."""
    extra = world.workspace / "extra.gitconfig"
    extra.write_text(f"[core]\n\tfsmonitor = {evil(world)}\n")
    git("config", "include.path", str(extra), cwd=world.workspace)


def home_gitconfig(world: World, env: dict[str, str]) -> None:
    home = world.root / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\tfsmonitor = {evil(world)}\n")
    env["HOME"] = str(home)


def xdg_gitconfig(world: World, env: dict[str, str]) -> None:
    config = world.root / "xdg" / "git"
    config.mkdir(parents=True)
    (config / "config").write_text(f"[core]\n\tfsmonitor = {evil(world)}\n")
    env["XDG_CONFIG_HOME"] = str(world.root / "xdg")


def git_config_env(world: World, env: dict[str, str]) -> None:
    env["GIT_CONFIG_PARAMETERS"] = f"'core.fsmonitor'='{evil(world)}'"


def git_external_diff_env(world: World, env: dict[str, str]) -> None:
    env["GIT_EXTERNAL_DIFF"] = evil(world)


HOSTILE_GIT: list[tuple[str, Callable[[World, dict[str, str]], None], str]] = [
    ("git status", fsmonitor, "core.fsmonitor"),
    ("git diff", textconv, "diff.<driver>.textconv"),
    ("git log -p", textconv, "diff.<driver>.textconv"),
    ("git show", textconv, "diff.<driver>.textconv"),
    ("git blame README.md", textconv, "diff.<driver>.textconv"),
    ("git diff", diff_command, "diff.<driver>.command"),
    ("git diff", external_diff, "diff.external"),
    ("git diff", clean_filter, "filter.<driver>.clean"),
    ("git diff", process_filter, "filter.<driver>.process"),
    ("git log -1", signature, "log.showSignature + gpg.program"),
    ("git status", included, "include.path"),
    ("git status", home_gitconfig, "~/.gitconfig of an inherited HOME"),
    ("git status", xdg_gitconfig, "an inherited XDG_CONFIG_HOME"),
    ("git status", git_config_env, "an inherited GIT_CONFIG_PARAMETERS"),
    ("git diff", git_external_diff_env, "an inherited GIT_EXTERNAL_DIFF"),
]


@pytest.mark.parametrize("command, hostile, what", HOSTILE_GIT,
                         ids=[f"{c}-{w}" for c, _, w in HOSTILE_GIT])
def test_a_hostile_git_config_or_environment_runs_nothing(
        world: World, command: str, hostile: Callable[[World, dict[str, str]], None],
        what: str) -> None:
    env = dict(os.environ)
    hostile(world, env)
    control = subprocess.run(command.split(), cwd=world.workspace, env=env,
                             capture_output=True, stdin=subprocess.DEVNULL, timeout=30)
    assert world.canary.exists(), f"the control did not fire: {control.stderr!r}"
    world.canary.unlink()
    refs = world.refs()
    step = world.step(command, env)  # the step script inherits the hostile environment
    assert step.returncode == 0, step.stderr
    context = ET.fromstring(step.stdout).find("DO/context")
    assert context is not None and context.get("status") == "ok", step.stdout
    assert not world.canary.exists() and world.refs() == refs


def test_a_repository_that_moves_its_work_tree_is_refused(world: World) -> None:
    git("config", "core.worktree", str(world.root / "outside"), cwd=world.workspace)
    with pytest.raises(GatewayRefusal, match=r"git-config.*core.worktree"):
        world.run("git status")


def test_a_command_inherits_only_the_allowed_variables(world: World,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LD_PRELOAD", "PYTHONPATH", "BASH_ENV", "EDITOR", "GIT_DIR", "SSH_AUTH_SOCK",
                 "AWS_SECRET_ACCESS_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(name, "/tmp/evil")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("TZ", "UTC")
    world.script("env.py", "import json, os; print(json.dumps(dict(os.environ)))")
    import json

    seen = json.loads(world.run("python3 ${SKILL_DIR}/scripts/env.py").head)
    inherited = {k for k in seen if not k.startswith(("GIT_", "XDG_"))}
    assert inherited <= {"PATH", "LC_ALL", "LANG", "LANGUAGE", "TZ", "TERM", "HOME", "PAGER",
                         "LC_CTYPE", "PWD"}  # bwrap sets PWD
    assert seen["LC_ALL"] == "C.UTF-8" and seen["TZ"] == "UTC"
    assert seen["GIT_CONFIG_GLOBAL"] == "/dev/null" and seen["GIT_OPTIONAL_LOCKS"] == "0"
    assert seen["XDG_CONFIG_HOME"] == seen["HOME"] != os.environ.get("HOME")


def test_home_is_private_and_empty(world: World) -> None:
    world.script("home.py", "import os; h = os.environ['HOME']; print(os.listdir(h))")
    assert world.run("python3 ${SKILL_DIR}/scripts/home.py").head.strip() == "[]"


def test_an_inherited_pythonpath_cannot_inject_a_sitecustomize(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    hook = world.root / "outside" / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(f"open({str(world.canary)!r}, 'w').write('ran')\n")
    world.script("ok.py", "print('ok')")
    control = subprocess.run([sys.executable, str(world.skill / "scripts" / "ok.py")],
                             env={**os.environ, "PYTHONPATH": str(hook)}, capture_output=True)
    assert control.returncode == 0 and world.canary.exists()
    world.canary.unlink()
    monkeypatch.setenv("PYTHONPATH", str(hook))
    assert world.run("python3 ${SKILL_DIR}/scripts/ok.py").head == "ok\n"
    assert not world.canary.exists()


def test_git_status_leaves_the_index_alone(world: World) -> None:
    """GIT_OPTIONAL_LOCKS=0: a read-only command does not refresh (write) the index."""
    index = world.workspace / ".git" / "index"
    os.utime(world.workspace / "README.md")  # stale stat data git would refresh
    before = index.stat().st_mtime_ns
    assert world.run("git status --short").status == "ok"
    assert index.stat().st_mtime_ns == before
