"""Install the local CDN mirror: the npm packages pinned in versions.json.

Usage: python -m webmend.cdn.install [--dir DIR] [--force]

The mirror directory holds package.json, node_modules/ and mirror.json.
mirror.json is written last, so its presence means a complete install; it
records every installed package (aliases and their dependencies) so the
resolver never has to walk node_modules at start-up.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from webmend.schemas.hashing import sha256_hex

log = logging.getLogger(__name__)

VERSIONS_PATH = Path(__file__).with_name("versions.json")
MANIFEST_NAME = "mirror.json"
NPM_FLAGS = ["--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev",
             # Several aliases of one package plus peer ranges (react-dom ->
             # react, bootstrap -> popper) make npm's peer resolver refuse the
             # tree; the CDN files we serve never need peers installed.
             "--legacy-peer-deps"]

# Files a page run never fetches, deleted after npm install to keep the mirror
# small (phaser alone ships 100+ MB of typings and plugin sources). Source
# maps go too: headless Chromium only requests them when DevTools asks.
PRUNE_GLOBS = ["*.map", "*.d.ts", "*.d.mts", "*.d.cts"]
PRUNE_PATHS = {
    "phaser": ["types", "plugins", "src", "changelog"],
    "three": ["src", "examples/jsm/libs/rhino3dm"],
    "chart.js": ["dist/docs"],
    "tone": ["docs"],
    "@fortawesome/fontawesome-free": ["metadata"],
    # Only the prebuilt dist/*.css of Tailwind 2 is served (the v2 CDN CSS).
    "tailwindcss": ["lib", "src", "stubs", "nesting", "peers", "scripts", "dist/tailwind-experimental.css",
                    "dist/tailwind-experimental.min.css", "dist/tailwind-dark.css"],
    # ~1,900 per-icon ES files; ESM requests use the single-file CJS build.
    "lucide": ["dist/esm"],
}


def default_dir() -> Path:
    env = os.environ.get("WEBMEND_CDN_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "webmend" / "cdn"


def versions_text() -> str:
    return VERSIONS_PATH.read_text(encoding="utf-8")


def versions_sha256(text: str | None = None) -> str:
    return sha256_hex(text if text is not None else versions_text())


def compute_mirror_hash(text: str, installed: list[str]) -> str:
    h = hashlib.sha256(text.encode())
    for item in sorted(installed):
        h.update(b"\n" + item.encode())
    return h.hexdigest()


def _read_pkg(pkg_dir: Path) -> dict | None:
    try:
        return json.loads((pkg_dir / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _package_dirs(node_modules: Path):
    """Yield every package dir: top level, scoped, and one level of nesting
    (npm nests a dependency under its dependent when versions conflict)."""
    if not node_modules.is_dir():
        return
    for entry in sorted(node_modules.iterdir()):
        if entry.name.startswith("."):
            continue
        dirs = sorted(entry.iterdir()) if entry.name.startswith("@") and entry.is_dir() else [entry]
        for d in dirs:
            if not d.is_dir():
                continue
            yield d
            yield from _package_dirs(d / "node_modules")


def scan_packages(root: Path, aliases: dict[str, str]) -> list[dict]:
    """List installed packages as {alias, name, version, dir} (dir relative to root)."""
    out, seen = [], set()
    for d in _package_dirs(root / "node_modules"):
        meta = _read_pkg(d)
        if not meta or "name" not in meta or "version" not in meta:
            continue
        rel = d.relative_to(root).as_posix()
        alias = d.name if d.parent.name == "node_modules" else f"{d.parent.name}/{d.name}"
        key = (meta["name"], meta["version"])
        is_alias = alias in aliases and rel == f"node_modules/{alias}"
        if key in seen and not is_alias:
            continue
        seen.add(key)
        out.append({"alias": alias if is_alias else None, "name": meta["name"],
                    "version": meta["version"], "dir": rel})
    # Prefer the alias dir when the same name@version also got hoisted.
    best: dict[tuple, dict] = {}
    for p in out:
        k = (p["name"], p["version"])
        if k not in best or (p["alias"] and not best[k]["alias"]):
            best[k] = p
    return sorted(best.values(), key=lambda p: (p["name"], p["version"]))


def prune(root: Path, packages: list[dict]) -> int:
    """Delete PRUNE_GLOBS / PRUNE_PATHS files; return bytes freed."""
    freed = 0

    def rm(path: Path) -> None:
        nonlocal freed
        if path.is_dir() and not path.is_symlink():
            for f in path.rglob("*"):
                if f.is_file():
                    freed += f.stat().st_size
            shutil.rmtree(path)
        elif path.is_file():
            freed += path.stat().st_size
            path.unlink()

    for p in packages:
        pkg_dir = root / p["dir"]
        for rel in PRUNE_PATHS.get(p["name"], []):
            rm(pkg_dir / rel)
        for pattern in PRUNE_GLOBS:
            for f in list(pkg_dir.rglob(pattern)):
                # rglob also descends into nested node_modules, which are
                # packages of their own and get visited anyway.
                rm(f)
    return freed


def read_manifest(root: Path) -> dict | None:
    try:
        return json.loads((root / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def is_current(root: Path) -> bool:
    m = read_manifest(root)
    return bool(m) and m.get("versions_sha256") == versions_sha256()


def install(root: Path | None = None, force: bool = False) -> dict:
    """Install (or update) the mirror in root; return the manifest dict."""
    root = Path(root) if root else default_dir()
    text = versions_text()
    if not force and is_current(root):
        log.info("CDN mirror at %s is current; skipping npm install", root)
        return read_manifest(root)
    npm = shutil.which("npm")
    if not npm:
        raise RuntimeError("npm not found on PATH; install Node.js (>=18) to build the CDN mirror")
    aliases = json.loads(text)
    root.mkdir(parents=True, exist_ok=True)
    (root / MANIFEST_NAME).unlink(missing_ok=True)  # an interrupted install must not look complete
    pkg = {"name": "webmend-cdn-mirror", "private": True, "description": "generated by webmend.cdn.install",
           "dependencies": aliases}
    (root / "package.json").write_text(json.dumps(pkg, indent=2) + "\n", encoding="utf-8")
    cmd = [npm, "install", *NPM_FLAGS]
    log.info("installing %d CDN packages into %s: %s", len(aliases), root, " ".join(cmd))
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=root, check=True)
    packages = scan_packages(root, aliases)
    freed = prune(root, packages)
    log.info("pruned %.1f MB of typings, source maps and sources", freed / 1e6)
    missing = [a for a in aliases if not any(p["alias"] == a for p in packages)]
    if missing:
        raise RuntimeError(f"npm install did not produce aliases: {missing}")
    installed = [f"{p['name']}@{p['version']}" for p in packages]
    manifest = {
        "versions_sha256": versions_sha256(text),
        "mirror_hash": compute_mirror_hash(text, installed),
        "installed": sorted(installed),
        "packages": packages,
    }
    tmp = root / (MANIFEST_NAME + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    tmp.replace(root / MANIFEST_NAME)
    log.info("CDN mirror ready: %d packages in %.0fs (hash %s)", len(packages),
             time.monotonic() - t0, manifest["mirror_hash"][:12])
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m webmend.cdn.install", description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=None, help="mirror dir (default: $WEBMEND_CDN_DIR or ~/.cache/webmend/cdn)")
    ap.add_argument("--force", action="store_true", help="reinstall even if mirror.json is current")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    manifest = install(args.dir, force=args.force)
    print(f"{len(manifest['packages'])} packages, mirror_hash {manifest['mirror_hash']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
