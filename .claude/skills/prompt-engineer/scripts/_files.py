"""Where a prompt-engineer run keeps its files: the optimised version at --out, each pass's
earlier version and every version's outputs beside it, under names a judge cannot read
anything into."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

import hashlib
import re
import shlex

from skills.lib.workflow import StepContext

NO_INPUTS = "none"  # --inputs when the user gave no test inputs: the run writes its own
# How an outputs file shows each input above its output: the runner writes it and the judge
# reads it, so both take the words from here.
INPUT_SHOWN = ("the input (its text; for an input given as a file, the file's path and its "
               "first line)")


def out_file(ctx: StepContext) -> str:
    """Absolute, so the agent and its sub-agents name the same file whatever their folder."""
    return os.path.abspath(ctx.params["out"])


def work_dir(ctx: StepContext) -> str:
    """The folder of the optimised version, where every working file goes."""
    return os.path.dirname(out_file(ctx))


def mkdir(ctx: StepContext) -> str:
    """The shell command that creates the working folder; the agent runs it before the run
    writes anything there (a missing --out folder would fail the first write)."""
    return f"mkdir -p {shlex.quote(work_dir(ctx))}"


def inputs_problem(given: str) -> str | None:
    """A --inputs value naming a file that is not there, explained; None when every word is a
    file, 'pasted' or the whole value is 'none'."""
    if given == NO_INPUTS:
        return None
    try:
        words = shlex.split(given)
    except ValueError:
        return f"'{given}' has an unclosed quote; quote each path that holds a space"
    missing = [w for w in words if w != "pasted" and not os.path.isfile(w)]
    where = f"no file at {', '.join(missing)}" if missing else "it is empty" if not words else ""
    return (f"{where}; give the test inputs' file paths, 'pasted' for inputs in the "
            "conversation, or none") if where else None


def pasted_copy(ctx: StepContext) -> str:
    """Where a prompt pasted into the conversation is saved, so runners can read it."""
    return os.path.join(work_dir(ctx), "original.md")


def pass_of(ctx: StepContext) -> int:
    """Which pass through propose..judge this is: 1, then one more per 'loses'."""
    return ctx.passes("judge:loses") + 1


def outputs_of(ctx: StepContext, version: str) -> str:
    """A version's outputs file. The judges read these by path, so the name must not tell
    which version wrote it, nor which came first: it is a digest of the run and the version,
    the same at every step of the run and the same on every reprint (no randomness)."""
    seed = f"{ctx.run or out_file(ctx)}:{version}".encode()
    name = f"outputs-{hashlib.sha256(seed).hexdigest()[:6]}.md"
    return os.path.join(work_dir(ctx), name)


def original_outputs(ctx: StepContext) -> str:
    return outputs_of(ctx, "original")


def new_outputs(ctx: StepContext, n: int = 0) -> str:
    """The outputs of pass n's version (default: this pass's); each pass keeps its own."""
    return outputs_of(ctx, f"pass-{n or pass_of(ctx)}")


def kept_version(ctx: StepContext, n: int) -> str:
    """Where pass n's version is kept once a later pass replaces it at --out."""
    stem, ext = os.path.splitext(out_file(ctx))
    return f"{stem}-pass{n}{ext or '.md'}"


def input_count(ctx: StepContext) -> str:
    numbers = set(re.findall(r"(?m)^\W*I(\d+)\b", ctx.values.get("INPUTS", "")))
    return f"{len(numbers)} inputs" if numbers else "the inputs in INPUTS"
