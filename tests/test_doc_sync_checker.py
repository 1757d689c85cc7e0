"""doc-sync's checker run as the verify gate runs it: a real subprocess from the repository
root, --help through the gateway, the flags read from code when --help cannot run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .test_doc_sync_refs import SCRIPTS


def check(repo: Path) -> subprocess.CompletedProcess[str]:
    """The checker run as the verify gate runs it: from the repository root."""
    return subprocess.run([sys.executable, str(SCRIPTS / "_check-docs.py")], cwd=repo,
                          capture_output=True, text=True, timeout=60)


#: Lets the sample CLI's --help run: it lives inside the project (bin/), so it is `local`.
POLICY = "version: 2\nprograms:\n  sampletool: {options: {--help: flag}, local: true}\n"


def sample_repo(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with a CLI on PATH (`sampletool`: --color and --width, no --colour), a
    gateway policy that lets its --help run, and a README with a stale path and a flag the
    CLI no longer has, written twice."""
    repo = root / "sample"
    for folder in ("docs", "tools", "bin", ".claude", ".doc-sync"):
        (repo / folder).mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "docs" / "install.md").write_text("# Installing\n")
    (repo / "tools" / "build.py").write_text("print('built')\n")
    cli = repo / "bin" / "sampletool"
    cli.write_text(f"#!{sys.executable}\nprint('usage: sampletool [--color WHEN] [--width N] "
                   "FILE')\n")
    cli.chmod(0o755)
    monkeypatch.setenv("PATH", f"{repo / 'bin'}:{Path(sys.executable).parent}:/usr/bin:/bin")
    (repo / ".claude" / "skillrail.yaml").write_text(POLICY)
    (repo / "README.md").write_text(
        "# sampletool\n\nFormats text files.\n\n## Install\n\n"
        "Follow [the setup guide](docs/setup.md), then build it:\n\n"
        "```sh\npython3 tools/build.py --release\nsampletool --colour auto notes.txt\n```\n\n"
        "## Options\n\n| option | effect |\n|---|---|\n"
        "| `--colour` | colour the output |\n| `--width N` | wrap at N columns |\n")
    return repo


class TestChecker:
    def test_drift_is_one_line_per_problem_and_exit_1(self, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
        """A stale link and a removed flag (twice) are reported with a fix; exit status 1."""
        repo = sample_repo(tmp_path, monkeypatch)
        (repo / ".doc-sync" / "docs.txt").write_text("README.md\n")
        (repo / ".doc-sync" / "clis.txt").write_text("sampletool\n")
        done = check(repo)
        assert done.returncode == 1, done.stderr
        assert done.stdout.splitlines() == [
            "README.md:7: 'docs/setup.md' does not exist (link target); fix or delete the "
            "reference",
            "README.md:11: 'sampletool --colour' is not in the --help of 'sampletool'; did you "
            "mean '--color'?",
            "README.md:18: 'sampletool --colour' is not in the --help of 'sampletool'; did you "
            "mean '--color'?",
            "flags of 'sampletool': checked against its --help",
            "drift: 3 problems in 1 file (5 references in 1 doc (1 markdown) checked, 0 ignored)"]

    def test_flags_no_method_reads_leave_the_docs_incomplete_not_clean(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Under the default policy the CLI's --help is refused and its code defines no
        options the check can read: its flags are not checked, which is no drift but no pass
        either (exit 3), with how to settle them and how to let the check run the help."""
        repo = sample_repo(tmp_path, monkeypatch)
        (repo / ".claude" / "skillrail.yaml").unlink()
        (repo / ".doc-sync" / "docs.txt").write_text("README.md\n")
        (repo / ".doc-sync" / "clis.txt").write_text("sampletool\n")
        (repo / ".doc-sync" / "ignore.txt").write_text("'docs/setup.md'  # built by CI\n")
        done = check(repo)
        assert done.returncode == 3, done.stdout
        lines = done.stdout.splitlines()
        assert lines[:2] == [
            "flags of 'sampletool': could not be read (its --help: refused by the gateway's rule "
            "'not-in-policy'; its code: bin/sampletool holds no add_argument, add_option or "
            "click option call)",
            "not checked: 'sampletool' --colour, --width at README.md:11, README.md:18, "
            "README.md:19"]
        assert lines[2].startswith("to settle them: compare each flag not checked with the "
                                   "code; record each the code defines in "
                                   ".doc-sync/hand-checked.txt as 'sampletool --FLAG'  # FILE:LINE")
        assert lines[3].startswith("to have the check run 'sampletool --help': the user adds "
                                   "'sampletool: {options: {--help: flag}}' under 'programs:' "
                                   "in .claude/skillrail.yaml")
        assert lines[4:] == ["incomplete: 2 flags not checked, so the docs are not known to be "
                             "clean; no other drift (5 references in 1 doc (1 markdown) "
                             "checked, 1 ignored)"]

    def test_flags_checked_by_hand_count_only_with_the_code_that_defines_them(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A flag recorded in hand-checked.txt with FILE:LINE counts as checked; one recorded
        without is a problem; an entry for a flag the check could read is noted as spare."""
        repo = sample_repo(tmp_path, monkeypatch)
        (repo / ".claude" / "skillrail.yaml").unlink()
        (repo / "README.md").write_text("# sampletool\n\nRun `sampletool --width 72 a.txt`; "
                                        "add `--color always`.\n")
        (repo / ".doc-sync" / "docs.txt").write_text("README.md\n")
        (repo / ".doc-sync" / "clis.txt").write_text("sampletool\n")
        hand = repo / ".doc-sync" / "hand-checked.txt"
        hand.write_text("'sampletool --width'  # bin/sampletool:2\n'sampletool --color'  # "
                        "looked fine\n")
        done = check(repo)
        assert done.returncode == 1 and done.stdout.splitlines()[0] == (
            ".doc-sync/hand-checked.txt:2: 'sampletool --color' is recorded as checked by hand "
            "without the code that defines it; add '# FILE:LINE that defines it' or delete "
            "the line")
        hand.write_text("'sampletool --width'  # bin/sampletool:2\n'sampletool --color'  # "
                        "bin/sampletool:2\n")
        done = check(repo)
        assert done.returncode == 0 and done.stdout.splitlines() == [
            "flags of 'sampletool': could not be read (its --help: refused by the gateway's rule "
            "'not-in-policy'; its code: bin/sampletool holds no add_argument, add_option or "
            "click option call)",
            "checked by hand (.doc-sync/hand-checked.txt): sampletool --color, sampletool "
            "--width", "clean: 2 references in 1 doc (1 markdown) checked, 2 flags by hand, "
            "0 ignored"]
        (repo / ".claude" / "skillrail.yaml").write_text(POLICY)
        assert check(repo).stdout.splitlines()[:2] == [
            "flags of 'sampletool': checked against its --help",
            "note: hand-checked entries for no flag left unchecked (delete them): sampletool "
            "--color, sampletool --width"]

    def test_a_removed_flag_in_an_indented_block_is_drift_read_from_argparse(
            self, tmp_path: Path) -> None:
        """The cold read's project: an argparse script the gateway will not run, a README whose
        usage line is an indented code block with a removed --output, a missing link and a
        make target without a Makefile. The flags are read from the add_argument calls, and
        the output says so; a location the same line holds twice is named once."""
        (tmp_path / ".doc-sync").mkdir()
        (tmp_path / "docs").mkdir()
        (tmp_path / "tool.py").write_text(
            "import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('--input', required=True)\n"
            "    parser.add_argument('--verbose', action='store_true')\n"
            "    parser.parse_args()\n")
        (tmp_path / "README.md").write_text(
            "# tool\n\nCounts lines in a file.\n\n## Usage\n\n"
            "    python3 tool.py --input FILE --output DIR\n\n"
            "See [the usage guide](docs/usage.md) for more.\n\n## Testing\n\nRun `make test`.\n")
        (tmp_path / "docs" / "guide.md").write_text(
            "# Guide\n\nRun `python3 tool.py --input FILE`. Add `--verbose` to echo each line.\n")
        (tmp_path / ".doc-sync" / "docs.txt").write_text("README.md\ndocs/\n")
        (tmp_path / ".doc-sync" / "clis.txt").write_text("tool.py: python3 tool.py\n")
        done = check(tmp_path)
        assert done.returncode == 1 and done.stdout.splitlines() == [
            "README.md:7: 'tool.py --output' is not in the option calls of tool.py; drop it or "
            "name the option that replaced it",
            "README.md:9: 'docs/usage.md' does not exist (link target); did you mean "
            "'docs/guide.md'?",
            "README.md:13: 'make test' needs a Makefile, and there is none; fix or delete the "
            "command",
            "flags of 'tool.py': checked against the option calls of tool.py (its --help: "
            "refused by the gateway's rule 'script-outside-skill')",
            "drift: 3 problems in 1 file (5 references in 2 docs (2 markdown) checked, 0 ignored)"]
        (tmp_path / "tool.py").write_text("import argparse\nFLAGS = ['--input', '--verbose']\n"
                                          "p = argparse.ArgumentParser()\n"
                                          "for flag in FLAGS:\n    p.add_argument(flag)\n")
        (tmp_path / "README.md").write_text("# tool\n")
        assert check(tmp_path).stdout.splitlines()[:2] == [
            "flags of 'tool.py': could not be read (its --help: refused by the gateway's rule "
            "'script-outside-skill'; its code: tool.py computes option names at run time (line "
            "5))", "not checked: 'tool.py' --input, --verbose at docs/guide.md:3"]

    @pytest.mark.parametrize(("entry", "label"), [
        ("calc.cli: python3 -m calc.cli", "calc.cli"), ("calc: python3 -m calc.cli", "calc"),
        ("python3 -m calc.cli", "python3 -m calc.cli")])
    def test_a_python_m_cli_is_checked_whatever_name_lists_it(
            self, tmp_path: Path, entry: str, label: str) -> None:
        """The second cold read's project: a package CLI run as `python3 -m calc.cli`, with
        --round and --json, whose README runs it with a --precision it lacks. Each way of
        listing it in clis.txt finds the flag, read from the argparse calls, and every CLI
        listed gets its 'flags of' line, one the docs never run with a flag included."""
        (tmp_path / ".doc-sync").mkdir()
        (tmp_path / "calc").mkdir()
        (tmp_path / "calc" / "__init__.py").write_text("")
        (tmp_path / "calc" / "cli.py").write_text(
            "import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('a', type=float)\n    parser.add_argument('b', type=float)\n"
            "    parser.add_argument('--round', type=int)\n"
            "    parser.add_argument('--json', action='store_true')\n    parser.parse_args()\n")
        (tmp_path / "tool.py").write_text("print('a tool')\n")
        (tmp_path / "README.md").write_text(
            "# calc\n\nAdds two numbers.\n\n```sh\npython3 -m calc.cli 1 2 --precision 2\n"
            "```\n")
        (tmp_path / ".doc-sync" / "docs.txt").write_text("README.md\n")
        (tmp_path / ".doc-sync" / "clis.txt").write_text(f"{entry}\ntool: python3 tool.py\n")
        done = check(tmp_path)
        assert done.returncode == 1 and done.stdout.splitlines() == [
            f"README.md:6: '{label} --precision' is not in the option calls of calc/cli.py; "
            "drop it or name the option that replaced it",
            f"flags of '{label}': checked against the option calls of calc/cli.py (its --help: "
            "refused by the gateway's rule 'interpreter-option')",
            "flags of 'tool': no documented flags found (in commands that start with 'tool' or "
            "'python3 tool.py')",
            "drift: 1 problem in 1 file (1 reference in 1 doc (1 markdown) checked, 0 ignored)"]

    @pytest.mark.parametrize(("source", "documented", "line"), [
        ("import argparse\np = argparse.ArgumentParser()\n"
         "p.add_argument('--cache', action=argparse.BooleanOptionalAction)\n"
         "g = p.add_mutually_exclusive_group()\ng.add_argument('-q', '--quiet')\n",
         "--no-cache --quiet --loud", "'cli.py --loud' is not in the option calls of cli.py"),
        ("import click\n\n@click.command()\n@click.option('--shout/--no-shout')\n"
         "def main(shout):\n    pass\n", "--no-shout --whisper",
         "'cli.py --whisper' is not in the option calls of cli.py"),
        ("import argparse\nbase = argparse.ArgumentParser(add_help=False)\n"
         "p = argparse.ArgumentParser(parents=[base])\np.add_argument('--x')\n", "--y",
         "flags of 'cli.py': could not be read (its --help: refused by the gateway's rule "
         "'script-outside-skill'; its code: cli.py builds its parser from parent parsers)"),
        ("import typer\n\ndef main(name: str = typer.Option('x')):\n    pass\n", "--name",
         "flags of 'cli.py': could not be read (its --help: refused by the gateway's rule "
         "'script-outside-skill'; its code: cli.py uses typer, whose options come from "
         "function parameters)"),
    ], ids=["argparse", "click", "parents", "typer"])
    def test_flags_are_read_from_code_only_when_it_names_them_all(
            self, tmp_path: Path, source: str, documented: str, line: str) -> None:
        """argparse (with BooleanOptionalAction's --no- form), optparse and click calls are
        read; parent parsers and typer, whose options the calls do not name whole, leave the
        flags not checked rather than guessed."""
        (tmp_path / ".doc-sync").mkdir()
        (tmp_path / "cli.py").write_text(source)
        (tmp_path / "README.md").write_text(f"Run `python3 cli.py {documented}`.\n")
        (tmp_path / ".doc-sync" / "docs.txt").write_text("README.md\n")
        (tmp_path / ".doc-sync" / "clis.txt").write_text("cli.py: python3 cli.py\n")
        assert line in check(tmp_path).stdout.splitlines()[0]

    def test_commands_must_name_scripts_targets_and_npm_scripts_that_exist(
            self, tmp_path: Path) -> None:
        """A missing script, make target or npm script is drift, with the closest name."""
        (tmp_path / ".doc-sync").mkdir()
        (tmp_path / ".doc-sync" / "docs.txt").write_text("docs/\n")
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "dev.md").write_text(
            "```bash\n./tools/lint.sh && make docs\nnpm run tests -- --watch\n"
            "python3 -m http.server\n```\n")
        (tmp_path / "Makefile").write_text(".PHONY: doc\nbuild: deps\n\tcc\n")
        (tmp_path / "package.json").write_text('{"scripts": {"test": "jest"}}')
        done = check(tmp_path)
        assert done.returncode == 1 and done.stdout.splitlines() == [
            "docs/dev.md:2: './tools/lint.sh' does not exist (the script of './tools/lint.sh'); "
            "fix or delete the reference",
            "docs/dev.md:2: 'make docs' names no target of Makefile; did you mean 'doc'?",
            "docs/dev.md:3: 'npm run tests' names no script of package.json; did you mean "
            "'test'?",
            "drift: 3 problems in 1 file (4 references in 1 doc (1 markdown) checked, 0 ignored)"]

    def test_inputs_are_checked_too(self, tmp_path: Path) -> None:
        """A missing list is a one-line error (exit 2); a listed doc that does not exist and
        an ignore entry without a reason are problems no ignore entry hides."""
        assert check(tmp_path).stderr.startswith("error: no doc list at .doc-sync/docs.txt")
        assert check(tmp_path).returncode == 2
        (tmp_path / ".doc-sync").mkdir()
        (tmp_path / "api.py").write_text('def load(path):\n    """Load.\n\n    :param strict: '
                                         'x\n    """\n')
        (tmp_path / ".doc-sync" / "docs.txt").write_text("api.py\ngone.md\n")
        (tmp_path / ".doc-sync" / "ignore.txt").write_text("gone.md\n")
        done = check(tmp_path)
        assert done.returncode == 1 and done.stdout.splitlines()[:3] == [
            ".doc-sync/docs.txt:2: 'gone.md' is not a file or folder in the repository; fix "
            "or delete the line",
            ".doc-sync/ignore.txt:1: 'gone.md' is ignored without a reason; add '# why it is "
            "right as written' or delete the line",
            "api.py:4: 'load(strict)' is documented, but load takes no parameter 'strict'; "
            "rename it or delete its entry"]


def sphinx_repo(root: Path) -> Path:
    """A Sphinx project: a package under src/, docs/ with conf.py and an index.rst whose roles
    and directives name real objects and files, but for one :func: role and one
    literalinclude that no longer hold."""
    repo = root / "calc"
    for folder in ("src/calc", "docs", "examples", ".doc-sync"):
        (repo / folder).mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "src" / "calc" / "__init__.py").write_text(
        "from .core import Calculator\n\n\ndef add(a, b):\n    return a + b\n")
    (repo / "src" / "calc" / "core.py").write_text(
        "class Calculator:\n    def __init__(self):\n        self.memory = 0\n\n"
        "    def total(self):\n        return self.memory\n")
    (repo / "examples" / "demo.py").write_text("print(1)\n")
    (repo / "docs" / "conf.py").write_text("project = 'calc'\n")
    (repo / "docs" / "index.rst").write_text(
        "calc\n====\n\n.. currentmodule:: calc\n\n"
        "Use :func:`calc.add` (or :func:`add`); :func:`~calc.plus` was renamed.\n"
        ":class:`calc.core.Calculator` keeps :attr:`~calc.core.Calculator.memory` and\n"
        ":meth:`calc.core.Calculator.total`. See :func:`os.path.join` and :class:`int`.\n\n"
        ".. literalinclude:: ../examples/demo.py\n   :language: python\n   :lines: 1\n\n"
        ".. literalinclude:: /../examples/old_demo.py\n\n"
        ".. autoclass:: calc.core.Calculator\n   :members:\n")
    (repo / ".doc-sync" / "docs.txt").write_text("docs/\n")
    return repo


def test_a_sphinx_projects_roles_and_includes_are_checked_against_the_code(
        tmp_path: Path) -> None:
    """docutils reads the reST: the broken :func: role and literalinclude are found, each on
    its own line, with the fix; the roles that name real objects (a re-export, an instance
    attribute, a name relative to currentmodule) and names outside the project pass."""
    done = check(sphinx_repo(tmp_path))
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "docs/index.rst:6: ':func:`calc.plus`' names nothing the code defines: calc has no "
        "'plus'; fix or delete the reference",
        "docs/index.rst:14: '../examples/old_demo.py' does not exist (link target); did you "
        "mean '../examples/demo.py'?",
        "drift: 2 problems in 1 file (11 references in 1 doc (1 reStructuredText) checked, "
        "0 ignored)"]


def test_without_docutils_a_rest_doc_is_not_read_and_the_check_says_so(tmp_path: Path) -> None:
    """An interpreter without docutils cannot read reST: the doc is named as not read, with the
    fix, and the check is incomplete (exit 3), never clean."""
    import venv

    repo = sphinx_repo(tmp_path)
    (repo / "README.md").write_text("# calc\n\nSee [the docs](docs/index.rst).\n")
    (repo / ".doc-sync" / "docs.txt").write_text("README.md\ndocs/\n")
    bare = tmp_path / "bare"
    venv.create(bare, with_pip=False, symlinks=True)
    done = subprocess.run([str(bare / "bin" / "python"), str(SCRIPTS / "_check-docs.py")],
                          cwd=repo, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"not read: docs/index.rst: docutils is not installed for this interpreter "
        f"({bare / 'bin' / 'python'}; pip install docutils)",
        "incomplete: 1 doc not read, so the docs are not known to be clean; no other drift "
        "(1 reference in 1 doc (1 markdown) checked, 0 ignored)"]
