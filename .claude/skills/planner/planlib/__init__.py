"""What the planner's scripts share: the plan document (model.py; plain.py reads a valid one
without pydantic) and the step builders and paths the planner, the executor and their sub-agent
scripts use (steps.py)."""
