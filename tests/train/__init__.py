"""Training (agents.train): GAE, the PPO update, its config, the opponent pool, the warm
start, resuming and whole runs."""
