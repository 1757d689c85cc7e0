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
    made.sandbox(request.param, monkeypatch)
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
    assert context is not None and context.get("status", "ok") == "ok", step.stdout
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
                         "LC_CTYPE", "PWD", "SKILLRAIL_USER_PATH"}  # bwrap sets PWD
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


def test_a_config_too_long_to_read_whole_is_refused(world: World) -> None:
    """A driver behind a million characters of config would be past any capped read of it:
    the gateway reads git's whole configuration, or refuses to run git."""
    with (world.workspace / ".git" / "config").open("a") as config:
        config.write(f'[pad "{"x" * 1_000_001}"]\n\tkey = value\n')
    clean_filter(world, {})
    control = subprocess.run(["git", "diff"], cwd=world.workspace, capture_output=True,
                             stdin=subprocess.DEVNULL, timeout=30)
    assert world.canary.exists(), f"the control did not fire: {control.stderr!r}"
    world.canary.unlink()
    step = world.step("git diff")
    context = ET.fromstring(step.stdout).find("DO/context")
    assert context is not None and context.get("status") == "refused", step.stdout
    assert "rule 'git-config'" in (context.text or "") and not world.canary.exists()


def fake_programs(world: World, names: tuple[str, ...]) -> Path:
    """A folder inside the workspace holding a program of each name that says it ran."""
    folder = world.workspace / "bin"
    folder.mkdir(exist_ok=True)
    for name in names:
        fake = folder / name
        fake.write_text(f"#!/bin/sh\necho PWNED-{name} >&2\ntouch {world.canary}\n")
        fake.chmod(0o755)
    return folder


def test_git_never_looks_a_neutralising_program_up_on_path(world: World) -> None:
    """The settings that switch git's programs off name no program git would look up on PATH,
    where the project's own bin/ (or .venv/bin) may stand first."""
    signature(world, {})  # a signed commit: %GG runs the signature program
    folder = fake_programs(world, ("false", "gpg", "gpgsm", "ssh-keygen", "less", "vi"))
    env = {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}"}
    control = subprocess.run(["git", "-c", "gpg.program=false", "log", "-1", "--format=%GG"],
                             cwd=world.workspace, env=env, capture_output=True, text=True)
    assert "PWNED-false" in control.stdout and world.canary.exists(), control
    world.canary.unlink()
    step = world.step("git log -1 --format=%GG", env)
    context = ET.fromstring(step.stdout).find("DO/context")
    assert context is not None and context.get("status", "ok") == "ok", step.stdout
    assert "PWNED" not in step.stdout and not world.canary.exists()


def test_a_command_gets_no_path_folder_inside_the_workspace(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a command runs in its turn is not found in the project either."""
    inner = [world.workspace / "bin", world.workspace / ".venv" / "bin"]
    for folder in inner:
        folder.mkdir(parents=True)
    monkeypatch.setenv("PATH", ":".join([*map(str, inner), os.environ["PATH"]]))
    world.script("path.py", "import os; print(os.environ['PATH'])")
    seen = world.run("python3 ${SKILL_DIR}/scripts/path.py").head.strip().split(":")
    assert seen != [""] and not [p for p in seen if p.startswith(str(world.workspace))]


def test_an_alias_cannot_stand_in_for_a_subcommand_the_project_adds(world: World) -> None:
    """An alias would run a shell command, or options the grammar never read."""
    with (world.workspace / ".claude" / "skillrail.yaml").open("a") as policy:
        policy.write("programs:\n  git:\n    subcommands:\n"
                     "      lg: {options: {--oneline: flag}}\n")
    git("config", "alias.lg", f"!{evil(world)}", cwd=world.workspace)
    subprocess.run(["git", "lg"], cwd=world.workspace, capture_output=True, timeout=30)
    assert world.canary.exists(), "the control did not fire"
    world.canary.unlink()
    assert world.run("git lg").status == "failed" and not world.canary.exists()


@pytest.fixture
def venv(world: World) -> Path:
    """A virtualenv inside the workspace whose site-packages holds a .pth file that runs code,
    one that adds a folder, a sitecustomize, and a module; its python."""
    folder = world.workspace / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True,
                   capture_output=True, timeout=120)
    site = next(folder.glob("lib/python3*/site-packages"))
    (site / "zz-evil.pth").write_text(
        f"import sys; print('PTH RAN'); sys.stdout.flush(); open({str(world.canary)!r}, 'w')\n")
    (site / "sitecustomize.py").write_text("print('SITECUSTOMIZE RAN')\n")
    (site / "helper_mod.py").write_text("VALUE = 'from site-packages'\n")
    extra = world.workspace / "extra"
    extra.mkdir()
    (extra / "extra_mod.py").write_text("VALUE = 'from a .pth path'\n")
    (site / "paths.pth").write_text(f"# a folder to import from\n{extra}\n")
    return folder / "bin" / "python"


def test_a_workspace_virtualenv_runs_none_of_its_pth_or_sitecustomize_code(
        world: World, venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The step runs on the project's own interpreter; the gateway's Python child still finds
    the packages there, and the folders its .pth files name, but runs no code from them."""
    control = subprocess.run([str(venv), "-c", "pass"], capture_output=True, text=True)
    assert "PTH RAN" in control.stdout and "SITECUSTOMIZE RAN" in control.stdout
    world.canary.unlink()
    monkeypatch.setattr(sys, "executable", str(venv))
    world.script("imports.py", "import helper_mod, extra_mod, skills.lib.workflow\n"
                               "print(helper_mod.VALUE, '|', extra_mod.VALUE)")
    done = world.run("python3 ${SKILL_DIR}/scripts/imports.py")
    assert (done.status, done.head) == ("ok", "from site-packages | from a .pth path\n")
    world.unrestricted()
    world.policy_file((world.workspace / ".claude" / "skillrail.yaml").read_text()
                      + "programs:\n  python3: {interpreter: skill, modules: [json.tool]}\n")
    (world.workspace / "data.json").write_text('{"a": 1}')
    done = world.run("python3 -m json.tool data.json")
    assert done.status == "ok" and "RAN" not in done.head and '"a": 1' in done.head
    assert not world.canary.exists()
