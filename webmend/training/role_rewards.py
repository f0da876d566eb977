"""WebLoop's role rewards and group-relative advantages (webloop.txt 3.2-3.3, A.2), in plain Python.

No torch and nothing of the pipeline: the RL loop in the training environment imports this module
as it is, and the pipeline's tests check it on hand-computed examples.

- Generator and Refiner outputs are pages: their reward is r_web (or the evaluator's page reward).
- A Critic output is a critique: per-requirement verdicts z_hat for one imperfect draft y_b.
  Discriminability D compares z_hat with the draft's execution labels z (balanced accuracy, Youden's
  J when both classes are present); helpfulness H is the mean r_web of the refinements made from
  the critique minus r_web(y_b). For the first K updates the Critic is rewarded with D, then with
  H + lambda * D (K = 15, lambda = 0.2 in the paper). An unparseable critique gets the minimum.
- Advantages are normalised within each comparison group: the generations of a task, the critiques
  of one draft, the refinements of one critique."""

from __future__ import annotations

import math
from dataclasses import dataclass

CRITIC_MIN_REWARD = -1.0  # the lowest D; an unparseable critique gets it and no refinement branch


def discriminability(labels: dict[str, int], verdicts: dict[str, int] | None) -> float:
    """D(c) in [-1, 1] (eq. 16): a_fail + a_pass - 1 with both classes, 2a - 1 with one, 0 with none.

    A requirement the critique gives no verdict for counts as a wrong verdict."""
    if verdicts is None:
        return CRITIC_MIN_REWARD
    failed = [q for q, z in labels.items() if z == 0]
    passed = [q for q, z in labels.items() if z == 1]
    a_fail = sum(verdicts.get(q) == 0 for q in failed) / len(failed) if failed else None
    a_pass = sum(verdicts.get(q) == 1 for q in passed) / len(passed) if passed else None
    if a_fail is not None and a_pass is not None:
        return a_fail + a_pass - 1
    if a_fail is not None:
        return 2 * a_fail - 1
    if a_pass is not None:
        return 2 * a_pass - 1
    return 0.0


def helpfulness(refinement_rewards: list[float], draft_reward: float) -> float:
    """H(c) (eq. 18-19): the mean reward of the refinements made from the critique, minus the draft's."""
    if not refinement_rewards:
        raise ValueError("helpfulness needs at least one refinement of the critique")
    return sum(refinement_rewards) / len(refinement_rewards) - draft_reward


@dataclass(frozen=True)
class CriticSchedule:
    """r_crit at update m (eq. 7): D while m <= warmup_updates, then H + lam * D."""

    warmup_updates: int = 15
    lam: float = 0.2

    def reward(self, update: int, d: float, h: float | None) -> float:
        if update <= self.warmup_updates:
            return d
        if h is None:
            raise ValueError(f"update {update} is past the warm-up: the critic reward needs H")
        return h + self.lam * d


def group_advantages(rewards: list[float], eps: float = 1e-4) -> list[float]:
    """A_o = (r - mean) / (std + eps) within one comparison group (eq. 9); std over the group
    itself (ddof 0). A group of one, or of equal rewards, has no signal: all zeros."""
    n = len(rewards)
    if n == 0 or max(rewards) == min(rewards):
        return [0.0] * n  # exactly: float rounding of the mean must not invent a signal
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / n)
    return [(r - mean) / (std + eps) for r in rewards]


def advantages_by_group(groups: dict[str, list[float]], eps: float = 1e-4) -> dict[str, list[float]]:
    """Each role-specific group normalised on its own; groups may differ in size."""
    return {name: group_advantages(rewards, eps) for name, rewards in groups.items()}
