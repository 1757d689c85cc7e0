"""What the planner's scripts share: the plan document (model.py) and the step builders and
paths the planner, the executor and their sub-agent scripts use (steps.py)."""
