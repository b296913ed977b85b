"""Analysis (agents.analysis): rollout values of moves and of koi-koi decisions."""
