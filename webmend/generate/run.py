"""Run generation over a prompt list: DIR/responses.jsonl, DIR/summary.json and the generations table.

Samples run in chunks (webmend.stage: one batch a chunk), each chunk's samples on a thread pool (the
client's per-provider limiter bounds what reaches the provider); results are written in input order
whatever the completion order. Every sample ends up in the table: generated, refused, failed, or not_generated with the reason (a spend cap or rejected
credentials stop the run cleanly; nothing is dropped silently). The table is written one file per
chunk, keyed by the chunk's samples and the config, and replaced on a rerun, so a rerun after a stop
updates the rows instead of duplicating them.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from webmend.generate.core import RunStop, SampleResult, generate_sample
from webmend.generate.prompts import PromptIn
from webmend.generate.samples import GenerationConfig, Sample, plan_samples
from webmend.llm.cache import ResponseCache
from webmend.llm.client import LLMClient
from webmend.stage import executors
from webmend.stage.batches import Batch
from webmend.stage.driver import Work, drive
from webmend.stage.progress import Report, log_report
from webmend.stage.spec import StageSpec
from webmend.store import DataRoot, make_key

RESPONSES = "responses.jsonl"
SUMMARY = "summary.json"
TABLE = "generations"
SPEC = StageSpec("generate", "sample answers to the kept prompts from the model", writes=(TABLE,))


@dataclass
class _GenerationStage:
    """Generation as a stage: a batch per chunk of samples, run here with the chunk's samples on a
    thread pool, committed as the chunk's lines and table file. A chunk's table file is replaced,
    not skipped, on a rerun (no marker): every chunk runs and the response cache makes repeats free."""

    chunks: list[Batch]
    cfg: GenerationConfig
    client: LLMClient
    cache: ResponseCache | None
    stop: RunStop
    pool: ThreadPoolExecutor
    fh: IO[str]
    data_root: DataRoot
    run_id: str
    tally: "_Tally"
    name: str = "generate"
    unit: str = "samples"

    def batches(self) -> list[Batch]:
        return self.chunks

    def total(self) -> int:
        return sum(len(b.items) for b in self.chunks)

    def is_committed(self, batch: Batch) -> bool:
        return False

    def work(self, batch: Batch) -> Work:
        return Work(batch.index, lambda samples: list(self.pool.map(
            lambda s: generate_sample(s, self.cfg, self.client, self.cache, self.stop), samples)), (batch.items,))

    def commit(self, batch: Batch, results: list[SampleResult]) -> None:
        _write_chunk(batch.key, results, self.fh, self.data_root, self.run_id, self.cfg)
        for result in results:
            self.tally.add(result)

    def describe(self, results: list[SampleResult]) -> str:
        return "; ".join(f"{r.sample.id}: {r.rows[-1]['status']}"
                         + (f" page={r.rows[-1]['extraction_status']}" if r.rows[-1].get("extraction_status") else "")
                         for r in results)


def run_generation(prompts: list[PromptIn], cfg: GenerationConfig, client: LLMClient, out_dir: str | Path, *,
                   cache: ResponseCache | None, data_root: DataRoot, run_id: str, workers: int = 4,
                   chunk_size: int = 100, report: Report = log_report) -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    samples = plan_samples(prompts, cfg)
    stop, tally = RunStop(), _Tally()
    batches = [Batch(n, _chunk_key(samples[start:start + chunk_size], cfg), tuple(samples[start:start + chunk_size]))
               for n, start in enumerate(range(0, len(samples), chunk_size))]
    tmp = out / f".{RESPONSES}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh, ThreadPoolExecutor(max(1, workers)) as pool:
            stage = _GenerationStage(batches, cfg, client, cache, stop, pool, fh, data_root, run_id, tally)
            # One chunk at a time in this process, its samples on the thread pool (the client's
            # per-provider limiter bounds what reaches the provider).
            with executors.local(1) as here:
                outcome = drive(stage, here, report=report, max_resubmits=0)
        if outcome.failures:
            raise outcome.failures[0][1]
        os.replace(tmp, out / RESPONSES)
    finally:
        tmp.unlink(missing_ok=True)
    stopped = {"by": stop.by, "reason": stop.reason} if stop.reason else None
    summary = tally.summary(run_id, cfg, client, len(prompts), len(samples), stopped)
    summary["responses"] = str(out / RESPONSES)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _chunk_key(chunk: list[Sample], cfg: GenerationConfig) -> str:
    return make_key(TABLE, cfg.config_hash(), *(_sample_key(s) for s in chunk))


def _write_chunk(key: str, results: list[SampleResult], fh, data_root: DataRoot, run_id: str,
                 cfg: GenerationConfig) -> None:
    for result in results:
        if result.response is not None:
            line = {"id": result.sample.id, "prompt": result.sample.prompt.prompt, "response": result.response}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    fh.flush()
    config_hash = cfg.config_hash()
    rows = [row | {"run_id": run_id, "config_hash": config_hash} for r in results for row in r.rows]
    data_root.write(TABLE, rows, key=key, mode="replace")


def _sample_key(sample: Sample) -> str:
    return f"{sample.id}:{sample.prompt.hash}"


class _Tally:
    def __init__(self):
        self.status = Counter()  # final status per sample
        self.extraction = Counter()  # page status of generated samples
        self.calls = self.cache_hits = self.retries = self.safe_demo = self.tokens = 0
        self.cost = 0.0
        self.cost_unknown = 0

    def add(self, result: SampleResult) -> None:
        final = result.rows[-1]
        self.status[final["status"]] += 1
        if final["status"] == "generated":
            self.extraction[final["extraction_status"]] += 1
        for row in result.rows:
            self.safe_demo += bool(row.get("safe_demo_retry"))
            if row.get("cache_hit"):
                self.cache_hits += 1
            elif row["status"] in ("generated", "refused", "failed"):
                self._paid(row)

    def _paid(self, row: dict) -> None:
        self.calls += 1
        self.retries += row.get("retries") or 0
        self.tokens += row.get("total_tokens") or 0
        if row.get("cost_usd") is None:
            self.cost_unknown += row["status"] != "failed"
        else:
            self.cost += row["cost_usd"]

    def summary(self, run_id: str, cfg: GenerationConfig, client: LLMClient, prompts: int, samples: int,
                stopped: dict | None) -> dict:
        return {
            "run_id": run_id, "model": cfg.model, "provider": client.provider, "config_hash": cfg.config_hash(),
            "prompts": prompts, "samples": samples, "by_status": dict(sorted(self.status.items())),
            "pages": dict(sorted(self.extraction.items())), "calls": self.calls, "cache_hits": self.cache_hits,
            "retries": self.retries, "safe_demo_retries": self.safe_demo, "tokens": self.tokens,
            "cost_usd": round(self.cost, 6), "calls_with_unknown_cost": self.cost_unknown, "stopped": stopped,
        }
