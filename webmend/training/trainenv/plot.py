"""Draw the RL log as a PNG: mean reward per role and the policy loss, per update (matplotlib is in
the training environment, not the pipeline's). Run as
`python -m webmend.training.trainenv.plot --rl-log OUT/rl_log.jsonl --out OUT/rl_rewards.png`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rl-log", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    lines = [json.loads(line) for line in args.rl_log.read_text().splitlines() if line.strip()]
    updates = [line["update"] for line in lines]
    fig, (rewards, loss) = plt.subplots(1, 2, figsize=(9, 3.5))
    for role in ("generator", "critic", "refiner"):
        ys = [line["roles"].get(role, {}).get("mean_reward") for line in lines]
        if any(y is not None for y in ys):
            rewards.plot(updates, ys, marker="o", label=role)
    rewards.set(title="mean reward", xlabel="update")
    rewards.legend()
    loss.plot(updates, [line["update_stats"][-1].get("loss") for line in lines], marker="o", color="black")
    loss.set(title="policy loss", xlabel="update")
    fig.tight_layout()
    fig.savefig(args.out, dpi=80)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
