"""Prompt intake: sources, crawl, policy, family, rewrite, dedup, decontamination (docs/intake.md)."""
