#!/usr/bin/env bash
# Debian packages webmend needs: Chromium and fonts (CJK and emoji render as boxes without them),
# and Node.js with npm for the CDN mirror (kept as it is when the machine already has it).
set -euo pipefail
missing=""
for p in chromium fonts-noto-color-emoji fonts-wqy-zenhei fonts-dejavu-core fonts-liberation; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
if [ -z "$missing" ]; then
  echo "system packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
