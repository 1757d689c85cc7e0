"""The doc-sync skill: its checker's extraction on a table of markdown snippets, the checker run
as the verify gate runs it (a real subprocess, --help through the gateway), and one realistic
run played as an agent would, on a sample repository whose README has a stale path and a
removed flag: the edits file fails its check once, the review passes, the final check fails on
a copy the edits missed, and the fix makes it pass."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import SKILLS_ROOT
from .test_planner import Agent

SCRIPTS = SKILLS_ROOT / "doc-sync" / "scripts"


def _module(name: str) -> ModuleType:
    """A helper of the skill's scripts, imported as the checker imports it: with its folder
    on the path for its own imports (here only while it loads)."""
    spec = importlib.util.spec_from_file_location(f"doc_sync_{name}", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module


docrefs = _module("_docrefs")
docstrings = _module("_docstrings")


def refs(markdown: str, clis: tuple[str, ...] = ("tool",)) -> list[tuple[str, int, str]]:
    return [(r.kind, r.line, r.text) for r in docrefs.extract(markdown, set(clis))]


class TestExtraction:
    @pytest.mark.parametrize(("markdown", "expected"), [
        ("See [the guide](docs/guide.md#usage).", [("link", 1, "docs/guide.md")]),
        ("![logo](img/logo%20big.png \"Logo\")", [("link", 1, "img/logo big.png")]),
        ("[home](https://example.com) [top](#top) [mail](mailto:a@b.c)", []),
        ("[ref]: ../CONTRIBUTING.md", [("link", 1, "../CONTRIBUTING.md")]),
        ("Edit `config/app.yaml` or `.github/workflows/ci.yml`.",
         [("path", 1, "config/app.yaml"), ("path", 1, ".github/workflows/ci.yml")]),
        ("The entry is `setup.py`; see `src/app/`.",
         [("path", 1, "setup.py"), ("path", 1, "src/app/")]),
        ("Branch `origin/main` in `src/app`.",
         [("maybe-path", 1, "origin/main"), ("maybe-path", 1, "src/app")]),
        ("Not paths: `os.path.join`, `1.2.3`, `a b c`, `~/.config/x.toml`, `/etc/hosts`.", []),
        ("`[link](in/code.md)` is code, not a link.", []),
    ], ids=["link", "image", "external", "reference", "paths", "file-and-folder", "maybe",
            "not-paths", "link-in-code"])
    def test_paths_and_links(self, markdown: str, expected: list[tuple[str, int, str]]) -> None:
        """Relative link targets and path-like inline code are found; URLs, anchors, dotted
        names, versions and absolute paths are not."""
        assert refs(markdown) == expected

    @pytest.mark.parametrize(("markdown", "expected"), [
        ("```bash\n$ python3 tools/gen.py --all\n./run.sh && make build\n```",
         [("command", 2, "python3 tools/gen.py --all"), ("command", 3, "./run.sh"),
          ("command", 3, "make build")]),
        ("```console\n$ tool --fast\nfast output\n```", [("command", 2, "tool --fast")]),
        ("```sh\n# a comment\nFOO=1 sudo tool \\\n  --long x > out.txt 2>&1\n```",
         [("command", 4, "tool --long x")]),
        ("```sh\ngit status\npip install x\n```", []),
        ("```python\nimport tool\n```\n```yaml\nrun: tool --raw\n```", []),
        ("Run `npm run lint`, then `tool serve --port 80`.",
         [("command", 1, "npm run lint"), ("command", 1, "tool serve --port 80")]),
        ("# tool\n\n## Usage\n\n    python3 tool.py --input FILE --output DIR\n\nMore.",
         [("command", 5, "python3 tool.py --input FILE --output DIR")]),
        ("Run:\n\n\ttool --tab\n\n    ./gen.sh\n    src/app.py\n    usage: tool [-h]",
         [("command", 3, "tool --tab"), ("command", 5, "./gen.sh")]),
        ("```\ntool --raw\nraw output\n```\n```\n$ tool --a\ntool --output-line\n```",
         [("command", 2, "tool --raw"), ("command", 6, "tool --a")]),
        ("Intro\n    tool --lazy-continuation\n\n- item\n\n    tool --in-list\n\nDone.",
         []),
    ], ids=["bash", "console-prompts", "continuation", "unknown-tools", "non-shell-blocks",
            "inline", "indented-block", "indented-listing", "untyped-fence", "not-code"])
    def test_commands(self, markdown: str, expected: list[tuple[str, int, str]]) -> None:
        """Shell-block lines and inline code become simple commands (prompts, comments,
        assignments, wrappers and redirections dropped) when the checker can check them. In
        untyped blocks (a bare fence, lines indented four spaces after a blank line) only the
        lines that run a CLI, an interpreter, make, npm or a ./script count, and after a `$ `
        prompt only prompted lines; an indented line continuing a paragraph or a list item is
        no code."""
        assert refs(markdown) == expected

    @pytest.mark.parametrize(("markdown", "expected"), [
        ("Use `tool --fast`.\n\n| `--slow` | slower |\n| `-q, --quiet` | less |",
         [("command", 1, "tool --fast"), ("flag", 3, "--slow"), ("flag", 4, "--quiet")]),
        ("```sh\ntool run\n```\n`--dry-run` tries it.", [("command", 2, "tool run"),
                                                        ("flag", 4, "--dry-run")]),
        ("`tool`\n## Options\n`--kept`", [("flag", 3, "--kept")]),
        ("`tool`, then `docker build .` with `--no-cache`", []),
        ("```sh\ntool x\npip install tool\n```\n`--upgrade`", [("command", 2, "tool x")]),
        ("`--alone` belongs to no CLI.", []),
    ], ids=["table", "after-block", "across-headings", "other-tool-inline",
            "other-tool-block", "no-cli"])
    def test_flags_belong_to_the_cli_of_the_last_command(
            self, markdown: str, expected: list[tuple[str, int, str]]) -> None:
        """A bare `--flag` belongs to the CLI the doc last showed; another tool's command in
        between leaves it to none."""
        assert refs(markdown) == expected

    def test_a_cli_run_through_an_interpreter_is_recognised(self) -> None:
        """A CLI listed by its script path is found behind its interpreter, with its flags."""
        found = docrefs.extract("```sh\npython3 manage.py migrate --plan\n```", {"manage.py"})
        assert docrefs.cli_of(found[0].words, {"manage.py"}) == ("manage.py", "migrate",
                                                                  ["--plan"])

    @pytest.mark.parametrize("entry", ["calc.cli: python3 -m calc.cli",
                                       "calc: python3 -m calc.cli", "python3 -m calc.cli",
                                       "calc: python -m calc.cli"])
    def test_a_cli_is_found_by_its_command_as_well_as_its_name(self, entry: str) -> None:
        """The cold read's case: a package CLI run with python -m, listed in clis.txt by a
        dotted name, a short name or its command alone; the doc's `python3 -m calc.cli` line
        runs it whichever, with its flags (any python counts as python3)."""
        name, _, command = entry.partition(": ")
        clis = {name: command or name}
        found = docrefs.extract("```sh\npython3 -m calc.cli 1 2 --precision 2\n```\n"
                                "Add `--json` for JSON.\n", clis)
        assert [(r.kind, r.line, r.text) for r in found] == [
            ("command", 2, "python3 -m calc.cli 1 2 --precision 2"), ("flag", 4, "--json")]
        assert docrefs.cli_of(found[0].words, clis) == (name, "", ["--precision"])
        assert found[1].words == (name, "")
        assert docrefs.cli_of(("python3", "-m", "calc", "--precision"), clis) is None

    def test_docstrings_yield_their_documented_parameters(self) -> None:
        """reST, Google and NumPy sections are read; each name comes with the real ones."""
        source = ('def f(a, b):\n    """F.\n\n    Args:\n        a (int): x.\n'
                  '        gone: y.\n            more: text.\n\n    Returns:\n        z: w.\n'
                  '    """\n\ndef g(x):\n    """G.\n\n    :param x: one\n    :param int y: two\n'
                  '    """\n\ndef h(p):\n    """H.\n\n    Parameters\n    ----------\n'
                  '    p, q : int\n        both.\n    """\n\ndef _private(z):\n'
                  '    """Args:\n        nope: no."""\n')
        found = [(r.line, r.text, r.words) for r in docstrings.docstring_refs(source)]
        assert found == [(5, "a", ("f", "a", "b")), (6, "gone", ("f", "a", "b")),
                         (16, "x", ("g", "x")), (17, "y", ("g", "x")),
                         (25, "p", ("h", "p")), (25, "q", ("h", "p"))]


def check(repo: Path) -> subprocess.CompletedProcess[str]:
    """The checker run as the verify gate runs it: from the repository root."""
    return subprocess.run([sys.executable, str(SCRIPTS / "_check-docs.py")], cwd=repo,
                          capture_output=True, text=True, timeout=60)


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
    (repo / ".claude" / "skillrail.yaml").write_text(
        "commands:\n  - executable: python3\n    scripts: true\n    timeout: 60\n"
        "  - executable: sampletool\n")
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
            "drift: 3 problems in 1 file (5 references in 1 doc checked, 0 ignored)"]

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
                                   "'- executable: sampletool' to the commands of "
                                   ".claude/skillrail.yaml")
        assert lines[4:] == ["incomplete: 2 flags not checked, so the docs are not known to be "
                             "clean; no other drift (5 references in 1 doc checked, 1 ignored)"]

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
            "--width", "clean: 2 references in 1 doc checked, 2 flags by hand, 0 ignored"]
        (repo / ".claude" / "skillrail.yaml").write_text("commands:\n  - executable: python3\n"
                                                        "    scripts: true\n  - executable: "
                                                        "sampletool\n")
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
            "drift: 3 problems in 1 file (5 references in 2 docs checked, 0 ignored)"]
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
            "drift: 1 problem in 1 file (1 reference in 1 doc checked, 0 ignored)"]

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
            "drift: 3 problems in 1 file (4 references in 1 doc checked, 0 ignored)"]

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


def test_a_run_finds_the_drift_reviews_the_edits_and_passes_the_final_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline shows the drift; an edits file whose old text repeats is sent back with
    the reason; the reviewed edits leave one copy of the flag, which the gate catches and the
    fix step, shown the check's output, corrects; the report follows the passing check."""
    repo = sample_repo(tmp_path, monkeypatch)
    work, agent = repo / ".doc-sync", Agent(repo)
    doc = agent.run([sys.executable, str(SCRIPTS / "doc-sync.py"), "--step", "1"])
    assert f"Write {work / 'docs.txt'}:" in "".join(doc.findtext("DO/action[2]", ""))
    (work / "docs.txt").write_text("README.md\n")
    (work / "clis.txt").write_text("sampletool\n")
    doc = agent.follow(agent.follow(doc, INVENTORY="README.md; CLI sampletool"),
                       DOC_MAP="README.md: bin/sampletool, tools/build.py")
    baseline = doc.find("DO/context[@name='verify']")
    assert doc.get("id") == "baseline" and baseline is not None
    assert baseline.get("status") == "failed" and "'docs/setup.md' does not exist" in (
        baseline.text or "")
    detect = agent.follow(doc)
    assert "README.md:18: 'sampletool --colour'" in detect.findtext(
        "memory/item[@key='VERIFY_OUTPUT']", "")
    # The agent lists the flag once, missing the table's copy of it.
    (work / "drift.md").write_text("D1 README.md:7 links docs/setup.md, gone; docs/install.md "
                                   "(check)\n\nD2 README.md:11 --colour; --color (check)\n")
    propose = agent.follow(detect, "drift", DRIFT="2 in README.md")
    assert propose.find("banner").get("iteration") == "1"  # type: ignore[union-attr]
    edits = {"edits": [
        {"id": "E1", "finding": "D1", "doc": "README.md", "location": "README.md:7",
         "old": "[the setup guide](docs/setup.md)", "new": "[the install guide](docs/install.md)",
         "evidence": "docs/install.md"},
        {"id": "E2", "finding": "D2", "doc": "README.md", "location": "README.md:11",
         "old": "--colour", "new": "--color", "evidence": "sampletool --help"}]}
    (work / "edits.json").write_text(json.dumps(edits))
    checked = agent.follow(propose)
    assert checked.get("id") == "check-edits" and "1 problem" in checked.findtext("DO/action", "")
    again = agent.follow(checked)
    assert "edit E2: its old text occurs 2 times in README.md" in again.findtext("DO/action", "")
    edits["edits"][1]["old"] = "sampletool --colour auto"
    edits["edits"][1]["new"] = "sampletool --color auto"
    (work / "edits.json").write_text(json.dumps(edits))
    review = agent.follow(agent.follow(again))
    prompt = review.findtext("DO/dispatch/prompt", "")
    assert review.get("id") == "review-edits" and f"EDITS_FILE: {work / 'edits.json'}" in prompt
    assert "qr/edits.py --step 1 --parent" in review.findtext("DO/dispatch/subagent_cmd", "")
    (work / "qr-edits.json").write_text('{"items": []}')
    apply = agent.follow(agent.follow(review))
    assert apply.get("id") == "apply"
    readme = repo / "README.md"
    text = readme.read_text()
    for edit in edits["edits"]:
        text = text.replace(edit["old"], edit["new"])
    readme.write_text(text)
    gate = agent.follow(apply, APPLIED="E1 applied, E2 applied")
    verify = gate.find("DO/context[@name='verify']")
    assert gate.get("id") == "verify" and verify is not None
    assert (verify.text or "").splitlines()[1:] == [
        "README.md:18: 'sampletool --colour' is not in the --help of 'sampletool'; did you mean "
        "'--color'?", "flags of 'sampletool': checked against its --help",
        "drift: 1 problem in 1 file (5 references in 1 doc checked, 0 ignored)"]
    fix = agent.follow(gate)
    assert fix.get("id") == "fix" and "README.md:18" in fix.findtext(
        "memory/item[@key='VERIFY_OUTPUT']", "")
    readme.write_text(readme.read_text().replace("`--colour`", "`--color`"))
    passed = agent.follow(fix, FIXED="README.md:18 --colour -> --color")
    assert passed.find("DO/context[@name='verify']").get("status") == "ok"  # type: ignore
    report = agent.follow(passed)
    assert report.get("id") == "report" and report.find("NEXT/complete") is not None
    assert "clean: 5 references" in report.findtext("memory/item[@key='VERIFY_OUTPUT']", "")
    sizes = [len(d) for d in agent.printed]
    print(f"doc-sync run: {len(sizes)} steps, {sum(sizes)} characters, largest {max(sizes)}")
    assert max(sizes) < 4_000
    assert all(ET.fromstring(d).find("DO") is not None for d in agent.printed)


def test_the_gate_stays_shut_while_a_flag_is_not_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The docs are right, but the CLI's flags can be read neither from its --help (the default
    policy refuses it) nor from its code: the agent finds no drift, yet the gate fails with
    the flags named; once the fix step records them as checked by hand, with the code that
    defines them, the gate passes and says so."""
    repo = sample_repo(tmp_path, monkeypatch)
    (repo / ".claude" / "skillrail.yaml").unlink()
    (repo / "README.md").write_text("# sampletool\n\nRun `sampletool --width 72 notes.txt`.\n")
    work, agent = repo / ".doc-sync", Agent(repo)
    doc = agent.run([sys.executable, str(SCRIPTS / "doc-sync.py"), "--step", "1"])
    (work / "docs.txt").write_text("README.md\n")
    (work / "clis.txt").write_text("sampletool\n")
    doc = agent.follow(agent.follow(agent.follow(doc, INVENTORY="README.md; CLI sampletool"),
                                    DOC_MAP="README.md: bin/sampletool"))
    assert doc.get("id") == "detect" and "hand-checked.txt as 'CLI --FLAG'" in "".join(
        doc.findtext("DO/action[1]", ""))
    gate = agent.follow(doc, "clean", DRIFT="none")
    verify = gate.find("DO/context[@name='verify']")
    assert gate.get("id") == "verify" and verify is not None and verify.get("status") == "failed"
    assert "incomplete: 1 flag not checked" in (verify.text or "")
    fix = agent.follow(gate)
    assert fix.get("id") == "fix"
    (work / "hand-checked.txt").write_text("'sampletool --width'  # bin/sampletool:2\n")
    passed = agent.follow(fix, FIXED="--width checked by hand: bin/sampletool:2")
    assert passed.find("DO/context[@name='verify']").get("status") == "ok"  # type: ignore
    report = agent.follow(passed)
    assert report.get("id") == "report" and "1 flag by hand" in report.findtext(
        "memory/item[@key='VERIFY_OUTPUT']", "")
