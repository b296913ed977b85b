"""The bots (agents.bots): the agent protocol, the baselines, the policy, its network and
checkpoint files, and the registry."""
