"""The cheap checks before a candidate reaches a browser: document outline and script syntax (Node)."""

import shutil

import pytest

from webmend.repair.precheck import precheck, script_parse_failures

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

PAGE = """<!doctype html>
<html>
<head>
  <title>Timer</title>
  <script type="application/json" id="config">{"start": 10, "broken json": </script>
  <script type="importmap">{"imports": {"lib": "https://cdn.example/lib.js"}}</script>
  <script type="x-shader/x-fragment">void main() { gl_FragColor = vec4(1.0); }</script>
  <script type="module">
    import { format } from "lib";
    const { start } = JSON.parse(document.getElementById("config").textContent);
    export const label = format(await Promise.resolve(start));
  </script>
</head>
<body>
  <h1 id="time">10</h1>
  <script>
    let left = 10;
    setInterval(() => {
      left -= 1;
      document.getElementById("time").textContent = left;
    }, 1000);
  </script>
</body>
</html>
"""
BROKEN = PAGE.replace("    }, 1000);", "    }, 1000));")  # line 21 of the page, in script 5


def test_a_good_candidate_passes():
    assert script_parse_failures(PAGE) == []  # module import/await parses; JSON, importmap, shader skipped
    assert precheck(PAGE, PAGE.replace("left -= 1;", "left = Math.max(0, left - 1);")) is None


def test_candidate_that_breaks_a_script_is_rejected_with_the_reason():
    # The reason names the script (counting every <script> of the page), the error and the page line.
    assert precheck(PAGE, BROKEN) == ("1 script(s) fail to parse, the original had 0: "
                                      "script 5: SyntaxError: Unexpected token ')' (line 21)")


def test_already_broken_original_and_equally_broken_candidate_pass():
    assert precheck(BROKEN, BROKEN.replace("<h1 id=\"time\">", "<h1 class=\"big\" id=\"time\">")) is None


def test_candidate_may_not_add_a_failure_to_a_broken_original():
    worse = BROKEN.replace("export const label", "export const = ")  # script 4 breaks too
    assert precheck(BROKEN, worse).startswith("2 script(s) fail to parse, the original had 1")


def test_classic_script_with_import_syntax_fails_but_module_parses():
    classic = PAGE.replace('<script type="module">', "<script>")
    assert script_parse_failures(classic) == [
        "script 4: SyntaxError: Cannot use import statement outside a module (line 9)"]


def test_scripts_with_src_are_not_checked():
    assert script_parse_failures('<script src="app.js">this is ignored by the browser (</script>') == []


def test_candidate_without_a_body_is_rejected():
    assert precheck(PAGE, "<html><head><title>Timer</title></head></html>") == (
        "candidate body has neither text nor elements")
    assert precheck(PAGE, "<h1>10</h1>") == "candidate has no <html> or <body> element"


def test_empty_candidate_is_rejected():
    assert precheck(PAGE, " \n\t") == "candidate is empty"


def test_body_made_only_by_script_or_canvas_passes():
    assert precheck(PAGE, "<!doctype html><html><body><canvas id=c></canvas></body></html>") is None
    assert precheck(PAGE, "<html><body><script>document.body.append('hi')</script></body></html>") is None


def test_without_node_the_script_check_is_skipped_with_a_warning(monkeypatch, caplog):
    monkeypatch.setenv("PATH", "")
    assert precheck(PAGE, BROKEN) is None
    assert script_parse_failures(BROKEN) == []
    assert "node not found" in caplog.text


def test_a_node_timeout_does_not_reject(monkeypatch, caplog):
    monkeypatch.setattr("webmend.repair.precheck.NODE_TIMEOUT_S", 0.001)
    assert precheck(PAGE, BROKEN) is None
    assert "timed out" in caplog.text
