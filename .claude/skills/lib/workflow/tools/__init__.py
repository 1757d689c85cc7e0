"""The tools layer: what people and CI use beside a run: simulation, diagrams and reports,
SKILL.md's lint and generated sections, scaffolding, run history. It imports `run` and the
layers below; the `skillrail` commands (commands/) sit on top of it."""
