"""The scripts webmend puts into every page (browser/assets/) and the keys they live under."""

from __future__ import annotations

import secrets
from importlib import resources

_ASSETS = resources.files("webmend.browser.assets")

# The page clock's handle on the page's window. Not enumerable; the name is fixed per process and
# unguessable to pages written in advance.
CLOCK_KEY = "__wm_clock_" + secrets.token_hex(6)
OBSERVE_KEY = CLOCK_KEY + "_o"  # observe.js: page-added globals, canvas text, storage (`observed`)

INIT_JS = _ASSETS.joinpath("init.js").read_text()
CLOCK_JS = _ASSETS.joinpath("clock.js").read_text()
OBSERVE_JS = (_ASSETS.joinpath("observe.js").read_text().replace("__WM_OBSERVE_KEY__", OBSERVE_KEY)
              .replace("__WM_CLOCK_KEY__", CLOCK_KEY))
WORKERS_JS = _ASSETS.joinpath("workers.js").read_text().replace("__WM_CLOCK_KEY__", CLOCK_KEY)
PROBES_JS = _ASSETS.joinpath("probes.js").read_text().replace("__WM_CLOCK_KEY__", CLOCK_KEY)
