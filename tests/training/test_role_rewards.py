"""WebLoop's critic rewards and group advantages on hand-computed examples."""

from __future__ import annotations

import math

import pytest

from webmend.training.role_rewards import (CRITIC_MIN_REWARD, CriticSchedule, advantages_by_group, discriminability,
                                      group_advantages, helpfulness)

LABELS = {"R1": 1, "R2": 1, "R3": 0, "R4": 0, "R5": 1}  # 3 satisfied, 2 violated


def test_discriminability_is_youdens_j_when_both_classes_are_present():
    # a_pass = 2/3 (R1, R2 right, R5 wrong), a_fail = 1/2 (R3 right, R4 wrong): J = 2/3 + 1/2 - 1
    verdicts = {"R1": 1, "R2": 1, "R3": 0, "R4": 1, "R5": 0}
    assert discriminability(LABELS, verdicts) == pytest.approx(1 / 6)
    assert discriminability(LABELS, dict(LABELS)) == 1.0
    assert discriminability(LABELS, {q: 1 - z for q, z in LABELS.items()}) == -1.0
    # saying "all pass" is no better than chance, whatever the class balance
    assert discriminability(LABELS, {q: 1 for q in LABELS}) == 0.0


def test_single_class_and_missing_verdicts():
    assert discriminability({"R1": 0, "R2": 0}, {"R1": 0, "R2": 1}) == 0.0          # 2 * 1/2 - 1
    assert discriminability({"R1": 1, "R2": 1, "R3": 1}, {"R1": 1, "R2": 1, "R3": 1}) == 1.0
    assert discriminability({}, {"R1": 1}) == 0.0
    assert discriminability(LABELS, {"R1": 1, "R2": 1, "R5": 1}) == pytest.approx(1 + 0 - 1)  # R3, R4 unanswered
    assert discriminability(LABELS, None) == CRITIC_MIN_REWARD


def test_helpfulness_is_the_mean_refinement_gain_over_the_draft():
    assert helpfulness([0.9, 0.6, 0.6], 0.5) == pytest.approx(0.2)
    assert helpfulness([0.2], 0.5) == pytest.approx(-0.3)
    with pytest.raises(ValueError):
        helpfulness([], 0.5)


def test_the_critic_reward_switches_from_d_to_h_plus_a_fifth_of_d_after_15_updates():
    s = CriticSchedule()
    assert [s.reward(m, d=0.5, h=0.2) for m in (1, 15)] == [0.5, 0.5]
    assert s.reward(16, d=0.5, h=0.2) == pytest.approx(0.2 + 0.2 * 0.5)
    assert CriticSchedule(warmup_updates=2, lam=0.5).reward(3, d=-1.0, h=0.1) == pytest.approx(-0.4)
    with pytest.raises(ValueError):
        s.reward(16, d=0.5, h=None)


def test_group_advantages_are_normalised_within_each_group():
    # rewards 1, 2, 3: mean 2, population std sqrt(2/3)
    a = group_advantages([1.0, 2.0, 3.0], eps=0.0)
    assert a == pytest.approx([-math.sqrt(1.5), 0.0, math.sqrt(1.5)])
    assert group_advantages([0.7, 0.7, 0.7]) == [0.0, 0.0, 0.0]
    assert group_advantages([0.4]) == [0.0] and group_advantages([]) == []
    groups = advantages_by_group({"gen": [0.0, 1.0], "crit:draft0": [0.5, 0.5, 0.5, 1.5], "ref:c1": [0.2]}, eps=0.0)
    assert groups["gen"] == pytest.approx([-1.0, 1.0])
    # 0.5 x3 and 1.5: mean 0.75, std sqrt(3/16 + 9/16 / ... ) = sqrt((3*0.0625 + 0.5625)/4) = sqrt(0.1875)
    assert groups["crit:draft0"] == pytest.approx([-0.25 / math.sqrt(0.1875)] * 3 + [0.75 / math.sqrt(0.1875)])
    assert groups["ref:c1"] == [0.0]
    assert group_advantages([1.0, 3.0])[1] == pytest.approx(1 / (1 + 1e-4))
