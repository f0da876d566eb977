"""Exclusion policy: the real thing is excluded with its rule, a front-end demo of it is not."""

from __future__ import annotations

import pytest

from webmend.intake.policy import POLICY_RULES, check_policy, redact
from webmend.intake.scope import check_scope


@pytest.mark.parametrize("text,rule", [
    ("Make a page that logs into my bank account and downloads my statements.", "login_required"),
    ("Build a dashboard using my real Instagram login to show my followers.", "login_required"),
    ("Accept real payments with Stripe on this checkout page.", "payment"),
    ("Use my api key: sk-live0123456789abcdefghij to call the weather service.", "credentials"),
    ("A page that harvests visitors' passwords and sends them to me.", "credentials"),
    ("Connect it to our internal API for the sales numbers.", "private_backend"),
    ("Show the status of the build server at 192.168.10.20.", "private_backend"),
    ("Contact page; send the form to jane.doe@gmail.com.", "personal_data"),
    ("Put my number 415-555-0199 in the header.", "personal_data"),
    ("Import real patient records and chart them by diagnosis.", "personal_data"),
])
def test_rules(text, rule):
    verdict = check_policy(text)
    assert verdict is not None and verdict.rule == rule and verdict.rule in POLICY_RULES


@pytest.mark.parametrize("text", [
    "Build a login form demo with email and password validation.",
    "Design a checkout page mockup with card number formatting using fake data.",
    "Use three@0.160.0 and d3@7.8.5 from a CDN.",
    "Placeholder email jane@example.com in the signup form.",
    "A contact form that validates an email field.",
])
def test_front_end_demos_pass(text):
    assert check_policy(text) is None


def test_redaction_removes_secrets_and_contacts():
    text = "key sk-abcdefghijklmnop0123 and mail bob@corp-mail.com, phone (415) 555-0199"
    out = redact(text)
    assert "sk-abc" not in out and "bob@" not in out and "555-0199" not in out and out.count("[redacted]") == 3


@pytest.mark.parametrize("text,in_scope", [
    ("Kanban board for a small team: drag cards between columns.", True),
    ("Can someone make a snake game in one HTML file?", True),
    ("How do I center a div in CSS?", False),
    ("Which laptop should I buy for coding?", False),
    ("Write a Python script that renames files in a folder.", False),
    ("Set up a Django backend with Postgres for my blog.", False),
    ("lol this subreddit is dead", False),
])
def test_scope(text, in_scope):
    assert (check_scope(text) is None) == in_scope
