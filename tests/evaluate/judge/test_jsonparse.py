"""extract_json: fenced or bare JSON, prose around it, think blocks, truncation repaired or rejected."""

import pytest

from webmend.evaluate.judge.jsonparse import JSONExtractError, extract_json


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('Sure! Here it is:\n```json\n{"a": [1, 2], "b": "x"}\n```\nHope this helps.', {"a": [1, 2], "b": "x"}),
    ('```\n{"a": 1}\n```', {"a": 1}),
    ('{"a": 1}\n\nThe page is fine. {"b": 2}', {"a": 1}),
    ('I think {this} is it: {"a": {"b": 2}} done', {"a": {"b": 2}}),
    ('<think>maybe {"a": 0}?</think>{"a": 3}', {"a": 3}),
    ('{"text": "braces } and { inside", "n": 2}', {"text": "braces } and { inside", "n": 2}),
])
def test_complete_objects(text, expected):
    assert extract_json(text) == (expected, False)


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1, "b": "hal', {"a": 1, "b": "hal"}),  # cut inside a string: the partial text is kept
    ('{"a": 1, "b": ', {"a": 1}),  # dangling key dropped
    ('{"a": [1, 2, {"c": "d\\', {"a": [1, 2, {"c": "d"}]}),  # cut inside an escape
    ('```json\n{"a": {"b": 1}, "c": [tr', {"a": {"b": 1}, "c": []}),  # an unfinished literal is dropped
    ('{"score": 1', {}),  # a number at the very end may be cut ("15"): never read as 1
    ('{"visual_design": {"score": 1', {"visual_design": {}}),  # ... so the schema rejects it
    ('prose first {"reqs": [{"id": "R1", "status": "done"}, {"id": "R2", "sta',
     {"reqs": [{"id": "R1", "status": "done"}, {"id": "R2"}]}),
])
def test_truncated_objects_are_repaired(text, expected):
    assert extract_json(text) == (expected, True)


@pytest.mark.parametrize("text", [
    "", "no json here", "[1, 2, 3]", "{'single': 'quotes'}}",
    '{"a": 1,}',  # invalid and complete: not a truncation, re-asked instead
])
def test_unreadable_answers_are_rejected(text):
    with pytest.raises(JSONExtractError):
        extract_json(text)
