"""VisualJudge end to end through the real litellm stack against the scripted local server."""

import base64
import json

from judge_fixtures import (  # noqa: F401
    MODEL,
    RoleScript,
    Sleeps,
    analyst_answer,
    answer,
    judge_input,
    judge_server,
    make_client,
    metrics,
    png,
    requests_of,
    scorer_answer,
)
from llm.llm_server import Reply, chat_reply, content_filtered, error_reply, rate_limited

from webmend.config import JudgeConfig
from webmend.evaluate.judge.judge import VisualJudge
from webmend.schemas.judge import JudgeResult


def run(server, *, analyst=None, scorer=None, inp=None, cache_dir=None, sleeps=None, cfg=None, **client_kw):
    if analyst is not None or scorer is not None:
        server.fallback = RoleScript(analyst or [], scorer or [])
    judge = VisualJudge(MODEL, cfg, cache_dir=cache_dir, client=make_client(sleeps, **client_kw))
    return judge.judge(inp or judge_input())


def test_happy_path_roles_and_decoding(judge_server):
    result = run(judge_server, analyst=[answer(analyst_answer())], scorer=[answer(scorer_answer(15))])
    assert (result.source, result.visual_design, result.functionality) == ("judge", 15.0, None)
    assert (result.calls, result.cache_hits, result.reasks, result.fallback_reason) == (2, 0, 0, None)
    assert result.audit_summary.model_dump() == {"total": 3, "done": 2, "broken": 0, "missing": 1}
    # The audit names the caller's requirements, with the Analyst's statuses and evidence.
    assert [r.requirement for r in result.requirements] == judge_input().requirements
    assert result.requirements[1].status == "missing"
    (a_req,), (s_req,) = requests_of(judge_server, "analyst"), requests_of(judge_server, "scorer")
    for req in (a_req, s_req):
        assert req.body["temperature"] == 0 and req.body["seed"] == 0
    # Analyst: both keyframes as base64 PNG data URLs that decode to the bytes we sent.
    parts = a_req.messages[1]["content"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert [base64.b64decode(u.removeprefix("data:image/png;base64,")) for u in urls] == \
        [kf.png for kf in judge_input().keyframes]
    # Scorer: text only, no images, no page text, no Analyst free text.
    s_body = json.dumps(s_req.body)
    assert "image_url" not in s_body and "data:image" not in s_body
    assert "Round 1" not in s_body and "keyframe 2 shows" not in s_body and "centred card" not in s_body
    assert isinstance(s_req.messages[1]["content"], str)
    # The result is plain JSON that reads back as the same contract (it is stored with the page).
    assert JudgeResult.model_validate_json(result.model_dump_json()) == result


def test_fenced_json_with_prose_and_extra_keys(judge_server):
    fenced = "Here is my analysis:\n```json\n" + json.dumps(analyst_answer(score=99)) + "\n```\nLet me know!"
    prose = json.dumps(scorer_answer(14)) + "\n\nThe page is solid overall."
    result = run(judge_server, analyst=[answer(fenced)], scorer=[answer(prose)])
    assert (result.source, result.visual_design, result.reasks, result.repaired_json) == ("judge", 14.0, 0, 0)
    assert "score" not in result.observations  # an Analyst's score is dropped, not kept


def test_malformed_json_gets_one_reask(judge_server):
    result = run(judge_server, analyst=[answer("{'page_type': oops"), answer(analyst_answer())],
                 scorer=[answer("I would give it about 13 points."), answer(scorer_answer(13))])
    assert (result.source, result.visual_design, result.reasks, result.calls) == ("judge", 13.0, 2, 4)
    reask = requests_of(judge_server, "scorer")[1].messages
    assert reask[:-1] == requests_of(judge_server, "scorer")[0].messages  # same question, one note added
    assert "could not be used" in reask[-1]["content"] and "13 points" not in reask[-1]["content"]


def test_schema_invalid_answer_is_reasked(judge_server):
    # The Analyst skips R3 and uses a rating outside the scale: both are schema errors.
    bad = analyst_answer(layout_quality="stunning", requirements=analyst_answer()["requirements"][:2])
    result = run(judge_server, analyst=[answer(bad), answer(analyst_answer())], scorer=[answer(scorer_answer(12))])
    assert (result.source, result.visual_design, result.reasks) == ("judge", 12.0, 1)
    note = requests_of(judge_server, "analyst")[1].messages[-1]["content"]
    assert "layout_quality" in note


def test_truncated_json_is_repaired_when_complete_enough(judge_server):
    text = json.dumps(analyst_answer())
    cut = text[: text.index('"evidence": "Round 1') + 20]  # cut inside the last evidence string
    result = run(judge_server, analyst=[answer(cut, finish_reason="length")], scorer=[answer(scorer_answer(15))])
    assert (result.source, result.repaired_json, result.reasks) == ("judge", 1, 0)
    assert result.requirements[2].status == "done"


def test_truncated_json_missing_required_fields_is_rejected(judge_server):
    text = json.dumps(analyst_answer())
    cut = text[: text.index('"requirements"') + 30]  # the audit is lost: not guessed
    result = run(judge_server, analyst=[answer(cut, finish_reason="length")] * 2, scorer=[answer(scorer_answer(15))])
    assert result.source == "fallback" and result.fallback_reason.startswith("analyst: unusable answer")
    assert result.visual_design == 11.5 and len(requests_of(judge_server, "scorer")) == 0


def test_429_with_retry_after_then_answer(judge_server):
    sleeps = Sleeps()
    result = run(judge_server, analyst=[rate_limited(retry_after=3), answer(analyst_answer())],
                 scorer=[answer(scorer_answer(15))], sleeps=sleeps)
    assert (result.source, result.visual_design, result.retries) == ("judge", 15.0, 1)
    assert 3.0 <= sleeps[0] < 3.1  # Retry-After honoured (plus a little jitter)


def test_timeout_then_answer(judge_server):
    late = Reply(200, chat_reply(json.dumps(analyst_answer())).body, delay_s=1.5)
    result = run(judge_server, analyst=[late, answer(analyst_answer())], scorer=[answer(scorer_answer(15))],
                 timeout_s=0.5)
    assert (result.source, result.retries, len(requests_of(judge_server, "analyst"))) == ("judge", 1, 2)


def test_500_then_answer(judge_server):
    result = run(judge_server, analyst=[answer(analyst_answer())],
                 scorer=[error_reply(500), error_reply(503), answer(scorer_answer(16))])
    assert (result.source, result.visual_design, result.retries) == ("judge", 16.0, 2)


def test_persistent_failure_falls_back_with_reason(judge_server):
    result = run(judge_server, analyst=[answer(analyst_answer())], scorer=[error_reply(500)], max_retries=2)
    assert result.source == "fallback" and result.visual_design == 11.5  # the fast-mode estimate
    assert result.fallback_reason.startswith("scorer: transient") and "500" in result.fallback_reason
    assert len(requests_of(judge_server, "scorer")) == 3
    assert result.audit_summary.total == 3  # the Analyst's audit survives a Scorer failure


def test_persistent_garbage_falls_back_after_one_reask(judge_server):
    result = run(judge_server, analyst=[answer("I cannot produce JSON today.")], scorer=[])
    assert result.source == "fallback" and "no JSON object" in result.fallback_reason
    assert (result.reasks, len(requests_of(judge_server, "analyst"))) == (1, 2)


def test_refusal_falls_back(judge_server):
    result = run(judge_server, analyst=[content_filtered()], scorer=[])
    assert result.source == "fallback" and "refused" in result.fallback_reason


def test_no_usable_keyframes_makes_no_call(judge_server, tmp_path):
    inp = judge_input(keyframes=[{"png": b"GIF89a...", "annotation": "x"},
                                 {"path": str(tmp_path / "gone.png"), "annotation": "y"}])
    result = run(judge_server, analyst=[], scorer=[], inp=inp)
    assert result.source == "fallback" and result.fallback_reason == "no usable keyframes"
    assert len(result.skipped_keyframes) == 2 and judge_server.requests == []


def test_keyframe_from_path_and_frame_limit(judge_server, tmp_path):
    frames = []
    for i in range(4):
        path = tmp_path / f"k{i}.png"
        path.write_bytes(png((i * 40, 10, 10)))
        frames.append({"path": str(path), "annotation": f"frame {i}"})
    run(judge_server, analyst=[answer(analyst_answer())], scorer=[answer(scorer_answer(15))],
        inp=judge_input(keyframes=frames), cfg=JudgeConfig(max_keyframes=3))
    parts = requests_of(judge_server, "analyst")[0].messages[1]["content"]
    assert sum(p["type"] == "image_url" for p in parts) == 3


def test_invalid_input_never_raises(judge_server):
    judge = VisualJudge(MODEL, client=make_client())
    result = judge.judge({"prompt": "x", "keyframes": []})  # no metrics
    assert (result.source, result.visual_design) == ("fallback", None)
    assert result.fallback_reason.startswith("invalid judge input")


def test_rerun_hits_the_cache_and_is_identical(judge_server, tmp_path):
    cache = tmp_path / "judge-cache"
    first = run(judge_server, analyst=[answer("not json"), answer(analyst_answer())],
                scorer=[answer(scorer_answer(17, 44))], cache_dir=cache,
                inp=judge_input(judge_functionality=True))
    seen = len(judge_server.requests)
    assert seen == 3 and first.calls == 3
    second = run(judge_server, cache_dir=cache, inp=judge_input(judge_functionality=True))
    assert len(judge_server.requests) == seen  # no call at all
    assert (second.calls, second.cache_hits) == (0, 3)
    keep = {"calls", "cache_hits", "retries"}
    assert second.model_dump(exclude=keep) == first.model_dump(exclude=keep)
    # A different keyframe is a different question: a miss for the Analyst.
    other = judge_input(judge_functionality=True, keyframes=[{"png": png((1, 2, 3)), "annotation": "first paint"}])
    judge_server.fallback = RoleScript([answer(analyst_answer())], [answer(scorer_answer(17, 44))])
    third = run(judge_server, cache_dir=cache, inp=other)
    assert third.calls >= 1 and len(judge_server.requests) > seen


def test_guardrails_clamp_the_judge(judge_server):
    inp = judge_input(metrics=metrics(overflow_mobile=True, has_viewport_meta=False))
    result = run(judge_server, analyst=[answer(analyst_answer())], scorer=[answer(scorer_answer(19))], inp=inp)
    assert result.visual_design == 12.0 and result.raw_scores == {"visual_design": 19}
    assert [(g.rule, g.limit, g.before, g.after) for g in result.guardrails] == [("overflow_mobile", 12.0, 19, 12.0)]


def test_functionality_only_when_allowed_and_within_probe_band(judge_server):
    plain = run(judge_server, analyst=[answer(analyst_answer())], scorer=[answer(scorer_answer(15, 55))])
    assert plain.functionality is None  # not asked: the deterministic score stays
    assert "functionality" not in json.dumps(requests_of(judge_server, "scorer")[0].messages[1]["content"]
                                             .split("## Answer")[1])
    judge_server.requests.clear()
    allowed = run(judge_server, analyst=[answer(analyst_answer())], scorer=[answer(scorer_answer(15, 55))],
                  inp=judge_input(judge_functionality=True))
    # Probe estimate 40, shift 0.2 x 55 = 11: at most 51.
    assert allowed.functionality == 51.0 and allowed.raw_scores["functionality"] == 55
    assert allowed.guardrails[-1].rule == "probe_band"
