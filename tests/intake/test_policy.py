"""Exclusion policy: the real thing is excluded with its rule, a front-end demo of it is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webmend.intake.config import IntakeConfig
from webmend.intake.policy import POLICY_RULES, check_policy, redact
from webmend.intake.quality import FAMILY_LABELS, policy_metrics
from webmend.intake.scope import check_scope

ROOT = Path(__file__).resolve().parents[2]


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
    # concepts, whatever the wording: real credentials checked against a real service,
    ("A page that checks the user's username and password against their bank's API.", "login_required"),
    ("Verify the entered credentials with Gmail's server.", "login_required"),
    # real money moved through a real bank or payment service,
    ("Wire the funds to the supplier using the Wise API.", "payment"),
    ("Charge the customer's credit card through Stripe on submit.", "payment"),
    # an organisation's own systems or a localhost service,
    ("Read the tickets from our Jira server on the office network.", "private_backend"),
    ("Fetch the build status from http://localhost:3000/api.", "private_backend"),
    # collecting the credentials people type.
    ("Store whatever password the visitors enter and send it to my server.", "credentials"),
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
    "A login form demo that checks the password against a hard-coded list.",
    "A mock checkout with a card form; no real charge.",
    "A fake bank dashboard with sample data.",
    "Simulate a transfer between two pretend accounts through a mock bank API.",
    "A real-time chart of sample server metrics from our fake cluster.",
])
def test_front_end_demos_pass(text):
    assert check_policy(text) is None


def test_real_overrides_demo_words():
    verdict = check_policy("Not a demo: charge real cards through Stripe when the order is placed.")
    assert verdict is not None and verdict.rule == "payment" and verdict.source == "rule"


def test_labelled_set_recall_and_demo_precision():
    m = policy_metrics()
    assert m["dev"]["rows"] >= 50 and m["held_out"]["rows"] >= 80
    assert m["held_out"]["counts"]["tp"] + m["held_out"]["counts"]["fn"] >= 40  # held-out cases to exclude
    # Rules alone, measured when they were written: dev recall 1.000 (29/29), demo_pass 1.000 (22/22);
    # held_out recall 0.878 (43/49), precision 0.935, demo_pass 0.914 (32/35), rule agreement 1.000.
    assert m["dev"]["recall"] == 1.0 and m["dev"]["demo_pass"] == 1.0, m["dev"]
    assert m["held_out"]["recall"] >= 0.85, m["held_out"]
    assert m["held_out"]["demo_pass"] >= 0.88, m["held_out"]
    assert m["held_out"]["rule_agreement"] >= 0.95, m["held_out"]
    gates = IntakeConfig().quality
    assert m["held_out"]["recall"] >= gates.policy_held_out_recall_min
    assert m["held_out"]["demo_pass"] >= gates.policy_demo_pass_min


def test_ordinary_prompts_are_not_excluded():
    # Precision beyond the demos: the family set and the benchmark prompts ask for nothing real.
    texts = [json.loads(l)["text"] for l in FAMILY_LABELS.read_text().splitlines() if l.strip()]
    texts += [json.loads(l)["prompt"] for l in (ROOT / "data" / "bench" / "items.jsonl").read_text().splitlines() if l.strip()]
    assert len(texts) >= 240
    assert [t for t in texts if check_policy(t)] == []


def test_redaction_removes_secrets_and_contacts():
    text = "key sk-abcdefghijklmnop0123 and mail bob@corp-mail.com, phone (415) 555-0199"
    out = redact(text)
    assert "sk-abc" not in out and "bob@" not in out and "555-0199" not in out and out.count("[redacted]") == 3
    token = redact("my AWS secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY for the upload")
    assert "wJalr" not in token and "[redacted]" in token


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
