"""The crawler against a real HTTP site on 127.0.0.1: robots, allow-list, redirects, size, login walls."""

from __future__ import annotations

import json
import time

import pyarrow.parquet as pq
import pytest
from intake_site import Site, html_page

from webmend.cli import main
from webmend.intake.config import CrawlSettings, IntakeConfig
from webmend.intake.crawl import Crawler, HostThrottle, host_allowed, http_fetch
from webmend.intake.pipeline import Intake, run_intake

DELAY = 0.15
NAV = "<nav>Home | About | contact the admin at admin@realcompany.org</nav><footer>(c) Forum footer text</footer>"


def _routes(port: int) -> dict:
    off = f"http://localhost:{port}"
    index = f"""{NAV}<main><h1>Weekly challenges</h1><ul>
      <li><a href="/tasks/snake">Snake</a></li><li><a href="/tasks/charts">Charts</a></li>
      <li><a href="/private/secret-task">Staff only</a></li><li><a href="{off}/tasks/offlist">Mirror</a></li>
      <li><a href="/go-away">Partner site</a></li><li><a href="/go-home">Old link</a></li>
      <li><a href="/big">Archive</a></li><li><a href="/members/task">Members</a></li>
      <li><a href="/gated">Premium task</a></li><li><a href="/noai">Opted out</a></li>
      <li><a href="/style.css">css</a></li><li><a href="/logo.png">logo</a></li></ul></main>"""
    snake = f"""{NAV}<article data-family="games_simulations"><h1>Snake</h1>
      <div class="task-description">Build a classic Snake game on a canvas: arrow keys steer, food makes the snake grow,
      show the score and a game-over screen with a restart button.</div></article>"""
    charts = f"""{NAV}<main>
      <section data-task>Create a sales dashboard with a monthly revenue line chart, a category bar chart and a date filter.</section>
      <section data-task>Make an interactive pie chart of household spending where clicking a slice shows details.</section>
      <a href="/tasks/snake">again</a></main>"""
    redirected = f"{NAV}<article><p>Design a landing page for a meditation app with a pricing toggle and an FAQ accordion.</p></article>"
    gated = """<main><h1>Premium task</h1><p>Please sign in to view this task.</p>
      <form><input name="user"><input type="password" name="pw"></form></main>"""
    noai = "<article><p>Build a kanban board with drag and drop between three columns.</p></article>"
    big = "<article><p>" + ("Create a huge page. " * 5000) + "</p></article>"
    return {
        "/robots.txt": (200, {"Content-Type": "text/plain"}, "User-agent: *\nDisallow: /private/\n"),
        "/": html_page(index),
        "/tasks/snake": html_page(snake, "Snake challenge", '<link rel="license" href="https://creativecommons.org/licenses/by/4.0/">'),
        "/tasks/charts": html_page(charts),
        "/tasks/redirected": html_page(redirected),
        "/private/secret-task": html_page("<article><p>Build a secret internal tool.</p></article>"),
        "/go-away": (302, {"Location": f"{off}/tasks/elsewhere"}, ""),
        "/go-home": (301, {"Location": "/tasks/redirected"}, ""),
        "/big": html_page(big),
        "/members/task": (401, {"Content-Type": "text/html"}, "<p>Unauthorized</p>"),
        "/gated": html_page(gated),
        "/noai": html_page(noai, head='<meta name="robots" content="noai, noimageai">'),
    }


@pytest.fixture()
def site():
    with Site() as s:
        s.routes.update(_routes(s.port))
        yield s


def _settings(**kw) -> CrawlSettings:
    return CrawlSettings(**{"delay_s": DELAY, "max_bytes": 50_000, "timeout_s": 5, **kw})


def _crawl(site, **kw):
    crawler = Crawler([f"127.0.0.1:{site.port}"], _settings(**kw))
    result = run_intake(crawler.crawl([site.base + "/"]), Intake(IntakeConfig()))
    return crawler, result


def _reason(crawler, suffix: str) -> str | None:
    return next((e.reason for e in crawler.log if e.url.endswith(suffix)), None)


def test_crawl_keeps_tasks_and_obeys_the_rules(site):
    crawler, result = _crawl(site)
    texts = [k.prompt for k in result.kept]
    assert len(result.kept) == 4, [k.id for k in result.kept]
    assert any(t.startswith("Build a classic Snake game") for t in texts)
    assert sum("chart" in t for t in texts) == 2
    assert any("meditation app" in t for t in texts)  # reached through a same-site redirect
    # Only the task text is kept: no navigation, footer or the address in it.
    assert not any("admin@" in t or "footer" in t.lower() or "Home |" in t for t in texts)
    snake = next(k for k in result.kept if "Snake" in k.prompt)
    assert snake.label.family == "games_simulations" and snake.label.method == "source"
    assert snake.raw.licence == "https://creativecommons.org/licenses/by/4.0/" and snake.raw.fetched_at
    assert len({k.id for k in result.kept}) == 4  # ids are unique and derived from the URL

    paths = site.paths()
    assert paths.count("/robots.txt") == 1
    assert not any(p.startswith("/private/") for p in paths)  # robots.txt Disallow
    assert all(h.host.startswith("127.0.0.1") for h in site.hits)  # never the off-list host
    assert "/style.css" not in paths and "/logo.png" not in paths  # assets are never fetched
    assert paths.count("/tasks/snake") == 1  # a page is fetched once however often it is linked
    assert all(h.user_agent == CrawlSettings().user_agent for h in site.hits)

    assert _reason(crawler, "/private/secret-task") == "robots_disallowed"
    assert _reason(crawler, "/tasks/offlist") == "off_allowlist"
    assert _reason(crawler, "/go-away") == "redirect_off_allowlist"
    assert _reason(crawler, "/big") == "too_large"
    assert _reason(crawler, "/go-home").startswith("redirect -> ")


def test_login_walls_and_opt_outs_become_policy_rejects(site):
    _, result = _crawl(site)
    by_url = {r.raw.url.rsplit("/", 1)[-1]: r for r in result.rejects}
    assert by_url["task"].reason == "policy" and by_url["task"].rule == "login_required"  # HTTP 401
    assert by_url["gated"].reason == "policy" and by_url["gated"].rule == "login_required"  # sign-in form
    assert by_url["noai"].reason == "policy" and by_url["noai"].rule == "source_disallowed"
    assert "Please sign in" not in by_url["gated"].text  # nothing behind or on the wall is kept


def test_requests_to_one_host_are_spaced_by_the_delay(site):
    sent = []

    def timed_fetch(url, settings):
        sent.append(time.monotonic())  # when the crawler lets the request go (arrival times jitter under load)
        return http_fetch(url, settings)

    crawler = Crawler([f"127.0.0.1:{site.port}"], _settings(), fetch=timed_fetch)
    assert len(list(crawler.crawl([site.base + "/"]))) >= 4
    gaps = [b - a for a, b in zip(sent, sent[1:])]
    assert len(gaps) >= 8 and len(sent) == len(site.hits)
    assert min(gaps) >= DELAY - 0.005, gaps


PDF_ROBOTS = "User-agent: *\nDisallow: /*.pdf$\n"


def test_robots_dollar_pattern_blocks_only_the_exact_ending():
    with Site() as s:
        s.routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, PDF_ROBOTS)
        crawler = Crawler([f"127.0.0.1:{s.port}"], _settings(delay_s=0.0))
        assert not crawler.robots_allow(s.base + "/doc.pdf")
        assert not crawler.robots_allow(s.base + "/papers/2024/doc.pdf")  # `*` spans folders
        assert crawler.robots_allow(s.base + "/doc.pdf?x=1")  # `$` anchors the whole path and query
        assert crawler.robots_allow(s.base + "/doc.pdfx")
        assert crawler.robots_allow(s.base + "/")
        assert s.paths() == ["/robots.txt"]  # read once per origin


def test_crawl_applies_wildcard_robots_rules_to_redirect_targets():
    # Links ending in .pdf are skipped as assets before robots is asked, so the rule is reached via redirects.
    page = "<article><p>Make a {} with a reset button.</p></article>"
    with Site() as s:
        s.routes.update({
            "/robots.txt": (200, {}, PDF_ROBOTS),
            "/": html_page('<main><a href="/old-doc">a</a> <a href="/old-doc-2">b</a> <a href="/doc.pdfx">c</a></main>'),
            "/old-doc": (302, {"Location": "/doc.pdf"}, ""),
            "/old-doc-2": (302, {"Location": "/doc.pdf?x=1"}, ""),
            "/doc.pdf": html_page(page.format("stopwatch")),
            "/doc.pdf?x=1": html_page(page.format("color picker")),
            "/doc.pdfx": html_page(page.format("pomodoro timer")),
        })
        crawler = Crawler([f"127.0.0.1:{s.port}"], _settings(delay_s=0.0))
        texts = sorted(p.text for p in crawler.crawl([s.base + "/"]))
        assert s.paths().count("/doc.pdf") == 0
    assert [("color picker" in t, "pomodoro" in t) for t in texts] == [(True, False), (False, True)]
    assert _reason(crawler, "/old-doc") == "redirect_robots_disallowed"
    assert _reason(crawler, "/old-doc-2") == f"redirect -> {s.base}/doc.pdf?x=1"


@pytest.mark.parametrize("robots,delay_s,gap", [
    ("User-agent: *\nCrawl-delay: 2.5\n", 0.5, 2.5),  # the site asks for more than configured
    ("User-agent: *\nCrawl-delay: 1\n", 3.0, 3.0),  # the configured delay is a floor
    ("User-agent: *\nDisallow: /private/\n", 0.5, 0.5),  # no Crawl-delay
    ("User-agent: *\nCrawl-delay: 1\n\nUser-agent: webmend-intake\nCrawl-delay: 4\n", 0.5, 4.0),  # our group wins
])
def test_robots_crawl_delay_is_read_and_raises_the_gap(robots, delay_s, gap):
    now, slept = [0.0], []

    def sleep(seconds):  # a fake clock: the gaps are exact and the test does not wait
        slept.append(seconds)
        now[0] += seconds

    with Site() as s:
        s.routes.update({
            "/robots.txt": (200, {}, robots),
            "/": html_page('<article><p>Make a memory card game with a move counter.</p></article><a href="/b">b</a>'),
            "/b": html_page("<article><p>Make a Wordle clone with an on-screen keyboard.</p></article>"),
        })
        crawler = Crawler([f"127.0.0.1:{s.port}"], _settings(delay_s=delay_s), throttle=HostThrottle(lambda: now[0], sleep))
        assert len(list(crawler.crawl([s.base + "/"]))) == 2
        assert s.paths() == ["/robots.txt", "/", "/b"]
    assert slept == [pytest.approx(gap)] * 2  # before "/" (robots.txt went just before) and before "/b"


def test_max_pages_and_no_robots_file():
    with Site() as s:  # no /robots.txt route: 404 means everything is allowed
        s.routes.update({
            "/": html_page('<article><p>Make a tic-tac-toe game.</p></article><a href="/2">2</a><a href="/3">3</a>'),
            "/2": html_page("<article><p>Make a pong game for two players.</p></article>"),
            "/3": html_page("<article><p>Make a breakout game with power-ups.</p></article>"),
        })
        crawler = Crawler([f"127.0.0.1:{s.port}"], _settings(delay_s=0.0, max_pages=2))
        assert len(list(crawler.crawl([s.base + "/"]))) == 2
        assert [e.reason for e in crawler.log if e.url.endswith("/3")] == ["max_pages"]


def test_forbidden_robots_means_no_crawl():
    with Site() as s:
        s.routes.update({"/robots.txt": (403, {}, "no"), "/": html_page("<article><p>Make a snake game.</p></article>")})
        crawler = Crawler([f"127.0.0.1:{s.port}"], _settings(delay_s=0.0))
        assert list(crawler.crawl([s.base + "/"])) == []
        assert s.paths() == ["/robots.txt"]


def test_host_allowed():
    assert host_allowed("https://example.org/a", ["example.org"])
    assert not host_allowed("https://evil.example.org/a", ["example.org"])
    assert host_allowed("https://forum.example.org/a", [".example.org"])
    assert host_allowed("http://127.0.0.1:8000/", ["127.0.0.1:8000"])
    assert not host_allowed("http://127.0.0.1:9000/", ["127.0.0.1:8000"])
    assert not host_allowed("ftp://example.org/", ["example.org"])
    with pytest.raises(ValueError):
        Crawler([], CrawlSettings())


def test_throttle_waits_only_for_the_same_host():
    now = [0.0]
    slept = []
    throttle = HostThrottle(clock=lambda: now[0], sleep=lambda s: (slept.append(s), now.__setitem__(0, now[0] + s)))
    throttle.wait("a", 1.0)
    throttle.wait("b", 1.0)
    now[0] += 0.25
    throttle.wait("a", 1.0)
    assert slept == [pytest.approx(0.75)]


def test_crawl_cli_writes_tables_and_log(site, tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"# start here\n{site.base}/\n")
    out = tmp_path / "out"
    config = tmp_path / "intake.toml"
    config.write_text("[crawl]\nmax_bytes = 50000\n")
    code = main(["crawl", str(seeds), "--allow", f"127.0.0.1:{site.port}", "--out", str(out), "--delay", "0.05",
                 "--config", str(config)])
    assert code == 0
    prompts = pq.read_table(out / "prompts.parquet").to_pylist()
    rejects = pq.read_table(out / "rejects.parquet").to_pylist()
    report = json.loads((out / "report.json").read_text())
    log = [json.loads(line) for line in (out / "crawl_log.jsonl").read_text().splitlines()]
    assert len(prompts) == 4 and all(p["kind"] == "crawled_page" and p["url"] for p in prompts)
    assert {r["rule"] for r in rejects} == {"login_required", "source_disallowed"}
    assert report["crawl"]["by_outcome"]["skipped:robots_disallowed"] == 1
    assert {e["reason"] for e in log} >= {"robots_disallowed", "off_allowlist", "redirect_off_allowlist", "too_large"}
