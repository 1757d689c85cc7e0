"""The repository a git command reads stays the workspace's: git's own answer to where the
repository is (a `.git` folder or file, a symlink, `commondir`, alternates, linked packs) is
refused when it leads out of the workspace, except to the repository the workspace is a worktree,
submodule or subfolder of; and in a subfolder, no object name (`HEAD:path`, `:path`), magic
pathspec (`:/`, `:(top)`), diff or status shows what lies outside it. Under the policy layer
alone and inside bubblewrap."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from skills.lib.workflow.base.errors import GatewayRefusal
from skills.lib.workflow.guard.execute import Completed
from skills.lib.workflow.guard.gatepolicy import load_policy
from skills.lib.workflow.guard.gateway import run_command

from .gateway_support import HAS_BWRAP, SECRET_MARK, World, git

SANDBOXES = [pytest.param("off", id="policy-only"),
             pytest.param("required", id="bwrap", marks=pytest.mark.skipif(
                 not HAS_BWRAP, reason="bubblewrap is not installed (apt-get install bubblewrap)"))]
COMMIT = ("-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always")


@pytest.fixture(params=SANDBOXES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "off":
        monkeypatch.setenv("SKILLRAIL_SANDBOX", "off")
    return str(request.param)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    made = World(tmp_path)
    made.unrestricted()
    monkeypatch.chdir(made.workspace)
    return made


def run_in(world: World, workspace: Path, command: str, mode: str) -> Completed:
    """`command` run through the gateway for the skill `demo`, from `workspace`."""
    if mode == "required":
        (workspace / ".claude").mkdir(exist_ok=True)
        (workspace / ".claude" / "skillrail.yaml").write_text("version: 2\nsandbox: required\n")
    return run_command(command, load_policy(str(world.skill), str(workspace)))


def refused(world: World, workspace: Path, command: str, mode: str) -> GatewayRefusal:
    with pytest.raises(GatewayRefusal) as caught:
        run_in(world, workspace, command, mode)
    return caught.value


def repository(path: Path, files: dict[str, str]) -> Path:
    """A repository at `path` with one commit holding `files`."""
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "-b", "main", cwd=path)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git("add", *files, cwd=path)
    git(*COMMIT, "commit", "-qm", "first", cwd=path)
    return path


def other(world: World) -> Path:
    """Another repository, outside the workspace, with the secret committed."""
    return repository(world.root / "other", {"secret.txt": SECRET_MARK + "\n"})


class TestWhereTheRepositoryIs:
    """The git folder, its common folder and its objects lie inside the workspace, or belong
    to the repository whose work tree holds it."""

    def test_a_git_file_leading_to_another_repository_is_refused(self, world: World,
                                                                  mode: str) -> None:
        elsewhere = other(world)
        shutil.rmtree(world.workspace / ".git")
        (world.workspace / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
        assert refused(world, world.workspace, "git show HEAD:secret.txt", mode).rule == \
            "git-outside"

    def test_a_git_symlink_to_another_repository_is_refused(self, world: World,
                                                            mode: str) -> None:
        elsewhere = other(world)
        shutil.rmtree(world.workspace / ".git")
        (world.workspace / ".git").symlink_to(elsewhere / ".git")
        assert refused(world, world.workspace, "git show HEAD:secret.txt", mode).rule == \
            "git-outside"

    def test_a_commondir_outside_the_workspace_is_refused(self, world: World, mode: str) -> None:
        elsewhere = other(world)
        (world.workspace / ".git" / "commondir").write_text(f"{elsewhere / '.git'}\n")
        control = subprocess.run(["git", "show", "HEAD:secret.txt"], cwd=world.workspace,
                                 capture_output=True, text=True)
        assert SECRET_MARK in control.stdout, "the control did not read the other repository"
        assert refused(world, world.workspace, "git show HEAD:secret.txt", mode).rule == \
            "git-outside"

    def test_alternates_outside_the_workspace_are_refused(self, world: World, mode: str) -> None:
        elsewhere = other(world)
        blob = git("rev-parse", "HEAD:secret.txt", cwd=elsewhere).strip()
        info = world.workspace / ".git" / "objects" / "info"
        info.mkdir(exist_ok=True)
        (info / "alternates").write_text(f"{elsewhere / '.git' / 'objects'}\n")
        assert SECRET_MARK in git("show", blob, cwd=world.workspace)  # the control
        assert refused(world, world.workspace, f"git show {blob}", mode).rule == "git-outside"

    def test_a_pack_linked_in_from_another_repository_is_refused(self, world: World,
                                                                 mode: str) -> None:
        elsewhere = other(world)
        git("repack", "-a", "-d", "-q", cwd=elsewhere)
        blob = git("rev-parse", "HEAD:secret.txt", cwd=elsewhere).strip()
        packs = world.workspace / ".git" / "objects" / "pack"
        packs.mkdir(exist_ok=True)
        for pack in (elsewhere / ".git" / "objects" / "pack").iterdir():
            (packs / pack.name).symlink_to(pack)
        assert SECRET_MARK in git("show", blob, cwd=world.workspace)  # the control
        assert refused(world, world.workspace, f"git show {blob}", mode).rule == "git-outside"

    def test_a_linked_worktree_reads_its_own_repository(self, world: World, mode: str) -> None:
        """A worktree's git folder lies in the main repository's, outside it by design."""
        tree = world.root / "wt"
        git("worktree", "add", "-q", str(tree), cwd=world.workspace)
        assert run_in(world, tree, "git status --short", mode).status == "ok"
        shown = run_in(world, tree, "git show HEAD:README.md", mode)
        assert shown.status == "ok" and shown.head == "# app\n"

    def test_a_submodule_reads_its_own_repository(self, world: World, mode: str) -> None:
        """A submodule's git folder lies in the superproject's .git/modules, and its config
        names the submodule's folder as its work tree."""
        source = repository(world.root / "subsource", {"x.txt": "in the submodule\n"})
        git(*COMMIT, "submodule", "add", "-q", str(source), "mod", cwd=world.workspace)
        module = world.workspace / "mod"
        assert run_in(world, module, "git status --short", mode).status == "ok"
        shown = run_in(world, module, "git show HEAD:x.txt", mode)
        assert shown.status == "ok" and shown.head == "in the submodule\n"

    def test_a_git_file_borrowing_a_submodule_of_an_enclosing_repository_is_refused(
            self, world: World, mode: str) -> None:
        """A submodule's git folder is the submodule's only where its config says so: another
        folder of the superproject pointing its .git there would read that submodule."""
        source = repository(world.root / "subsource", {"x.txt": SECRET_MARK + "\n"})
        superproject = repository(world.root / "super", {"README.md": "super\n"})
        git(*COMMIT, "submodule", "add", "-q", str(source), "mod", cwd=superproject)
        borrower = superproject / "borrower"
        borrower.mkdir()
        (borrower / ".git").write_text("gitdir: ../.git/modules/mod\n")
        git("config", "--file", str(superproject / ".git" / "modules" / "mod" / "config"),
            "--unset", "core.worktree", cwd=superproject)
        assert SECRET_MARK in git("show", "HEAD:x.txt", cwd=borrower)  # the control
        assert refused(world, borrower, "git show HEAD:x.txt", mode).rule == "git-outside"


@pytest.fixture
def subfolder(world: World) -> World:
    """The workspace `app` as a subfolder of a larger repository whose top holds the secret
    (committed first, then changed and staged), and whose history changes app/README.md."""
    shutil.rmtree(world.workspace / ".git")
    top = world.root
    (top / "top-secret.txt").write_text(SECRET_MARK + "\n")
    git("init", "-q", "-b", "main", cwd=top)
    git("add", "top-secret.txt", "app/README.md", cwd=top)
    git(*COMMIT, "commit", "-qm", "first", cwd=top)
    (world.workspace / "README.md").write_text("# app\nsecond\n")
    git(*COMMIT, "commit", "-qam", "second", cwd=top)
    (top / "top-secret.txt").write_text(SECRET_MARK + "\nstaged\n")
    git("add", "top-secret.txt", cwd=top)
    return world


#: Commands that run from the subfolder and must show nothing of the rest of the repository.
QUIET = ["git log -p", "git log -p --stat", "git show HEAD~1", "git log -p -- :/top-secret.txt",
         "git log -p -- :/", "git log -p -- :/*secret*", "git log -p -- :!README.md",
         "git diff --cached", "git grep -e SECRET -- :/", "git grep -e SECRET HEAD -- :/",
         "git status", "git status --porcelain", "git diff HEAD~1 --cached",
         "git log -p --full-diff"]
#: Commands that would read the rest of it, and the rule that refuses each.
REFUSED = [("git show HEAD:top-secret.txt", "git-object-path"),
           ("git show HEAD~1:top-secret.txt", "git-object-path"),
           ("git show HEAD:../top-secret.txt", "git-object-path"),
           ("git show :top-secret.txt", "git-object-path"),
           ("git show :0:top-secret.txt", "git-object-path"),
           ("git show main:top-secret.txt", "git-object-path"),
           ("git diff HEAD:top-secret.txt HEAD:app/README.md", "git-object-path"),
           ("git diff HEAD:app/README.md..HEAD:top-secret.txt", "git-object-path"),
           ("git grep -e SECRET HEAD:", "git-object-path"),
           ("git show HEAD:", "git-object-path"),
           ("git log -p --no-relative", "git-relative"),
           ("git status -v", "git-relative"),
           ("git status --porcelain -vv", "git-relative"),
           ("git diff --cached --relative=top-secret.txt", "git-relative")]


class TestASubfolderOfALargerRepository:
    """The workspace is the subfolder: what git shows of the repository stays inside it."""

    @pytest.mark.parametrize("command", QUIET)
    def test_nothing_outside_the_subfolder_is_shown(self, subfolder: World, mode: str,
                                                    command: str) -> None:
        done = run_in(subfolder, subfolder.workspace, command, mode)
        assert done.status in ("ok", "failed"), done.head
        assert not subfolder.leaked(done.head, done.tail), done.head

    @pytest.mark.parametrize("command, rule", REFUSED)
    def test_an_object_name_or_option_reaching_outside_is_refused(
            self, subfolder: World, mode: str, command: str, rule: str) -> None:
        assert refused(subfolder, subfolder.workspace, command, mode).rule == rule

    @pytest.mark.parametrize("command, shown", [
        ("git show HEAD:./README.md", "# app\nsecond\n"),
        ("git show HEAD:app/README.md", "# app\nsecond\n"),
        ("git show :./README.md", "# app\nsecond\n"),
        ("git show HEAD~1:app", "tree HEAD~1:app\n\nREADME.md\n")])
    def test_an_object_name_inside_the_subfolder_is_read(self, subfolder: World, mode: str,
                                                         command: str, shown: str) -> None:
        done = run_in(subfolder, subfolder.workspace, command, mode)
        assert (done.status, done.head) == ("ok", shown)

    def test_the_subfolders_own_changes_are_shown(self, subfolder: World, mode: str) -> None:
        done = run_in(subfolder, subfolder.workspace, "git log -p -1", mode)
        assert done.status == "ok" and "+second" in done.head


@pytest.fixture
def submodule(world: World) -> Path:
    """A submodule `mod` of the workspace whose own config (never listed by the gateway, which
    reads the superproject's) has a clean filter, on a file whose stat data changed."""
    source = repository(world.root / "subsource", {"x.txt": "x\n"})
    git(*COMMIT, "submodule", "add", "-q", str(source), "mod", cwd=world.workspace)
    git(*COMMIT, "commit", "-qm", "add mod", cwd=world.workspace)
    module = world.workspace / "mod"
    evil = world.root / "outside" / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {world.canary}\ncat\n")
    evil.chmod(0o755)
    git("config", "filter.sub.clean", str(evil), cwd=module)
    (module / ".gitattributes").write_text("* filter=sub\n")
    stamp = (module / "x.txt").stat().st_mtime_ns + 2_000_000_000
    os.utime(module / "x.txt", ns=(stamp, stamp))
    return module


class TestSubmodules:
    """git never goes into a submodule's work tree, where the submodule's config would run."""

    @pytest.mark.parametrize("command", ["git status --ignore-submodules=none",
                                         "git diff --ignore-submodules=untracked"])
    def test_asking_git_to_look_inside_a_submodule_is_refused(
            self, world: World, submodule: Path, mode: str, command: str) -> None:
        subprocess.run(command.split(), cwd=world.workspace, capture_output=True, check=True)
        assert world.canary.exists(), "the control did not fire"
        world.canary.unlink()
        assert refused(world, world.workspace, command, mode).rule == "git-submodule"
        assert not world.canary.exists()

    @pytest.mark.parametrize("where", ["config", "gitmodules"])
    def test_a_submodule_set_to_be_looked_inside_is_not(self, world: World, submodule: Path,
                                                        mode: str, where: str) -> None:
        if where == "config":
            git("config", "submodule.mod.ignore", "none", cwd=world.workspace)
        else:
            git("config", "--file", ".gitmodules", "submodule.mod.ignore", "none",
                cwd=world.workspace)
        subprocess.run(["git", "status"], cwd=world.workspace, capture_output=True, check=True)
        assert world.canary.exists(), "the control did not fire"
        world.canary.unlink()
        for command in ("git status", "git diff"):
            assert run_in(world, world.workspace, command, mode).status == "ok"
        assert not world.canary.exists()
