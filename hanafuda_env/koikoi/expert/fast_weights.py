"""The ``fast`` policy's weights (:mod:`hanafuda_env.koikoi.expert.fast`), fitted to
the expert's choices in expert self-play by ``scripts/fit_fast_policy.py``; written by it.

    python scripts/fit_fast_policy.py --games 1024 --steps 240 --seed 0 \
        --card-share 0.3 --fast-share 0.5 --l2 1.0

Fitted on 62920 card decisions and 16614 koi-koi decisions: the
policy's card move is the expert's in 63.3% of them (decisions that make
yaku or offer one move left out), its koi-koi decision in 82.2%.
"""

CARD_WEIGHTS = (
    0.0,  # cap_me_0
    0.0,  # cap_me_1
    0.16369,  # cap_me_2
    -0.025015,  # cap_me_3
    0.027213,  # cap_me_4
    -0.030636,  # cap_me_5
    0.125878,  # cap_opp_0
    -0.002986,  # cap_opp_1
    -0.065745,  # cap_opp_2
    -0.035059,  # cap_opp_3
    0.015696,  # cap_opp_4
    -0.047299,  # cap_opp_5
    -0.246713,  # place_opp_0
    -0.103581,  # place_opp_1
    -0.282943,  # place_opp_2
    0.049972,  # place_opp_3
    0.135806,  # place_opp_4
    -0.04897,  # place_opp_5
    0.174948,  # place_me_0
    0.329863,  # place_me_1
    0.390014,  # place_me_2
    0.065665,  # place_me_3
    0.076892,  # place_me_4
    -0.018282,  # place_me_5
    -0.067028,  # left_opp_0
    -0.948114,  # left_opp_1
    -0.565109,  # left_opp_2
    -0.471777,  # left_opp_3
    0.133822,  # left_opp_4
    -0.309044,  # left_opp_5
    -1.113124,  # cap_bright
    0.069294,  # cap_animal
    0.464863,  # cap_ribbon
    0.649765,  # cap_chaff
    -2.486719,  # place_bright
    -3.249952,  # place_animal
    -3.450161,  # place_ribbon
    -4.133944,  # place_chaff
    0.0,  # cap_me_0_early
    0.0,  # cap_me_1_early
    0.022182,  # cap_me_2_early
    0.260291,  # cap_me_3_early
    -0.001657,  # cap_me_4_early
    0.041756,  # cap_me_5_early
    0.097179,  # cap_opp_0_early
    0.266743,  # cap_opp_1_early
    0.220328,  # cap_opp_2_early
    -0.002613,  # cap_opp_3_early
    -0.041853,  # cap_opp_4_early
    0.041706,  # cap_opp_5_early
    -0.176503,  # place_opp_0_early
    -1.553192,  # place_opp_1_early
    -0.0586,  # place_opp_2_early
    -0.478956,  # place_opp_3_early
    -0.324443,  # place_opp_4_early
    0.009757,  # place_opp_5_early
    -0.165007,  # place_me_0_early
    -0.267242,  # place_me_1_early
    -0.410207,  # place_me_2_early
    0.138624,  # place_me_3_early
    0.104333,  # place_me_4_early
    0.270223,  # place_me_5_early
    -0.023132,  # left_opp_0_early
    -0.497647,  # left_opp_1_early
    0.446124,  # left_opp_2_early
    0.483243,  # left_opp_3_early
    -0.620317,  # left_opp_4_early
    0.097495,  # left_opp_5_early
    1.054571,  # cap_bright_early
    -1.603349,  # cap_animal_early
    -1.84035,  # cap_ribbon_early
    -2.417358,  # cap_chaff_early
    -5.422249,  # place_bright_early
    -1.461052,  # place_animal_early
    -1.686325,  # place_ribbon_early
    -0.432087,  # place_chaff_early
)

DECIDE_WEIGHTS = (
    -0.207108,  # bias
    -4.122891,  # win_if_stop
    1.339446,  # gain_if_doubled
    -0.605258,  # loss_if_equalled
    -0.427306,  # stop_points
    -1.259793,  # opp_near_1
    -0.038252,  # opp_near_2
    1.090938,  # opp_near_3
    1.24993,  # own_near_1
    -0.315843,  # own_near_2
    -1.141195,  # own_near_3
    1.209503,  # hand_left
    0.0,  # opp_called
    -1.930144,  # last_round
    1.676665,  # own_sure
    0.994442,  # own_ways
    -1.368411,  # opp_on_field
    -2.008287,  # opp_ways
)
