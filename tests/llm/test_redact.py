"""Secrets from the environment never reach text we write or log."""

import logging

from webmend.llm.redact import RedactingFilter, redact


def test_credential_values_and_url_passwords_are_masked():
    env = {"OPENAI_API_KEY": "sk-live-abcdef123456", "HF_TOKEN": "hf_xyz789xyz", "HOME": "/root", "SHORT_KEY": "1"}
    text = "auth failed for sk-live-abcdef123456 via https://user:hunter22@proxy.local/v1 token hf_xyz789xyz at /root 1"
    clean = redact(text, env)
    assert "sk-live" not in clean and "hunter22" not in clean and "hf_xyz" not in clean
    assert "/root" in clean and clean.endswith(" 1")  # ordinary values and too-short ones stay
    assert "https://***@proxy.local/v1" in clean


def test_log_filter_masks_messages_and_arguments(monkeypatch):
    monkeypatch.setenv("WEBMEND_TEST_API_KEY", "sk-secret-filter-42")
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "key=%s", ("sk-secret-filter-42",), None)
    RedactingFilter().filter(record)
    assert record.getMessage() == "key=***"
