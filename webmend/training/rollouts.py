"""Where the RL stage's samples come from, behind one interface (docs/training.md, "Rollouts"):

- `LocalRollouts`: the policy worker samples with transformers' generation (CPU, tests, one GPU).
- `ServerRollouts`: an OpenAI-compatible server (vLLM, SGLang, or `trainenv.serve` on a CPU) samples
  through litellm; the policy worker turns the answers into token ids for the update; after every
  update the policy is saved in transformers' format and the server is told to serve it (`sync`).

Both answer `sample(requests, seed)` with the policy worker's completion dicts (key, index, text,
prompt_ids, completion_ids) and `sync(out, m)` after update m (and once before the first, m = 0,
so a resumed run's server serves the resumed weights).

Weight sync for a server (`sync_mode`):
- `reload`: POST {"model_path": DIR} to `sync_url` (default BASE/update_weights_from_disk: SGLang's
  endpoint and `trainenv.serve`'s). When the answer carries the served weights' digest, it must equal
  the policy's, or the run stops.
- `command`: run `sync_command` with {path} replaced by DIR (a site's reload hook, or a script that
  restarts `vllm serve DIR`), then wait until BASE/models answers.
- `none`: the server keeps its weights (off-policy from the first update on; logged as a warning).
The server must read DIR at the same path (a shared file system). NCCL or CUDA-IPC weight transfer
(TRL's VLLMClient, vLLM's weight-transfer API) needs vLLM or CUDA in the trainer's process and is not
used: see docs/training.md."""

from __future__ import annotations

import json
import logging
import shlex
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from webmend.llm.retry import Backoff
from webmend.schemas.training import ROLLOUT_BACKENDS, SYNC_MODES  # noqa: F401  (ROLLOUT_BACKENDS: for callers)

log = logging.getLogger(__name__)
SERVED = "serve"  # OUT/serve/policy-NNNN: the weights the server was last told to serve


class RolloutError(RuntimeError):
    """The rollout server failed after its retries, or serves other weights than the policy's."""


class LocalRollouts:
    backend = "local"

    def __init__(self, policy):
        self.policy = policy

    def sample(self, requests: list[dict], seed: int) -> list[dict]:
        return self.policy.sample(requests, seed=seed)

    def sync(self, out: Path, m: int) -> dict | None:
        return None  # the sampler is the trained model itself

    def describe(self) -> dict:
        return {"backend": self.backend}


def check_sync(mode: str, api_base: str | None, url: str | None, command: str | None) -> None:
    """ValueError for a weight-sync setting that cannot work (before any model is loaded)."""
    if mode not in SYNC_MODES:
        raise ValueError(f"rollout sync {mode!r}: one of {', '.join(SYNC_MODES)}")
    if mode == "command" and not command:
        raise ValueError("rollout sync 'command' needs a sync command (with {path})")
    if (mode == "reload" and not (url or api_base)) or (mode == "command" and not api_base):
        raise ValueError(f"rollout sync {mode!r} needs the server's API base")


def request_seed(seed: int, key: str, index: int) -> int:
    """One seed per sampled answer: a server samples each request on its own, so the batch seed is
    spread over (key, index) to keep answers reproducible and distinct."""
    return (seed * 1_000_003 + zlib.crc32(key.encode()) * 131 + index) % (2 ** 31 - 1)


@dataclass
class ServerRollouts:
    policy: object  # the PolicyWorker: tokenizes answers, saves the weights to serve
    model: str  # litellm's model string, e.g. hosted_vllm/policy or openai/policy
    api_base: str | None = None
    sync_mode: str = "reload"
    sync_url: str | None = None
    sync_command: str | None = None
    concurrency: int = 8
    ready_timeout_s: float = 600.0
    client: object = None
    backoff: Backoff = field(default_factory=lambda: Backoff(max_retries=5, base_s=1.0, cap_s=20.0))
    backend = "openai"

    def __post_init__(self):
        check_sync(self.sync_mode, self.api_base, self.sync_url, self.sync_command)
        if self.client is None:
            from webmend.llm.client import LLMClient  # litellm imports slowly: only for a server backend

            self.client = LLMClient(self.model)

    def sample(self, requests: list[dict], seed: int) -> list[dict]:
        from webmend.llm.client import LLMError

        jobs = [(req, i) for req in requests for i in range(int(req.get("n", 1)))]

        def ask(job):
            req, index = job
            params = {"max_tokens": req["max_new_tokens"], "temperature": req["temperature"],
                      "seed": request_seed(seed, req["key"], index)}
            if self.api_base:
                params["api_base"] = self.api_base
            try:
                return self.client.complete(req["messages"], **params)
            except LLMError as exc:  # retries are the client's; what is left is not a sample of the policy
                raise RolloutError(f"rollout {req['key']}#{index}: {exc}") from None

        with ThreadPoolExecutor(max(1, self.concurrency)) as pool:
            answers = list(pool.map(ask, jobs))
        tokens = self.policy.tokenize([{"messages": req["messages"], "text": a.text, "stopped": a.finish_reason == "stop"}
                                       for (req, _), a in zip(jobs, answers)])
        return [{"key": req["key"], "index": index, "text": a.text, "finish_reason": a.finish_reason, **t}
                for (req, index), a, t in zip(jobs, answers, tokens)]

    def sync(self, out: Path, m: int) -> dict | None:
        if self.sync_mode == "none":
            if m == 0:
                log.warning("rollout sync 'none': the server keeps its weights, so samples are off-policy from now on")
            return {"mode": "none"}
        started = time.perf_counter()
        path = (out / SERVED / f"policy-{m:04d}").resolve()
        self.policy.save(str(path))
        if self.sync_mode == "reload":
            answer = self._post(self.sync_url or _root(self.api_base) + "/update_weights_from_disk",
                                {"model_path": str(path)})
            self._check_digest(answer)
        else:
            subprocess.run(self.sync_command.replace("{path}", shlex.quote(str(path))), shell=True, check=True,
                           timeout=self.ready_timeout_s)
            self._wait_ready()
        for old in (out / SERVED).glob("policy-*"):
            if old.resolve() != path:
                shutil.rmtree(old, ignore_errors=True)
        return {"mode": self.sync_mode, "served": str(path.relative_to(out.resolve())),
                "seconds": round(time.perf_counter() - started, 2)}

    def describe(self) -> dict:
        return {"backend": self.backend, "model": self.model, "sync": self.sync_mode}

    def _check_digest(self, answer: dict) -> None:
        served = answer.get("digest")
        if isinstance(served, dict) and "digest" in served:
            mine = self.policy.digest()["digest"]
            if served["digest"] != mine:
                raise RolloutError(f"the server serves weights {served['digest'][:12]}, the policy has {mine[:12]}")

    def _post(self, url: str, body: dict) -> dict:
        data = json.dumps(body).encode()
        return self._http(lambda: urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}))

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        url = _root(self.api_base) + "/v1/models"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=10):
                    return
            except (urllib.error.URLError, OSError) as exc:
                if time.monotonic() > deadline:
                    raise RolloutError(f"the rollout server did not answer {url} in {self.ready_timeout_s:.0f} s: {exc}")
                time.sleep(1.0)

    def _http(self, make_request) -> dict:
        """One JSON call; connection failures and 5xx are retried with backoff (an I/O boundary)."""
        retries = 0
        while True:
            try:
                with urllib.request.urlopen(make_request(), timeout=self.ready_timeout_s) as resp:
                    answer = json.loads(resp.read() or b"{}")
                if answer.get("success") is False:
                    raise RolloutError(f"weight sync refused: {answer}")
                return answer
            except urllib.error.HTTPError as exc:
                if exc.code < 500 or retries >= self.backoff.max_retries:
                    raise RolloutError(f"weight sync: HTTP {exc.code}: {exc.read()[:300]!r}") from None
            except (urllib.error.URLError, OSError) as exc:
                if retries >= self.backoff.max_retries:
                    raise RolloutError(f"weight sync: {exc}") from None
            retries += 1
            time.sleep(self.backoff.delay(retries))


def _root(api_base: str) -> str:
    """http://host:port/v1 -> http://host:port (the OpenAI routes live under /v1, control routes at the root)."""
    base = api_base.rstrip("/")
    return base[:-3] if base.endswith("/v1") else base
