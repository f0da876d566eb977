"""Exclusion policy, applied before any prompt reaches an LLM (HTMLCure D.2).

A prompt is excluded when it needs something a synthetic single-file page must never touch: a real
login, real payments, credentials, a private backend, personal data, or collection the source
disallows. A *demo* of a login form or a checkout UI is fine (generation adds a safe-demo suffix);
what is excluded is the real thing. Every exclusion names its rule; reject rows store text through
`redact`, so secrets and contact details found here never reach a table.

The rules are keyed to concepts, not to phrasings: "real credentials checked against a real
service" is a credential word, a checking verb and a real service in one sentence, in any order and
wording. The concept rules for the real thing (login, money, private systems) stand down when the
prompt says it is a demo (mock, fake, sample, simulated, ...) and does not also insist on the real
thing; rules for values found in the text (keys, contact details) never stand down. The rules are
the verdict without a model and a floor with one (webmend/intake/policy_model.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

# rule -> what it means (the closed list of policy rules, documented in docs/intake.md)
POLICY_RULES = {
    "login_required": "needs a real account or login with a real service (real credentials checked against it), or the source page is login-gated",
    "payment": "needs real payments or money movement",
    "credentials": "contains or asks to collect secrets (API keys, passwords, tokens)",
    "private_backend": "needs a private or internal backend, database, host or network",
    "personal_data": "contains or asks to process personal data (contact details, ids, real people's records)",
    "source_disallowed": "the source's policy disallows collection (robots noai, licence terms)",
}

_I = re.IGNORECASE
_OWNER = r"(?:my|our|your|the company'?s?|my company'?s?|the client'?s?)"


def _rx(body: str) -> re.Pattern:
    return re.compile(body, _I)


# --- vocabulary of the concepts --------------------------------------------------------------

# Real services people hold accounts with. A possessive "X's API/server" (below) covers the rest.
_BRANDS = (
    r"gmail|google|outlook|hotmail|yahoo|icloud|apple|microsoft|office ?365|microsoft ?365|azure(?: ad)?|"
    r"facebook|instagram|twitter|tiktok|linkedin|reddit|discord|snapchat|whatsapp|telegram|slack|"
    r"netflix|spotify|amazon|steam|ebay|shopify|uber|github|gitlab|aws|salesforce|canvas|"
    r"okta|auth0|keycloak|active directory|ldap|sso|"
    r"paypal|venmo|stripe|square|braintree|adyen|wise|revolut|monzo|coinbase|binance|kraken|robinhood|"
    r"alpaca|plaid|zelle|cash ?app|chase|wells fargo|bank of america|citi(?:bank)?|hsbc|barclays|"
    r"schwab|fidelity|vanguard|amex|american express|visa|mastercard"
)
_SERVICE = _rx(
    r"\b(?:" + _BRANDS + r")\b"
    r"|\b[\w.-]+'s?\s+(?:real |live |actual |production |official )?(?:\w+ )?(?:api|servers?|endpoint|backend|login|sign-?in|auth\w*)\b"
    r"|\b(?:their|the user'?s?|the customer'?s?|the visitor'?s?|the client'?s?|my|our|his|her|your) (?:real |actual |own )?(?:bank|banking|email provider|mail ?server|mailbox|employer)\b"
    r"|\b(?:real|actual|live|genuine)\s+(?:\w+\s+)?(?:api|account|service|login|server)s?\b"
)
_CRED = _rx(r"\b(?:user ?names?|passwords?|passcodes?|pins?|credentials|log-?ins?|login details|sign-?in details)\b")
_CHECK = _rx(
    r"\b(?:verif\w*|check\w*|validat\w*|authenticat\w*|confirm\w*|test\w*|tr(?:y|ies|ied)|submit\w*|send\w*|post\w*)\b"
    r"|\b(?:log|sign)(?:s|ged|ging)? (?:\w+ )?(?:in|into|on)\b"
)

_MOVE = _rx(
    r"\b(?:transfer\w*|wir(?:e|es|ed|ing)|pa(?:y|ys|id|ying)|send\w*|withdraw\w*|deposit\w*|charg(?:e|es|ed|ing)|"
    r"captur\w*|refund\w*|mov(?:e|es|ed|ing)|buy\w*|process\w*|collect\w*)\b"
)
_MONEY = _rx(
    r"[$€£]\s?\d|\b\d+ (?:dollars|euros|pounds|usd|eur|gbp)\b|\b(?:money|funds|cash|payments?|salar(?:y|ies)|"
    r"bills?|invoices?|rent|(?:credit |debit )?cards?|refunds?|crypto\w*|bitcoin|btc|eth|shares|amount)\b"
)
_RAIL = _rx(
    r"\b(?:" + _BRANDS + r")\b"
    r"|\b(?:bank|banking|payments?|ach|swift|sepa|card|brokerage)(?:'s)? (?:\w+ )?(?:api|gateway|processor)\b"
    r"|\b(?:my|our|their|the customer'?s?|the client'?s?|the visitor'?s?|his|her|your|the) "
    r"(?:\w+ )?(?:bank|checking|savings|brokerage|bank account|account|wallet|credit card|debit card)\b"
)

_PRIVATE_HOST = _rx(
    r"\b(?:10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])\.\d{1,3}\.\d{1,3})\b"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:internal|corp|intranet|lan)\b"
)
_LOCALHOST = _rx(r"\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0)(?::\d+)?\b")
_SYSTEM = (r"(?:database|db|postgres\w*|mysql|mongo\w*|sql server|redis|elasticsearch|redshift|snowflake|bigquery|"
           r"warehouse|servers?|cluster|api|backend|intranet|wiki|jira|confluence|jenkins|crm|erp|sap|ldap|"
           r"active directory|nas|vcenter|network)")
_OWN_SYSTEM = _rx(
    r"\b(?:our|my company'?s?|the company'?s?|our team'?s?|the team'?s?|the office'?s?|corporate|work)\s+(?:[\w-]+\s+){0,2}" + _SYSTEM + r"\b"
    r"|\b(?:production|prod|live|internal|on-?prem\w*)\s+(?:[\w-]+\s+){0,2}" + _SYSTEM + r"\b"
    r"|\bon (?:the|our) (?:office|company|corporate|internal|local|work) network\b|\bbehind (?:our|the) (?:vpn|firewall)\b|\bintranet\b"
)
_DATA_VERB = _rx(
    r"\b(?:fetch\w*|call\w*|quer(?:y|ies|ied|ying)|poll\w*|read\w*|pull\w*|connect\w*|hit\w*|request\w*|load\w*|"
    r"post\w*|get\w*|ping\w*|list\w*|writ\w*|sync\w*|talk\w*|show\w*|display\w*|hook\w*|delet\w*)\b"
)

_EXFIL = _rx(r"\b(?:send\w*|e-?mail\w*|stor\w*|sav\w*|upload\w*|forward\w*|record\w*|log\w*|collect\w*|keep\w*|captur\w*|grab\w*|post\w*)\b")
_VICTIM = _rx(r"\b(?:visitors?|people|users?|victims?|everyone|anyone|whatever|customers?)\b")
_IMITATE = _rx(r"\b(?:clon\w*|cop(?:y|ies|ied)|replica\w*|look\w* (?:exactly |just )?like|imitat\w*|impersonat\w*|spoof\w*)\b")
_TO_ME = _rx(r"\b(?:to me|me|my (?:server|email|inbox|webhook|database|sheet|bot)|a (?:google )?sheet|webhook|later)\b")

# A demo, a simulation or an explanation of the thing, not the thing itself.
_DEMO = _rx(
    r"\b(?:demo\w*|mock\w*|fake|sample|pretend|simulat\w*|hard-?coded|placeholder|fictional|fictitious|made-up|"
    r"dummy|prototype|concept|stub\w*|sandbox|in-?memory|in-?browser|test data|non-?functional|purely visual|"
    r"tutorial|explain\w*|teach\w*|diagram|visuali[sz]\w*|randomly generated)\b"
    r"|\b(?:no|not|nothing|without|never) (?:a )?(?:real|actual|live)\b"
)
# Insisting on the real thing overrides demo words ("not the sandbox: charge real cards").
_REAL = _rx(
    r"\b(?<!no )(?<!not )(?<!nothing )(?<!without )(?<!never )(?:real(?![- ]time| estate)|actual(?:ly)?|genuine(?:ly)?)\b"
    r"|\bfor real\b|\bno sandbox\b|\bnot (?:a |the )?(?:demo|mock|sandbox|simulation)\b|\blive (?:mode|keys?|payments?|charges?|cards?|api)\b"
)

# --- rules -----------------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
Match = Callable[[str], bool]


def _together(*cues: re.Pattern) -> Match:
    """All cues in one sentence: the concept, whatever the wording and word order."""
    def match(text: str) -> bool:
        return any(all(c.search(s) for c in cues) for s in _SENTENCE.split(text))
    return match


def _found(pattern: re.Pattern) -> Match:
    return lambda text: bool(pattern.search(text))


def is_demo(text: str) -> bool:
    return bool(_DEMO.search(text)) and not _REAL.search(text)


_KEY_VALUE = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|xox[bp]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,})")
_SECRET_VALUE = _rx(r"\b(?:password|passwd|api[ _-]?key|secret[ _-]?key|access[ _-]?token)\s*(?:is|=|:)\s*\S{4,}")
# A long mixed letters-and-digits token right after a secret word is a secret whatever it is called.
_SECRET_TOKEN = _rx(r"\b(?:secret|token|key|password|credentials?)s?\b[^.\n]{0,24}?(?=[\w/+=-]*\d)(?=[\w/+=-]*[a-z])[\w/+=-]{20,}")
_EMAIL = re.compile(r"\b[\w.+-]+@(?!(?:[\w-]+\.)*(?:example|test|invalid|localhost)\b)(?:[\w-]+\.)+[A-Za-z]{2,}\b")
_PHONE = re.compile(r"(?<![\w.])(?:\+\d{1,3}[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}\b")

# (rule, what was found, matcher, stands down for a demo)
_RULES: list[tuple[str, str, Match, bool]] = [
    ("credentials", "contains an API key or token", _found(_KEY_VALUE), False),
    ("credentials", "contains a password or key value", _found(_SECRET_VALUE), False),
    ("credentials", "contains a secret token", _found(_SECRET_TOKEN), False),
    ("credentials", "asks to collect real credentials", _found(_rx(r"\b(?:steal|harvest|phish|exfiltrat)\w*\s+(?:[\w']+\s+){0,3}(?:passwords|credentials|logins|card numbers)\b|\bphishing\b")), False),
    ("credentials", "asks to send or keep the credentials people enter", _together(_CRED, _EXFIL, _VICTIM, _TO_ME), False),
    ("credentials", "imitates a real service's login to collect credentials", _together(_IMITATE, _SERVICE, _CRED, _EXFIL), False),
    ("personal_data", "contains an email address", _found(_EMAIL), False),
    ("personal_data", "contains a phone number", _found(_PHONE), False),
    ("personal_data", "asks for real people's personal data", _found(_rx(r"\b(?:social security numbers?|ssns?\b|real (?:customer|patient|employee|user|student)s?'? (?:data|records|details|information)|scrape\w* (?:\w+ ){0,3}(?:profiles|emails|phone numbers|addresses)|home address(?:es)? of)")), False),
    ("payment", "asks for real payment processing", _found(_rx(r"\b(?:real|actual|live)[ -](?:payments?|money|credit cards?|transactions?|charges?)\b|\bcharge (?:real|actual) (?:cards|customers|money)\b|\bstripe live (?:mode|key)\b|\b(?:transfer|send|withdraw) (?:real )?money (?:from|to) " + _OWNER)), True),
    ("payment", "moves money through a real bank or payment service", _together(_MOVE, _MONEY, _RAIL), True),
    ("login_required", "asks for a login to a real account", _found(_rx(r"\blog ?(?:s|ged)? ?in(?:to)? (?:to )?" + _OWNER + r" (?:real |actual )?(?:\w+ )?(?:account|bank|email|inbox|portal|dashboard)\b|\busing " + _OWNER + r" (?:real |actual )?(?:\w+ )?(?:login|credentials|account)\b|\bwith " + _OWNER + r" (?:gmail|google|facebook|instagram|twitter|bank|banking|paypal) (?:login|account)\b")), True),
    ("login_required", "checks credentials against a real service", _together(_CRED, _CHECK, _SERVICE), True),
    ("private_backend", "needs a private backend", _found(_rx(r"\b" + _OWNER + r" (?:internal|private|production|intranet|corporate|company) (?:api|database|db|server|backend|endpoint|network|crm|erp)\b|\bconnect\w* (?:it )?to " + _OWNER + r" (?:\w+ )?(?:database|db|server|api|backend|mysql|postgres\w*|mongodb)\b")), True),
    ("private_backend", "names a private network host", _found(_PRIVATE_HOST), True),
    ("private_backend", "reads from a service on localhost", _together(_LOCALHOST, _DATA_VERB), True),
    ("private_backend", "reads from an organisation's own systems", _together(_OWN_SYSTEM, _DATA_VERB), True),
]

# Found values of these are replaced in anything stored.
_REDACT = [_KEY_VALUE, _SECRET_VALUE, _SECRET_TOKEN, _EMAIL, _PHONE]


@dataclass(frozen=True)
class PolicyVerdict:
    rule: str  # a key of POLICY_RULES
    detail: str  # what was found, never the secret itself
    source: str = "rule"  # "rule" or "model": who excluded the prompt


def check_policy(text: str) -> PolicyVerdict | None:
    """The first rule the text breaks, or None when it may enter the corpus."""
    demo = None  # computed once, only when a rule that stands down for demos matches
    for rule, what, match, stands_down in _RULES:
        if not match(text):
            continue
        if stands_down:
            demo = is_demo(text) if demo is None else demo
            if demo:
                continue
        return PolicyVerdict(rule, what)
    return None


def redact(text: str) -> str:
    for pattern in _REDACT:
        text = pattern.sub("[redacted]", text)
    return text
