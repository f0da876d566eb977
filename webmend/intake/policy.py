"""Exclusion policy, applied before any prompt reaches an LLM (HTMLCure D.2).

A prompt is excluded when it needs something a synthetic single-file page must never touch: a real
login, real payments, credentials, a private backend, personal data, or collection the source
disallows. A *demo* of a login form or a checkout UI is fine (generation adds a safe-demo suffix);
what is excluded is the real thing. Every exclusion names its rule; reject rows store text through
`redact`, so secrets and contact details found here never reach a table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# rule -> what it means (the closed list of policy rules, documented in docs/intake.md)
POLICY_RULES = {
    "login_required": "needs a real account or login with a real service, or the source page is login-gated",
    "payment": "needs real payments or money movement",
    "credentials": "contains or asks to collect secrets (API keys, passwords, tokens)",
    "private_backend": "needs a private or internal backend, database or network",
    "personal_data": "contains or asks to process personal data (contact details, ids, real people's records)",
    "source_disallowed": "the source's policy disallows collection (robots noai, licence terms)",
}

_I = re.IGNORECASE
_OWNER = r"(?:my|our|your|the company'?s?|my company'?s?|the client'?s?)"

_RULES: list[tuple[str, str, re.Pattern]] = [
    ("credentials", "contains an API key or token", re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|xox[bp]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,})")),
    ("credentials", "contains a password or key value", re.compile(r"\b(?:password|passwd|api[ _-]?key|secret[ _-]?key|access[ _-]?token)\s*(?:is|=|:)\s*\S{4,}", _I)),
    ("credentials", "asks to collect real credentials", re.compile(r"\b(?:steal|harvest|phish|exfiltrat)\w*\s+(?:[\w']+\s+){0,3}(?:passwords|credentials|logins|card numbers)\b|\bphishing\b", _I)),
    ("personal_data", "contains an email address", re.compile(r"\b[\w.+-]+@(?!(?:[\w-]+\.)*(?:example|test|invalid|localhost)\b)(?:[\w-]+\.)+[A-Za-z]{2,}\b")),
    ("personal_data", "contains a phone number", re.compile(r"(?<![\w.])(?:\+\d{1,3}[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}\b")),
    ("personal_data", "asks for real people's personal data", re.compile(r"\b(?:social security numbers?|ssns?\b|real (?:customer|patient|employee|user|student)s?'? (?:data|records|details|information)|scrape\w* (?:\w+ ){0,3}(?:profiles|emails|phone numbers|addresses)|home address(?:es)? of)", _I)),
    ("payment", "asks for real payment processing", re.compile(r"\b(?:real|actual|live)[ -](?:payments?|money|credit cards?|transactions?|charges?)\b|\bcharge (?:real|actual) (?:cards|customers|money)\b|\bstripe live (?:mode|key)\b|\b(?:transfer|send|withdraw) (?:real )?money (?:from|to) " + _OWNER, _I)),
    ("login_required", "asks for a login to a real account", re.compile(r"\blog ?(?:s|ged)? ?in(?:to)? (?:to )?" + _OWNER + r" (?:real |actual )?(?:\w+ )?(?:account|bank|email|inbox|portal|dashboard)\b|\busing " + _OWNER + r" (?:real |actual )?(?:\w+ )?(?:login|credentials|account)\b|\bwith " + _OWNER + r" (?:gmail|google|facebook|instagram|twitter|bank|banking|paypal) (?:login|account)\b", _I)),
    ("private_backend", "needs a private backend", re.compile(r"\b" + _OWNER + r" (?:internal|private|production|intranet|corporate|company) (?:api|database|db|server|backend|endpoint|network|crm|erp)\b|\bconnect\w* (?:it )?to " + _OWNER + r" (?:\w+ )?(?:database|db|server|api|backend|mysql|postgres\w*|mongodb)\b", _I)),
    ("private_backend", "names a private network host", re.compile(r"\b(?:10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])\.\d{1,3}\.\d{1,3})\b|\b[\w-]+\.(?:internal|corp|intranet|lan)\b", _I)),
]

# Found values of these rules are replaced in anything stored.
_REDACT = [pattern for rule, _, pattern in _RULES[:2] + _RULES[3:5]]


@dataclass(frozen=True)
class PolicyVerdict:
    rule: str  # a key of POLICY_RULES
    detail: str  # what was found, never the secret itself


def check_policy(text: str) -> PolicyVerdict | None:
    """The first rule the text breaks, or None when it may enter the corpus."""
    for rule, what, pattern in _RULES:
        if pattern.search(text):
            return PolicyVerdict(rule, what)
    return None


def redact(text: str) -> str:
    for pattern in _REDACT:
        text = pattern.sub("[redacted]", text)
    return text
