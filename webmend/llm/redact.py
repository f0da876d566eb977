"""Keep secrets out of everything we write: error texts, table rows, logs.

Keys only ever come from the environment, so the environment says what to hide: the value of every
variable whose name looks like a credential, plus passwords embedded in URLs.
"""

from __future__ import annotations

import logging
import os
import re

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_URL_USERINFO = re.compile(r"(?<=://)[^/@\s:]+:[^/@\s]+@")
_MIN_SECRET_LEN = 6  # shorter values ("1", "true") would blank out ordinary words
MASK = "***"


def secret_values(environ: dict[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if _SECRET_NAME.search(k) and len(v.strip()) >= _MIN_SECRET_LEN}
    return sorted(values, key=len, reverse=True)  # longest first: a key containing another is masked whole


def redact(text: str | None, environ: dict[str, str] | None = None) -> str | None:
    if not text:
        return text
    for value in secret_values(environ):
        text = text.replace(value, MASK)
    return _URL_USERINFO.sub(MASK + "@", text)


class RedactingFilter(logging.Filter):
    """Masks secrets in log records (message and arguments) before any handler sees them."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def install_log_filter(*logger_names: str) -> None:
    """Attach one RedactingFilter to each named logger (idempotent)."""
    for name in logger_names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())
