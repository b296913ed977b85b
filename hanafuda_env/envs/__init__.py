"""Environments on the cores: PettingZoo AEC envs (``koikoi_v0``, ``hanaawase_v0``), the
Gymnasium single-agent env, the batched vector envs, OpenSpiel and RLlib adapters."""
