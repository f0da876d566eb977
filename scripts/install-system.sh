#!/usr/bin/env bash
# Debian packages webmend needs: Chromium and fonts (CJK and emoji render as boxes without them).
set -euo pipefail
PKGS="chromium fonts-noto-color-emoji fonts-wqy-zenhei fonts-dejavu-core fonts-liberation nodejs npm"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "system packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
