"""Evaluation: matches between two agents on the same decks, a league with Elo ratings, and
confidence intervals that treat a pair of matches as the independent unit."""

from agents.eval.league import fit_elo, round_robin
from agents.eval.matches import play_matches
from agents.eval.stats import Z95, pair_mean_interval, pair_rate_interval, wilson_interval

__all__ = ["Z95", "fit_elo", "pair_mean_interval", "pair_rate_interval", "play_matches",
           "round_robin", "wilson_interval"]
