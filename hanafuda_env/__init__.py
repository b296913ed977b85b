"""Hanafuda Koi-Koi: a vectorized NumPy core, a single-game engine and RL environments.

Importing the package registers the single-agent Gymnasium environment as
``"hanafuda/KoiKoi-v0"`` (``gymnasium.make("hanafuda/KoiKoi-v0", opponent=...)``).
"""

import gymnasium

GYM_ID = "hanafuda/KoiKoi-v0"

if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="hanafuda_env.gym_env:KoiKoiSingleAgentEnv")
