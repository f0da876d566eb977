"""From one input to one result record: extract, evaluate, score, validate against the contract."""

from __future__ import annotations

import logging
import os
import time
import traceback
from importlib.metadata import version
from pathlib import Path

from webmend.browser.worker import BrowserWorker, get_worker
from webmend.config import EvalConfig
from webmend.evaluate.experience.summary import trace_summary
from webmend.evaluate.inputs import RawInput
from webmend.evaluate.page import EarlyRejected, evaluate_page, mirror_hash
from webmend.evaluate.contract_run import contract_record
from webmend.evaluate.scoring import SCORED_STATUSES, SCORING_VERSION, apply_judge, score, state_band
from webmend.extract import extract_page
from webmend.schemas.hashing import sha256_hex
from webmend.schemas.results import ResultRecord
from webmend.store import layout

log = logging.getLogger(__name__)

PLAYWRIGHT_VERSION = version("playwright")  # read once, not per record
_KNOWN_FLAGS = set(ResultRecord.model_fields["flags"].annotation.__args__[0].__args__)


def _flags(*groups) -> list[str]:
    out: list[str] = []
    for group in groups:
        for flag in group:
            flag = "decoded" if flag.startswith("decoded_") else flag
            if flag in _KNOWN_FLAGS and flag not in out:
                out.append(flag)
    return out


def is_interactive(item: dict | None, cfg: EvalConfig) -> bool:
    if item is not None and isinstance(item.get("has_interaction"), bool):
        return item["has_interaction"]
    return cfg.profile == "interactive"


def _item_meta(item: dict | None) -> dict | None:
    if item is None:
        return None
    return {k: item.get(k) for k in ("category", "sub_type", "difficulty", "has_interaction")}


def evaluate_jobs(jobs, cfg_json: str, out_dir: str | None = None) -> list[dict]:
    """The records of (RawInput, item) pairs, in order, on this process's warm browser (started by
    the first batch a process runs and kept for the next: a pool process, a Dask worker). The one
    batch function every driver submits: `webmend evaluate`, the flow and the RL reward. The config
    travels as JSON (Prefect turns pydantic task parameters into dicts). Keyframes go under
    `out_dir`/keyframes/ when given."""
    cfg = EvalConfig.model_validate_json(cfg_json)
    worker = get_worker(cfg)
    worker.ensure_started()  # every record, rejects included, names the browser version
    return [evaluate_input(raw, item, cfg, worker, out_dir) for raw, item in jobs]


def evaluate_input(raw: RawInput, item: dict | None, cfg: EvalConfig, worker: BrowserWorker,
                   out_dir: str | Path | None = None, must_pass: frozenset[str] = frozenset()) -> dict:
    """Never raises for the page: an evaluator bug becomes an `error` record with its reason. The
    one exception is EarlyRejected, which the caller asked for with `must_pass` (see evaluate_page).

    Keyframes are written under `out_dir`/keyframes/ (a folder or fsspec URL, files named by
    content) when it is given.
    """
    started = time.perf_counter()
    base = {
        "scoring_version": SCORING_VERSION,
        "index": raw.index,
        "id": raw.id,
        "source": raw.source,
        "interactive": is_interactive(item, cfg),
        "item": _item_meta(item),
        "tests": [],
        "blocked_requests": [],
        "blocked_requests_total": 0,
        "score": None,
        "state": None,
        "evidence": None,
        "chromium_version": worker.browser_version or None,
        "playwright_version": PLAYWRIGHT_VERSION,
        "cdn_mirror_hash": mirror_hash(cfg),
        "config_hash": cfg.config_hash(),
        "network_isolated": None,
        "chromium_sandbox": None,
    }
    if raw.reject is not None:
        status, reason = raw.reject
        return _finish(base, status, reason, [], started)
    extraction = extract_page(raw.raw, min_chars=cfg.min_page_chars)
    base["encoding"] = extraction.encoding
    if extraction.status != "ok":
        return _finish(base, extraction.status, extraction.reason, _flags(extraction.flags), started)
    try:
        ev = evaluate_page(extraction.html, cfg, item, worker=worker, must_pass=must_pass)
    except EarlyRejected:
        raise
    except Exception as exc:  # an evaluator defect must not lose the input
        log.error("evaluation failed for %s: %s", raw.id, traceback.format_exc())
        return _finish(base, "error", f"evaluator error: {type(exc).__name__}: {exc}"[:300], _flags(extraction.flags), started)
    base["chromium_version"] = worker.browser_version or None
    base["network_isolated"] = worker.isolated_network
    base["chromium_sandbox"] = worker.chromium_sandbox
    flags = _flags(extraction.flags, ev.get("flags", []), [] if item is not None else ["no_test_item"])
    base["tests"] = ev.get("tests", [])
    network = ev.get("network") or {}
    base["blocked_requests"] = network.get("blocked", [])
    base["blocked_requests_total"] = network.get("blocked_total", 0)
    base["evidence"] = {k: ev.get(k) for k in ("probe", "events", "network", "static", "experience")}
    base["evidence"]["status"] = ev["status"]
    base["evidence"]["browser_profile"] = ev.get("profile")
    experience = ev.get("experience") or {}
    base["layers"] = experience.get("layers", [])
    base["keyframes"] = store_keyframes(experience.get("keyframes", []), ev.get("keyframes", []), out_dir)
    base["trace_summary"] = trace_summary(base["evidence"])
    if (item or {}).get("contract") and ev["status"] in SCORED_STATUSES:
        base["contract"] = contract_record(extraction.html, item["contract"], cfg, worker)
    apply_score(base, cfg, ev["status"])
    if cfg.mode == "full" and base["score"] is not None:
        _judge(base, ev, raw, item, cfg)
        apply_score(base, cfg, ev["status"])
    return _finish(base, ev["status"], ev.get("reason", ""), flags, started)


def _judge(base: dict, ev: dict, raw: RawInput, item: dict | None, cfg: EvalConfig) -> None:
    from webmend.evaluate.judging import get_judge, judge_page

    base["evidence"]["judge"] = judge_page(
        get_judge(cfg), cfg, prompt=(item or {}).get("prompt") or raw.prompt or "", evidence=base["evidence"],
        summary=base["trace_summary"], fast=base["score"], interactive=base["interactive"],
        has_tests=bool(base["tests"]) or (base.get("contract") or {}).get("reward") is not None,
        text_runs=ev.get("text_runs") or [], keyframes=ev.get("keyframes") or [],
    )


def store_keyframes(refs: list[dict], frames: list, dest: str | Path | None) -> list[dict]:
    """Write each keyframe once under DEST/keyframes/, named by its content (reruns and identical
    frames share a file). DEST is a local folder or an fsspec URL (a flow's data root)."""
    out = []
    for ref, frame in zip(refs, frames):
        name = None
        if dest is not None:
            name = f"{layout.KEYFRAMES}/{sha256_hex(frame.png)[:24]}.png"
            _put_once(str(dest), name, frame.png)
        out.append({**ref, "file": name})
    return out


def _put_once(dest: str, name: str, data: bytes) -> None:
    if "://" not in dest:
        path = Path(dest) / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)  # atomic: a reader never sees half a frame
        return
    import fsspec

    fs, root = fsspec.core.url_to_fs(dest)
    path = f"{root.rstrip('/')}/{name}"
    if not fs.exists(path):
        fs.pipe_file(path, data)  # object stores write whole objects


def apply_score(record: dict, cfg: EvalConfig, status: str) -> None:
    """(Re)compute score and state from the evidence stored in the record."""
    evidence = dict(record.get("evidence") or {})
    evidence["tests"] = record.get("tests", [])
    evidence["contract"] = record.get("contract")
    evidence["status"] = status
    fast = score(evidence, cfg, record["interactive"]) if record.get("evidence") else None
    record["score"] = apply_judge(fast, evidence.get("judge"))
    record["state"] = state_band(record["score"]["total"] if record["score"] else None, cfg)
    record["scoring_version"] = SCORING_VERSION


def _finish(base: dict, status: str, reason: str, flags: list[str], started: float) -> dict:
    base.update(status=status, reason=reason, flags=flags, elapsed_s=round(time.perf_counter() - started, 3))
    return ResultRecord.model_validate(base).model_dump(mode="json")
