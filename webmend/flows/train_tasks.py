"""Prefect tasks of the train flow: thin wrappers around webmend.training.jobs and evaluation, each
publishing its artifacts (a metrics table, the loss or reward plot as a PNG)."""

from __future__ import annotations

import base64
from pathlib import Path

from prefect import task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE

SFT_ARTIFACT_KEY = "train-sft"
EVAL_ARTIFACT_KEY = "train-eval"
RL_ARTIFACT_KEY = "train-rl"


def _png_markdown(title: str, png: Path, lines: list[str]) -> str:
    """The plot inline (a data URI: the artifact stays readable without a file server) and its path."""
    body = "\n".join(lines)
    if png.exists():
        data = base64.b64encode(png.read_bytes()).decode()
        body += f"\n\n![{title}](data:image/png;base64,{data})\n\n`{png}`"
    return f"# {title}\n\n{body}\n"


@task(name="train-sft", cache_policy=NO_CACHE)
def train_sft(manifest: str, route: str, preset: str, model: str | None, overrides: dict | None,
              out: str | None, threads: int | None) -> dict:
    from webmend.training.jobs import run_sft_job

    plan = run_sft_job(manifest, route=route, preset=preset, model=model, out=out, overrides=overrides,
                       threads=threads)
    r, m = plan.record, plan.record.metrics
    if r.status != "succeeded":
        raise RuntimeError(f"SFT {r.run_id} {r.status} (exit {r.exit_code}); see {plan.run_dir / 'train.log'}")
    create_table_artifact(key=SFT_ARTIFACT_KEY, table=[{"step": s, "loss": loss} for s, loss in m.loss_history],
                          description=f"SFT {r.run_id}: loss per step")
    create_markdown_artifact(key=f"{SFT_ARTIFACT_KEY}-summary", markdown=_png_markdown(
        f"SFT {r.run_id}", plan.run_dir / "checkpoint" / "training_loss.png",
        [f"- manifest `{r.manifest.export_version}`, dataset `{r.manifest.dataset}` ({r.manifest.rows} rows)",
         f"- preset `{r.preset}`, model `{r.model}`", f"- {m.steps} steps, train loss {m.train_loss}, final loss {m.final_loss}"]))
    return {"run_dir": str(plan.run_dir), "run_id": r.run_id, "steps": m.steps, "final_loss": m.final_loss}


@task(name="train-eval", cache_policy=NO_CACHE)
def train_eval(checkpoints: list[str], items: str, out: str, backend: str, max_new_tokens: int,
               cfg_json: str | None) -> dict:
    from webmend.config import EvalConfig
    from webmend.evaluate.inputs import load_items
    from webmend.training import evaluation

    cfg = EvalConfig.model_validate_json(cfg_json) if cfg_json else EvalConfig()
    reports, table = evaluation.compare_checkpoints([evaluation.read_checkpoint(c) for c in checkpoints],
                                                    load_items(items), Path(out), cfg, backend=backend,
                                                    max_new_tokens=max_new_tokens)
    create_table_artifact(key=EVAL_ARTIFACT_KEY, description="checkpoints per family", table=[
        {"checkpoint": r["checkpoint"], "family": fam, "items": row["items"], "mean_score": row["mean_score"],
         "pass_rate": row["pass_rate"], **row["bands"]} for r in reports for fam, row in r["families"].items()])
    return {"report": str(Path(out) / "report.md"), "table": table}


def _slowest(step: dict | None) -> dict:
    """The reward step's slowest page and its share of the step's wall time (blank when all were cached)."""
    step = step or {}
    return {"reward_wall_s": step.get("wall_s"), "slowest_page": step.get("slowest_page"),
            "slowest_share": step.get("slowest_share")}


@task(name="train-rl", cache_policy=NO_CACHE)
def train_rl(tasks_file: str, contracts: list[str], init: str, preset: str, overrides: dict | None,
             updates: int | None, out: str | None, cfg_json: str | None, threads: int | None,
             dask_address: str | None = None, dask_workers: int | None = None, rollouts: dict | None = None) -> dict:
    from webmend.config import EvalConfig
    from webmend.training.jobs import RolloutOptions, plot_rl, run_rl_job

    cfg = EvalConfig.model_validate_json(cfg_json) if cfg_json else EvalConfig()
    outcome = run_rl_job(tasks_file, contracts, init, cfg, preset=preset, overrides=overrides, updates=updates,
                         out=out, threads=threads, dask_address=dask_address, dask_workers=dask_workers,
                         rollout=RolloutOptions.from_mapping(rollouts))
    rows = [{"update": line["update"], **{f"{role}_reward": v["mean_reward"] for role, v in line["roles"].items()},
             "loss": line["update_stats"][-1].get("loss"), "params_changed": line["params_after"] != line["params_before"],
             **_slowest(line.get("reward_step"))}
            for line in outcome.lines]
    create_table_artifact(key=RL_ARTIFACT_KEY, table=rows, description=f"RL {outcome.out}: per update")
    png = plot_rl(outcome.out)
    create_markdown_artifact(key=f"{RL_ARTIFACT_KEY}-summary", markdown=_png_markdown(
        f"RL {outcome.out.name}", png, [f"- init `{outcome.record['init']}`, {outcome.record['updates']} updates",
                                        f"- checkpoint `{outcome.out / 'checkpoint'}`"]))
    return {"out": str(outcome.out), "checkpoint": str(outcome.out / "checkpoint"), "updates": rows, "plot": str(png)}
