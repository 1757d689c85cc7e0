"""skillrail skills: the framework (`skills.lib.workflow`) and one folder per skill."""
