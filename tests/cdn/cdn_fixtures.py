"""Fixtures for the CDN mirror tests; test modules import them by name.

Not a conftest.py on purpose: another test folder imports its helpers with
`from conftest import ...`, and a second conftest module would shadow it.

The tests read the installed mirror (python -m webmend.cdn.install). Locally
a missing mirror skips them; under CI (CI=true) it is an error, because CI
installs the mirror before running tests.
"""

import os

import pytest

from webmend.cdn.resolver import CdnMirror

_MIRROR: list[CdnMirror] = []  # one instance for every module that imports the fixture


@pytest.fixture(scope="session")
def mirror() -> CdnMirror:
    if not _MIRROR:
        try:
            _MIRROR.append(CdnMirror.load_default())
        except FileNotFoundError as exc:
            if os.environ.get("CI"):
                pytest.fail(str(exc))
            pytest.skip(str(exc))
    return _MIRROR[0]


@pytest.fixture(scope="session")
def lookup(mirror):
    """lookup(url) that fails the test with the URL when nothing is served."""
    def _lookup(url: str):
        served = mirror.lookup(url)
        assert served is not None, f"mirror did not answer {url}"
        return served
    return _lookup
