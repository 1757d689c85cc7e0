"""The first steps of a prompt-engineer run: triage picks one of four scopes, and each scope
has its own analysis against the technique catalog, handing on the same two records.

In a module rather than in prompt-engineer.py: a script run as `__main__` is compiled on every
step, an imported module's bytecode is cached (joined, every step cost 1% more instructions)."""

import os, sys  # bootstrap: lets a bare checkout import `skills` (the same in every script)
sys.path.insert(0, os.path.realpath(__file__).rsplit(f"{os.sep}skills{os.sep}", 1)[0])

from importlib import import_module

from skills.lib.workflow import Action, Arg, Resource, StepDef

# The skill's folder name has a hyphen, so its helpers are imported by their dotted name.
_files = import_module("skills.prompt-engineer.scripts._files")

CATALOG = Resource("techniques", "resources/techniques.md",
                   "The technique catalog: what each fixes, when it hurts, its paper. Read it "
                   "before this step's work.")

triage = StepDef(
    "triage", "Read the prompt and choose the scope", actions=[
        Action(lambda ctx: f"Run `{_files.mkdir(ctx)}` first: this run's files go there. "
                           "Read all of the prompt to improve (the prompt param) and "
                           "what it refers to (included files, the prompts it hands work to). "
                           "If it was pasted into the conversation, save it verbatim to "
                           f"{_files.pasted_copy(ctx)}."),
        Action("Record where the original is: its path or paths (the saved copy's, if pasted).",
               out="ORIGINAL"),
        Action(lambda ctx: f"The user's goal: {ctx.params['goal']}. Record what the prompt is "
                           "for, who or what runs it (model, agent, tool) on which inputs, what "
                           "a good output is, and what is wrong with it now: the user's words "
                           "first, then what you see.", out="GOAL"),
        "Choose the scope below by what the prompt is and how it is used, not by what you "
        "want to change."],
    args=[Arg("ORIGINAL", "the original's path(s), one per line"),
          Arg("GOAL", "purpose, who runs it, a good output, what is wrong")],
    when={"skill": "a SKILL.md or its folder",
          "chain": "not a skill: two or more prompts, one's output feeding another",
          "system": "not a skill or chain: one prompt in force over a whole conversation of "
                    "varied requests (a chat system prompt, CLAUDE.md, AGENTS.md)",
          "single": "not a skill or chain: one prompt for one fixed task per call, sent as "
                    "the user or the system message (a template, a classifier's system prompt)"},
    forbidden=["Do not change the original."],
    next={"skill": "analyse-skill", "chain": "analyse-chain", "system": "analyse-system",
          "single": "analyse-single"})


def analyse(scope: str, title: str, checks: list[str], how_to_run: str) -> StepDef:
    """One scope's analysis: its own checks, then the same two records every scope hands on."""
    return StepDef(
        f"analyse-{scope}", title, reads=("ORIGINAL", "GOAL"), resources=[CATALOG], actions=[
            *checks,
            Action("Record the weaknesses as W1, W2, ...: each quotes the original (or says "
                   "what is missing and where), says what goes wrong because of it, and names "
                   "the catalog technique that addresses it. Then list the strengths to keep.",
                   out="ANALYSIS"),
            Action(f"{how_to_run} HOW_TO_RUN goes unchanged to the runners of every version, "
                   "so write it for any version: no file name or path, and nothing on where "
                   "outputs go or in what fields (each runner's brief says that).",
                   out="HOW_TO_RUN")],
        args=[Arg("ANALYSIS", "W1, W2, ...: quote, what goes wrong, technique; then strengths"),
              Arg("HOW_TO_RUN", "how a runner feeds any version one input, what its output "
                                "is; no paths")],
        forbidden=["Do not rewrite the prompt yet.",
                   "Do not list a weakness you cannot quote or point to."],
        next={"ok": "inputs"})


analyse_skill = analyse("skill", "Analyse the skill", [
    "Trigger: read the frontmatter description as the agent that picks skills would. Does it "
    "say what the skill does and when to use it, in the words users say? Would it fire on "
    "requests it should not, or miss ones it should?",
    "Steps: if its scripts register a skillrail workflow, `skillrail describe NAME` shows the "
    "steps and loops, and `python3 SCRIPT --step ID --stateless` (plus the flags --help marks "
    "required) prints what the agent sees at each step: read those, not only the code; "
    "otherwise read the body. Is each step one purpose, in order, with loops that end and the "
    "user asked where the decision is theirs?",
    "Instructions: is each action concrete (a verb, a path, where its output goes)? Are "
    "sub-agent briefs self-contained? Is long detail in resources, not the body? Do SKILL.md "
    "and the steps agree?"],
    "Say how a runner uses it: for each request, decide from the description alone whether "
    "to use the skill; if so, follow its steps as the agent would: where the version has step "
    "scripts, print each step with `--step ID --stateless`; where it is one file, its sections "
    "hold the step texts. The output is that decision, the actions taken and the final reply.")

analyse_chain = analyse("chain", "Analyse the chain", [
    "Map it: each prompt in order, what it receives, what it returns, who consumes that.",
    "Contracts: does each output carry what the next prompt needs, in the form it expects? "
    "Quote where information is lost, duplicated or reinterpreted between hops.",
    "Cuts: does a prompt do two jobs that fail differently (split it), or do two prompts do "
    "one (merge them)? Could independent prompts run in parallel?",
    "Checks: where is an error caught before it spreads? Does a checker see only what it "
    "checks, and are retries bounded?"],
    "Say how a runner uses it: the input enters the first prompt, each prompt is played in "
    "order on the previous output; the output is the final result and each hand-off.")

analyse_system = analyse("system", "Analyse the system prompt", [
    "Role and scope: does it say what the assistant is for, for whom, and what it declines or "
    "hands off? A bare persona ('You are an expert') adds little; a scope does.",
    "Rules: quote each rule that cannot be tested ('be helpful'), says only what not to do, or "
    "conflicts with another. Does it say which rule wins a conflict?",
    "Cost and placement: every line is paid on every turn. What serves only some requests "
    "(move it to a file read on demand or the user turn)? Are the rules that matter most at "
    "the start or the end?",
    "Defaults and trust: default length, tone, format, when to ask rather than assume; are "
    "documents and tool results treated as data, not instructions?"],
    "Say how a runner uses it: it is the standing instruction and each input is one user "
    "turn (or a short conversation); the output is the assistant's reply.")

analyse_single = analyse("single", "Analyse the prompt", [
    "Task: is the task stated in the first lines, with what a good output is and who reads "
    "it? Quote words two readers would take differently, and instructions that contradict "
    "each other.",
    "Context: are instructions and data kept apart (delimiters, labelled sections)? Does long "
    "material sit before the question, with the key instruction at the start or end?",
    "Reasoning: does the task need several steps? Then is reasoning asked for before the "
    "answer? Is it asked for on a lookup or a label, where it only costs?",
    "Examples and output: are examples varied and consistent with the rules? Is the output "
    "format stated, and parseable where a program reads it?"],
    "Say how a runner uses it: which placeholder an input fills (or that it is the user "
    "message); the output is the model's reply.")

ANALYSES = (analyse_skill, analyse_chain, analyse_system, analyse_single)
