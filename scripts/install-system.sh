#!/usr/bin/env bash
# Debian packages webmend needs: Python 3.11 with venv and make (the Makefile builds .venv with
# them), Chromium and fonts (CJK and emoji render as boxes without them), and Node.js with npm
# for the CDN mirror. What the machine already has is kept as it is: a python3.11 on PATH (pyenv,
# a self-built one) and an existing Node.js are used, not replaced by Debian's.
#
#   bash scripts/install-system.sh            # install what is missing (apt-get, sudo when not root)
#   bash scripts/install-system.sh --dry-run  # only print what would be installed
#
# PYTHON names the interpreter to look for (the Makefile passes its own PYTHON, python3.11 by default).
set -euo pipefail
dry_run=0
[ "${1:-}" = "--dry-run" ] && dry_run=1
python="${PYTHON:-python3.11}"
missing=""

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

if ! command -v "$python" >/dev/null 2>&1; then
  if [ "$python" != "python3.11" ]; then
    echo "PYTHON=$python is not on PATH; Debian packages are only known for python3.11" >&2
    exit 1
  fi
  missing="$missing python3.11 python3.11-venv"
elif ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  # Debian splits venv's ensurepip off into pythonX.Y-venv; other builds have it or cannot get it.
  if [ "$(command -v "$python")" = "/usr/bin/$python" ] && [ "$python" = "python3.11" ]; then
    missing="$missing python3.11-venv"
  else
    echo "$(command -v "$python") cannot create a venv (no ensurepip); rebuild it or set PYTHON" >&2
    exit 1
  fi
fi
command -v make >/dev/null 2>&1 || missing="$missing make"
for p in chromium chromium-headless-shell fonts-noto-color-emoji fonts-wqy-zenhei fonts-dejavu-core fonts-liberation; do
  installed "$p" || missing="$missing $p"
done
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"

if [ -z "$missing" ]; then
  echo "system packages present"
  exit 0
fi
if [ "$dry_run" -eq 1 ]; then
  echo "would install:$missing"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
