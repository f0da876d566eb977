"""A library that never loads: the page asks a CDN for a version of a package that the offline
mirror does not serve, while it serves the package under another version.

The detector reads the misses the network log recorded (D(h).cdn_misses), asks the mirror
(`CdnMirror`, webmend/cdn) whether the same URL with another installed version of that package
is answered, nearest version first, and the edit rewrites only that URL's version segment
(keeping its style: `r128` stays an r-number, a `v` prefix stays). A package the mirror lacks
entirely is not this operator's job: no version of it would load.

The mirror resolver already answers a missing version with the nearest installed one and looks
for a missing file in every installed version, so with the current mirror a miss that another
version would fix is rare; this operator covers what the resolver's fallbacks leave.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import quote

from webmend.cdn import semver, urls
from webmend.repair.operators.base import Finding, Operator
from webmend.schemas.repair import Diagnosis


@functools.cache
def default_mirror():
    """The evaluator's mirror, loaded on first use (None when it is not installed)."""
    from webmend.evaluate.page import load_mirror

    return load_mirror(None)


def _spec_span(url: str, spec: str) -> tuple[int, int] | None:
    """Where the version spec sits in the URL's path (after "@", "/" or "-", as jsdelivr, cdnjs
    and code.jquery.com write it), when it sits there exactly once."""
    path_at = url.find("/", url.find("//") + 2)
    if path_at < 0:
        return None
    hits = []
    for written in dict.fromkeys((spec, quote(spec, safe=""))):
        hits += [(path_at + m.start(), path_at + m.end())
                 for m in re.finditer(rf"(?<=[@/-]){re.escape(written)}(?=/|\.min\.|\.js|$)", url[path_at:])]
    return hits[0] if len(hits) == 1 else None


def _styled(spec: str, version: str) -> str:
    """An installed version written the way the page wrote its spec."""
    if re.fullmatch(r"r\d+", spec) and version.startswith("0."):
        return "r" + version.split(".")[1]
    return ("v" if spec.startswith("v") else "") + version


def _nearest_first(spec: str, versions: list[str]) -> list[str]:
    m = re.search(r"\d+(?:\.\d+){0,2}", spec)
    if re.fullmatch(r"r\d+", spec):
        target = (0, int(spec[1:]), 0)
    else:
        target = semver.parse(m.group()) if m else (0, 0, 0)
    return sorted(versions, key=lambda v: (tuple(abs(a - b) for a, b in zip(semver.parse(v), target)),
                                           tuple(-x for x in semver.parse(v))))


def rewrite_for(mirror, url: str) -> dict | None:
    """{url, new_url, package, from, to} when another installed version of the package is served."""
    req = urls.parse(url)
    if req is None or req.kind != "npm" or not req.spec or not mirror.index.has(req.package):
        return None
    span = _spec_span(url, req.spec)
    if span is None:
        return None
    for version in _nearest_first(req.spec, mirror.index.versions(req.package)):
        new_spec = _styled(req.spec, version)
        if new_spec == req.spec:
            continue
        new_url = url[: span[0]] + new_spec + url[span[1]:]
        served = mirror.lookup(new_url)
        if served is not None and served.package:
            return {"url": url, "new_url": new_url, "package": req.package, "from": req.spec, "to": new_spec}
    return None


def _url_in_page(url: str) -> re.Pattern:
    return re.compile(re.escape(url) + r"(?=[\"'?#\s)<>]|$)")


def detect_with(mirror, d: Diagnosis, html: str) -> Finding | None:
    if not d.cdn_misses or mirror is None:
        return None
    rewrites = []
    for url in d.cdn_misses:
        if not _url_in_page(url).search(html):
            continue  # asked for by a script or another library, not written in the page
        if (r := rewrite_for(mirror, url)) is not None:
            rewrites.append(r)
    return {"rewrites": rewrites} if rewrites else None


def _apply(html: str, f: Finding) -> str:
    for r in f["rewrites"]:
        html = _url_in_page(r["url"]).sub(lambda m: r["new_url"], html)
    return html


CDN_VERSION = Operator(
    "cdn_version_served", "a library never loads: the page asks for a version that is not served (another one is)",
    lambda d, html: detect_with(default_mirror(), d, html), _apply)
