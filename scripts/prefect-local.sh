#!/usr/bin/env bash
# Embedded defaults for build-refined-pool (docs/flows.md): a Prefect server on 127.0.0.1 with
# SQLite under the project-local PREFECT_HOME (.prefect/), a process work pool and a worker.
#
#   scripts/prefect-local.sh up      start server + work pool + worker in the background (idempotent)
#   scripts/prefect-local.sh down    stop the worker and the server this script started
#   scripts/prefect-local.sh env     print the exports that point prefect/webmend at this server
#   scripts/prefect-local.sh demo    up, deploy prefect.yaml, run build-refined-pool/default, wait,
#                                    print a DuckDB summary of the trace tables and the export, run the
#                                    hand-written contracts (filter, results, audit sheets in runs/contracts),
#                                    fine-tune a tiny model on the export (runs/train/demo-tiny); stops what it started
#   scripts/prefect-local.sh status  what is running
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-.venv}"
case "$VENV" in /*) ;; *) VENV="$ROOT/$VENV" ;; esac
PORT="${WEBMEND_PREFECT_PORT:-4200}"
POOL="${WEBMEND_WORK_POOL:-webmend-local}"
DATA_ROOT="${WEBMEND_DATA_ROOT:-runs/data}"
export PREFECT_HOME="${PREFECT_HOME:-$ROOT/.prefect}"
export PREFECT_API_URL="http://127.0.0.1:$PORT/api"
export PREFECT_SERVER_ANALYTICS_ENABLED=false DO_NOT_TRACK=1
export PREFECT_WORKER_QUERY_SECONDS="${PREFECT_WORKER_QUERY_SECONDS:-3}"
PREFECT="$VENV/bin/prefect"
PIDS="$PREFECT_HOME/pids"

healthy() { "$VENV/bin/python" -m webmend.flows.local "$PREFECT_API_URL" --timeout "${1:-0}" 2>/dev/null; }

start_bg() {  # name, command...: run in its own session, remember the pid
  local name="$1"; shift
  setsid "$@" >"$PREFECT_HOME/$name.log" 2>&1 < /dev/null &
  echo "$name $!" >>"$PIDS"
}

up() {
  mkdir -p "$PREFECT_HOME"
  if healthy; then
    echo "prefect server already answers at $PREFECT_API_URL"
  else
    echo "starting prefect server on 127.0.0.1:$PORT (PREFECT_HOME=$PREFECT_HOME)"
    start_bg server "$PREFECT" server start --host 127.0.0.1 --port "$PORT" --analytics-off
    healthy 180 || { echo "server did not start; see $PREFECT_HOME/server.log" >&2; exit 1; }
  fi
  "$PREFECT" work-pool inspect "$POOL" >/dev/null 2>&1 \
    || "$PREFECT" work-pool create "$POOL" --type process >/dev/null
  if ! grep -q "^worker " "$PIDS" 2>/dev/null || ! kill -0 "$(awk '$1=="worker"{print $2}' "$PIDS" | tail -1)" 2>/dev/null; then
    # The worker runs flows with this venv's Python from the deployment's working directory.
    (cd "$ROOT" && start_bg worker "$PREFECT" worker start --pool "$POOL" --type process)
  fi
  echo "server $PREFECT_API_URL, work pool $POOL, worker running (logs in $PREFECT_HOME/)"
}

down() {
  [ -f "$PIDS" ] || { echo "nothing started by this script"; return 0; }
  # Worker first (SIGTERM stops it promptly; SIGINT does not), then the server; whole sessions.
  for name in worker server; do
    for pid in $(awk -v n="$name" '$1==n{print $2}' "$PIDS"); do
      kill -TERM -- "-$pid" 2>/dev/null || true
      for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -KILL -- "-$pid" 2>/dev/null || true
    done
  done
  rm -f "$PIDS"
  echo "stopped"
}

demo() {
  local started=0
  healthy || started=1
  up
  [ "$started" = 1 ] && trap down EXIT
  cd "$ROOT"
  # Deploy from the repository root: the deployments run from here (prefect.yaml has no pull step).
  "$PREFECT" --no-prompt deploy --all
  "$PREFECT" deployment run build-refined-pool/default -p "data_root=\"$DATA_ROOT\"" \
    --watch --watch-interval 5 --watch-timeout "${WEBMEND_DEMO_TIMEOUT:-3600}"
  "$VENV/bin/webmend" sql --root "$DATA_ROOT" \
    "SELECT status, coalesce(state, 'unscored') AS band, count(*) AS pages, round(avg(score_total), 1) AS mean_score
     FROM evaluations GROUP BY ALL ORDER BY pages DESC, status"
  "$VENV/bin/webmend" sql --root "$DATA_ROOT" --example score_by_family
  echo "repair: original band x final band (deterministic operators)"
  "$VENV/bin/webmend" sql --root "$DATA_ROOT" --example repair_transitions
  echo "export: the latest version under $DATA_ROOT/corpus (docs/export.md)"
  "$VENV/bin/python" -c 'import json, sys; d = sys.argv[1]; v = json.load(open(d + "/LATEST.json"))["version"]; m = json.load(open(f"{d}/{v}/manifest.json")); print(v, {k: x["rows"] for k, x in m["datasets"].items()}, "gate:", m["gate"]["success"])' "$DATA_ROOT/corpus"
  "$VENV/bin/webmend" manifest verify "$DATA_ROOT/corpus/$("$VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$DATA_ROOT/corpus/LATEST.json")"
  echo "contracts: the executability filter on the hand-written tasks, and their audit sheets (docs/icg-format.md)"
  "$VENV/bin/webmend" contract validate data/contracts --refs data/contracts/*/refs --out "$DATA_ROOT/../contracts"
  for task in data/contracts/*/; do
    name="$(basename "$task")"
    "$VENV/bin/webmend" contract execute "$task/contract.json" "$task"refs/*.html "$task"defects/*.html \
      --out "$DATA_ROOT/../contracts/$name.jsonl"
    "$VENV/bin/webmend" contract audit "$task/contract.json" "$DATA_ROOT/../contracts/$name.jsonl" \
      --out "$DATA_ROOT/../contracts/$name.html"
  done
  local version
  version="$("$VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$DATA_ROOT/corpus/LATEST.json")"
  echo "training: a tiny model fine-tuned by LlamaFactory on the refined route for 10 steps (docs/training.md)"
  "$VENV/bin/webmend" train sft --manifest "$DATA_ROOT/corpus/$version" --route refined --preset tiny \
    --set max_steps=10 --out "$DATA_ROOT/../train/demo-tiny" > "$DATA_ROOT/../train-demo.log"
  "$VENV/bin/python" -c 'import json, sys; r = json.load(open(sys.argv[1])); m = r["metrics"]; print(r["status"], r["manifest"]["export_version"], r["manifest"]["dataset"], m["steps"], "steps, loss", m["loss_history"][0][1], "->", m["final_loss"])' "$DATA_ROOT/../train/demo-tiny/run.json"
  "$VENV/bin/webmend" sql --root "$DATA_ROOT" --save-db >/dev/null
  echo "trace tables in $DATA_ROOT; DuckDB file: $DATA_ROOT/webmend.duckdb"
}

status() {
  healthy && echo "server: $PREFECT_API_URL" || echo "server: not answering at $PREFECT_API_URL"
  [ -f "$PIDS" ] && cat "$PIDS" || true
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  demo) demo ;;
  status) status ;;
  env) echo "export PREFECT_HOME='$PREFECT_HOME' PREFECT_API_URL='$PREFECT_API_URL' PREFECT_SERVER_ANALYTICS_ENABLED=false DO_NOT_TRACK=1" ;;
  *) sed -n '2,11p' "$0"; exit 2 ;;
esac
