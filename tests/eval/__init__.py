"""Evaluation (agents.eval): matches, intervals, Elo and leagues."""
