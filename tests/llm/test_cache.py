"""The on-disk response cache: keys, hits, atomic entries."""

from webmend.llm.cache import ResponseCache, cache_key

MSGS = [{"role": "user", "content": "Build a clock"}]


def test_key_depends_on_model_params_messages_and_sample_index():
    base = cache_key("openai/m", {"temperature": 0.2}, MSGS, 0)
    assert base == cache_key("openai/m", {"temperature": 0.2}, [dict(m) for m in MSGS], 0)
    others = {
        cache_key("openai/other", {"temperature": 0.2}, MSGS, 0),
        cache_key("openai/m", {"temperature": 0.7}, MSGS, 0),
        cache_key("openai/m", {"temperature": 0.2}, [{"role": "user", "content": "Build a timer"}], 0),
        cache_key("openai/m", {"temperature": 0.2}, MSGS, 1),
    }
    assert base not in others and len(others) == 4


def test_put_get_and_no_temporary_files_left(tmp_path):
    cache = ResponseCache(tmp_path / "c")
    key = cache_key("openai/m", {}, MSGS)
    assert cache.get(key) is None
    cache.put(key, {"text": "<html></html>", "n": 1})
    assert cache.get(key) == {"text": "<html></html>", "n": 1}
    assert (cache.hits, cache.misses) == (1, 1)
    files = [p.name for p in (tmp_path / "c").rglob("*") if p.is_file()]
    assert files == [f"{key}.json"]
    assert ResponseCache(tmp_path / "c").get(key) == {"text": "<html></html>", "n": 1}  # survives the process


def test_a_damaged_entry_is_a_miss(tmp_path):
    cache = ResponseCache(tmp_path)
    key = cache_key("openai/m", {}, MSGS)
    cache.put(key, {"a": 1})
    next(tmp_path.rglob("*.json")).write_text("{not json")
    assert cache.get(key) is None
