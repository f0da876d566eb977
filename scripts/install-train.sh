#!/usr/bin/env bash
# The training environment (docs/training.md): a venv of its own beside the pipeline's .venv,
# because llamafactory 0.9.5's declared pins conflict with the pipeline's and a plain install
# pulls a multi-GB CUDA torch.
#
#   bash scripts/install-train.sh [VENV]     # default .venv-train; PYTHON picks the interpreter
#
# 1. requirements/train.txt, pinned (torch first, so nothing asks for another build);
# 2. llamafactory and deepspeed with --no-deps (their other declared deps are the web UI, audio,
#    vision and hub-mirror extras that text SFT never imports);
# 3. a torchaudio placeholder when no torchaudio imports (scripts/train-env/torchaudio says why).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-.venv-train}"
python="${PYTHON:-python3.11}"
pip=(-m pip install -q --disable-pip-version-check)

test -x "$venv/bin/python" || "$python" -m venv "$venv"
"$venv/bin/python" "${pip[@]}" --upgrade pip
"$venv/bin/python" "${pip[@]}" torch==2.13.0
"$venv/bin/python" "${pip[@]}" -r requirements/train.txt
"$venv/bin/python" "${pip[@]}" --no-deps llamafactory==0.9.5
"$venv/bin/python" "${pip[@]}" --no-deps --no-build-isolation deepspeed==0.18.2
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
if ! "$venv/bin/python" -c 'import torchaudio' >/dev/null 2>&1; then
  rm -rf "$site/torchaudio"
  cp -r scripts/train-env/torchaudio "$site/torchaudio"
fi
# A smoke check of what the training commands start: the trainer's entry point and its parser.
"$venv/bin/python" -c 'import torch, transformers, llamafactory.hparams' >/dev/null
echo "training environment ready: $venv (torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)'))"
