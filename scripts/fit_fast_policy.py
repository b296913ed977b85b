"""Fit the ``fast`` rollout policy's weights to the expert's choices and write them into
``hanafuda_env/koikoi/expert/fast_weights.py``.

    python scripts/fit_fast_policy.py [--games 1024] [--steps 240] [--seed 0]
                                      [--card-share 0.3] [--fast-share 0.5]

Plays the expert against itself (``--games`` matches side by side, ``--steps`` moves each,
new matches dealt as old ones end; a share ``--fast-share`` of the moves played by the fast
policy with the weights it has, so that the data hold the states the policy reaches) and
keeps, at every decision, the features of each
candidate outcome (:func:`hanafuda_env.koikoi.expert.fast.decision_rows`) and the expert's
move. Card moves are fitted as a conditional logit (the chance of the expert's move is the
softmax of the linear values over the decision's outcomes, a play with two matches summed
over both), leaving out decisions the policy settles by rule (a capture that makes yaku) or
that offer one move; koi-koi as a logistic regression, leaving out the hopeless stops the
policy settles by rule. Both with an L2 penalty (``--l2``), by L-BFGS from zero weights:
the same seed gives the same weights. Prints how often the fitted policy agrees with the
expert on the decisions it was fitted to.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numba import njit
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.bots.expert import ExpertAgent  # noqa: E402
from hanafuda_env.koikoi.core import KoiKoiCore  # noqa: E402
from hanafuda_env.koikoi.expert import fast as F  # noqa: E402
from hanafuda_env.koikoi.kernel import P_ROUNDS, compile_rules  # noqa: E402
from hanafuda_env.koikoi.state import DECIDE, KOIKOI, ROUND_OVER  # noqa: E402

OUT = ROOT / "hanafuda_env" / "koikoi" / "expert" / "fast_weights.py"


@njit(cache=False)
def _rows(records, actions, params, masks, counts, lookup, feats, chosen, group, made,
          start, decide, decide_y, n_decide, keep) -> tuple:
    """Card rows (features, chosen flag, decision index, made points) from ``start`` on and
    koi-koi rows from ``n_decide`` on, of every kept record's decision."""
    acts = np.empty(F.MAX_OUTCOMES, dtype=np.int64)
    gains = np.empty(F.MAX_OUTCOMES)
    n = start
    for g in range(records.shape[0]):
        s = records[g]
        if s.phase >= ROUND_OVER:
            continue
        me, other = s.mover, 1 - s.mover
        unit = F.rule_unit(counts)
        if s.phase == DECIDE:
            if n_decide < decide.shape[0]:
                u_stop = F.decide_features(s.hands[me], s.field, s.piles[me], s.piles[other],
                                           s.koikoi_calls[me], s.koikoi_calls[other],
                                           F.clipped_lead(s.match_score[me], unit),
                                           params[P_ROUNDS] - s.round_index, params, masks,
                                           counts, lookup, decide[n_decide])
                if u_stop > F.HOPELESS:
                    decide_y[n_decide] = 1.0 if actions[g] == KOIKOI else 0.0
                    n_decide += 1
            continue
        if not keep[g] or n + F.MAX_OUTCOMES > feats.shape[0]:
            continue
        k = F.decision_rows(s.hands[me], s.field, s.piles[me], s.piles[other], s.pending,
                            s.phase, s.koikoi_calls[me], s.koikoi_calls[other], params, masks,
                            counts, lookup, feats[n:n + F.MAX_OUTCOMES], acts, gains)
        distinct = False
        for o in range(k):
            distinct = distinct or acts[o] != acts[0]
        if not distinct or gains[:k].max() > 0:
            continue
        for o in range(k):
            chosen[n + o] = acts[o] == actions[g]
            group[n + o] = g
            made[n + o] = gains[o]
        n += k
    return n, n_decide


def collect(games: int, steps: int, seed: int, card_share: float, fast_share: float) -> tuple:
    """Play in which each move is the expert's, or with chance ``fast_share`` the fast
    policy's (its current weights: the states it reaches, as in DAgger); the card rows and
    koi-koi rows of every decision, labelled with the expert's move."""
    core = KoiKoiCore(games, seed=seed)
    expert = ExpertAgent(core.rules, seed=seed)
    rng = np.random.default_rng(seed)
    compiled = compile_rules(core.rules)
    size = int(games * steps * card_share * 7) + F.MAX_OUTCOMES
    feats = np.zeros((size, F.N_CARD_FEATURES))
    chosen = np.zeros(size, dtype=np.bool_)
    group = np.zeros(size, dtype=np.int64)
    made = np.zeros(size)
    decide = np.zeros((games * steps // 8 + 1, F.N_DECIDE_FEATURES))
    decide_y = np.zeros(len(decide))
    n = n_decide = 0
    decisions = np.zeros(size, dtype=np.int64)
    for step in range(steps):
        obs, mask = core.observe(), core.legal_action_mask()
        actions = expert.act(obs, mask)
        keep = rng.random(games) < card_share
        fast = np.empty(games, dtype=np.int64)
        F.records_actions(core.records, *compiled.ctx, fast)
        before = n
        n, n_decide = _rows(core.records, actions, *compiled.ctx, feats, chosen, group, made,
                            n, decide, decide_y, n_decide, keep)
        decisions[before:n] = step * games + group[before:n]
        core.step(np.where(rng.random(games) < fast_share, fast, actions))
    return feats[:n], chosen[:n], decisions[:n], decide[:n_decide], decide_y[:n_decide]


def fit_card_moves(feats: np.ndarray, chosen: np.ndarray, decisions: np.ndarray, l2: float
                   ) -> np.ndarray:
    """Conditional-logit weights: each decision's rows are consecutive."""
    starts = np.flatnonzero(np.r_[True, decisions[1:] != decisions[:-1]])
    index = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(decisions)]))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        v = feats @ w
        top = np.maximum.reduceat(v, starts)[index]
        e = np.exp(v - top)
        all_sum = np.add.reduceat(e, starts)
        chosen_sum = np.add.reduceat(e * chosen, starts)
        value = float(np.sum(np.log(all_sum) - np.log(chosen_sum)))
        p = e / all_sum[index]
        q = e * chosen / chosen_sum[index]
        grad = feats.T @ (p - q)
        return value + l2 * float(w @ w), grad + 2 * l2 * w

    result = minimize(loss, np.zeros(feats.shape[1]), jac=True, method="L-BFGS-B",
                      options={"maxiter": 500})
    return result.x


def fit_koikoi(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Logistic-regression weights (koi-koi = 1)."""

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        p = 1.0 / (1.0 + np.exp(-z))
        value = float(np.sum(np.logaddexp(0.0, z) - y * z))
        return value + l2 * float(w @ w), x.T @ (p - y) + 2 * l2 * w

    return minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B",
                    options={"maxiter": 500}).x


def card_agreement(feats: np.ndarray, chosen: np.ndarray, decisions: np.ndarray,
                   w: np.ndarray) -> float:
    """Share of decisions whose best outcome (ties: the first) is one of the expert's move."""
    starts = np.flatnonzero(np.r_[True, decisions[1:] != decisions[:-1]])
    v = feats @ w
    ends = np.r_[starts[1:], len(v)]
    hits = [chosen[a + int(np.argmax(v[a:b]))] for a, b in zip(starts, ends)]
    return float(np.mean(hits))


def _tuple_text(name: str, values: np.ndarray, names: tuple[str, ...]) -> str:
    lines = [f"{name} = ("]
    lines += [f"    {value!r},  # {label}" for value, label in zip(
        np.round(values, 6).tolist(), names)]
    return "\n".join(lines + [")"])


def write_weights(card: np.ndarray, decide: np.ndarray, summary: str, command: str) -> None:
    text = f'''"""The ``fast`` policy's weights (:mod:`hanafuda_env.koikoi.expert.fast`), fitted to
the expert's choices in expert self-play by ``scripts/fit_fast_policy.py``; written by it.

    {command}

{summary}
"""

{_tuple_text("CARD_WEIGHTS", card, F.CARD_FEATURE_NAMES)}

{_tuple_text("DECIDE_WEIGHTS", decide, F.DECIDE_FEATURE_NAMES)}
'''
    OUT.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1024, help="matches played side by side")
    parser.add_argument("--steps", type=int, default=240, help="moves per match slot")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the expert")
    parser.add_argument("--card-share", type=float, default=0.3,
                        help="share of card decisions kept (memory)")
    parser.add_argument("--fast-share", type=float, default=0.5,
                        help="share of moves the fast policy plays in the data's games")
    parser.add_argument("--l2", type=float, default=1.0, help="L2 penalty on the weights")
    parser.add_argument("--dry-run", action="store_true", help="print, do not write")
    args = parser.parse_args()
    feats, chosen, decisions, dx, dy = collect(args.games, args.steps, args.seed,
                                               args.card_share, args.fast_share)
    n_card = len(np.unique(decisions))
    print(f"card decisions {n_card} ({len(feats)} outcomes), koi-koi decisions {len(dx)} "
          f"(koi-koi {dy.mean():.3f})")
    card = fit_card_moves(feats, chosen, decisions, args.l2)
    decide = fit_koikoi(dx, dy, args.l2)
    agree = card_agreement(feats, chosen, decisions, card)
    decide_agree = float(np.mean((dx @ decide > 0) == (dy > 0.5)))
    summary = (f"Fitted on {n_card} card decisions and {len(dx)} koi-koi decisions: the\n"
               f"policy's card move is the expert's in {agree:.1%} of them (decisions that make\n"
               f"yaku or offer one move left out), its koi-koi decision in {decide_agree:.1%}.")
    print(summary)
    command = (f"python scripts/fit_fast_policy.py --games {args.games} --steps {args.steps} "
               f"--seed {args.seed} \\\n        --card-share {args.card_share} "
               f"--fast-share {args.fast_share} --l2 {args.l2}")
    if not args.dry_run:
        write_weights(card, decide, summary, command)
        print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
