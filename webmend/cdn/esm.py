"""ES-module serving for esm.sh-style requests (esm.sh, jsdelivr /+esm,
unpkg ?module, skypack).

Real ESM CDNs rewrite every import to an absolute CDN URL, so a module works
without an import map. We do the same, always pointing at one canonical URL
per file (https://esm.sh/NAME@EXACT[/FILE]); any other URL for the same file
gets a two-line re-export stub. That keeps one module instance per file: a
page importing three from jsdelivr +esm and OrbitControls from esm.sh still
shares one THREE (instanceof checks and "multiple instances" warnings).
CommonJS/UMD files are wrapped in a function scope with require() fed by
static imports, like esm.sh's CJS transform (named exports found by a scan).
"""

from __future__ import annotations

import json
import posixpath
import re

from .packages import PackageIndex, Pkg

ESM_BASE = "https://esm.sh"

_ESM_SYNTAX = re.compile(
    r"(?:^|[;}\n])\s*(?:import(?![\w$])\s*[\w{*$\"'.]|export(?![\w$])\s*[\w{*$])", re.M)
SPECIFIER = re.compile(
    r"(\bfrom\s*|\bimport\s*|\bimport\s*\(\s*)([\"'])([^\"'\s]+)\2")
_REQUIRE = re.compile(r"\brequire\s*\(\s*([\"'])([^\"'\s]+)\1\s*\)")
_HAS_DEFAULT = re.compile(r"\bexport\s+default\b|\bas\s+default\b")
_CJS_NAMES = re.compile(
    r"\b(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=[^=]"
    r"|\b(?:module\.)?exports\[[\"']([A-Za-z_$][\w$]*)[\"']\]\s*=[^=]"
    r"|Object\.defineProperty\(\s*(?:module\.)?exports\s*,\s*[\"']([A-Za-z_$][\w$]*)[\"']")
_REEXPORT = re.compile(r"\bmodule\.exports\s*=\s*require\s*\(\s*([\"'])(\.[^\"']+)\1\s*\)")
_RESERVED = frozenset(
    "default __esModule __cjs break case catch class const continue debugger delete do else enum export "
    "extends false finally for function if import in instanceof new null return super switch this throw "
    "true try typeof var void while with yield let static implements interface package private protected "
    "public await".split())


def is_esm(text: str) -> bool:
    return bool(_ESM_SYNTAX.search(text))


def has_default_export(text: str) -> bool:
    return bool(_HAS_DEFAULT.search(text))


def canonical_url(index: PackageIndex, pkg: Pkg, file: str) -> str:
    base = f"{ESM_BASE}/{pkg.name}@{pkg.version}"
    return base if file == index.esm_entry(pkg) else f"{base}/{file}"


def _split_bare(spec: str) -> tuple[str, str]:
    parts = spec.split("/")
    n = 2 if spec.startswith("@") else 1
    return "/".join(parts[:n]), "/".join(parts[n:])


class Rewriter:
    """Turns one package file into a self-contained ES module text."""

    def __init__(self, index: PackageIndex, pkg: Pkg, file: str,
                 externals: frozenset = frozenset(), deps: tuple = ()):
        self.index, self.pkg, self.file = index, pkg, file
        self.externals, self.deps = externals, dict(deps)

    def url_for(self, spec: str) -> str | None:
        """Absolute URL for an import specifier, or None to leave it as is."""
        if re.match(r"^(?:[a-z]+:|//|/)", spec):
            return None
        if spec.startswith("."):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(self.file), spec))
            if joined.startswith(".."):
                return None
            found = self.index.complete(self.pkg, joined)
            return canonical_url(self.index, self.pkg, found) if found else f"{ESM_BASE}/{self.pkg.name}@{self.pkg.version}/{joined}"
        name, sub = _split_bare(spec)
        if "*" in self.externals or name in self.externals or spec in self.externals:
            return None
        if name in self.deps and (picked := self.index.pick(name, self.deps[name])):
            dep = picked[0]
        else:
            dep = self.index.dependency(self.pkg, name)
        if dep is None:
            return f"{ESM_BASE}/{spec}"  # not mirrored: let the request show up as a miss
        target = self.index.esm_entry(dep, sub)
        if target:
            return canonical_url(self.index, dep, target)
        return f"{ESM_BASE}/{dep.name}@{dep.version}" + (f"/{sub}" if sub else "")

    def module_text(self, text: str) -> str:
        if is_esm(text):
            return self.rewrite_imports(text)
        return self.wrap_cjs(text)

    def rewrite_imports(self, text: str) -> str:
        def repl(m: re.Match) -> str:
            url = self.url_for(m.group(3))
            return m.group(0) if url is None else f"{m.group(1)}{m.group(2)}{url}{m.group(2)}"
        return SPECIFIER.sub(repl, text)

    def wrap_cjs(self, text: str) -> str:
        lines, table = [], []
        for i, spec in enumerate(dict.fromkeys(m.group(2) for m in _REQUIRE.finditer(text))):
            url = self.url_for(spec)
            # Unresolvable requires are usually optional branches of a UMD
            # header; they only fail if actually called.
            if url is None or (not spec.startswith(".") and url == f"{ESM_BASE}/{spec}"):
                continue
            lines.append(f"import * as __w{i} from {json.dumps(url)};")
            table.append(f"{json.dumps(spec)}: __w{i}")
        names = sorted(self._cjs_names(self.file, text, depth=0))
        lines += [
            "const __wm = {" + ", ".join(table) + "};",
            "const __wreq = (id) => { const m = __wm[id]; if (!m) throw new Error(\"Cannot find module '\" + id + \"' (offline CDN mirror)\"); return m.__cjs !== undefined ? m.__cjs : m; };",
            "const __wmod = { exports: {} };",
            "(function (exports, require, module, process, global) {",
            text,
            '}).call(__wmod.exports, __wmod.exports, __wreq, __wmod, globalThis.process || { env: { NODE_ENV: "production" } }, globalThis);',
            "const __cjs = __wmod.exports;",
            "export { __cjs };",
            "export default (__cjs && __cjs.__esModule && \"default\" in __cjs) ? __cjs.default : __cjs;",
        ]
        for i, name in enumerate(names):
            lines.append(f"const __wx{i} = __cjs == null ? undefined : __cjs[{json.dumps(name)}]; export {{ __wx{i} as {name} }};")
        return "\n".join(lines) + "\n"

    def _cjs_names(self, file: str, text: str, depth: int) -> set[str]:
        names = {next(g for g in m.groups() if g) for m in _CJS_NAMES.finditer(text)}
        if depth < 3:
            for m in _REEXPORT.finditer(text):
                joined = posixpath.normpath(posixpath.join(posixpath.dirname(file), m.group(2)))
                found = self.index.complete(self.pkg, joined)
                if found and (path := self.index.file(self.pkg, found)):
                    sub = self.index.read(path).decode("utf-8", "replace")
                    names |= self._cjs_names(found, sub, depth + 1)
        return {n for n in names if n not in _RESERVED}


def stub(canonical: str, target_text: str) -> str:
    """Re-export module for a non-canonical URL of the same file."""
    url = json.dumps(canonical)
    out = f"export * from {url};\n"
    if has_default_export(target_text) or not is_esm(target_text):
        out += f"export {{ default }} from {url};\n"
    return out
