"""webmend: turn LLM-written interactive HTML pages into verified training data."""

__version__ = "0.1.0"
