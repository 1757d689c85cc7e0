"""skill-runner's library: a prose skill's plan, checked, sealed and built into a workflow."""
