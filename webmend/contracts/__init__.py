"""Interaction Contract Graphs: build, validate, execute, reward (issue 15; docs/icg-format.md). Not built yet."""
