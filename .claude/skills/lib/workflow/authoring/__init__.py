"""The authoring layer: what a skill author builds a workflow with besides the graph (review
loops, templates, conventions, substitutions, SKILL.md's frontmatter) and the registry, where
registering runs every check. It imports `protocol`, `graph` and `base`."""
