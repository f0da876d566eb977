"""Is this a request for a single-file web page at all? (reject reason `not_a_web_task`)

Forum dumps are mostly questions, rants and back-end work. A text is in scope when it names
something a browser shows (a page, app, game, chart, scene, animation, or any family cue) and it
neither names a stack that cannot live in one HTML file nor is only a question to other readers.
Direct requests are often bare noun phrases ("Kanban board with three columns ..."), so no
imperative verb is required.
"""

from __future__ import annotations

import re

from webmend.intake.family import classify_rules

_I = re.IGNORECASE

_ARTIFACT = re.compile(
    r"\b(?:web ?pages?|pages?|websites?|sites?|web ?apps?|apps?|applications?|games?|dashboards?|charts?|graphs?|plots?|"
    r"visuali[sz]\w*|animations?|animated|landing|portfolio|ui|interfaces?|forms?|calculators?|tools?|editors?|players?|"
    r"simulat\w+|scenes?|canvas|svg|widgets?|clock|timers?|galler(?:y|ies)|maps?|quiz\w*|generators?|viewers?|trackers?|"
    r"boards?|demos?|configurators?|explorers?|infographics?|resumes?|menus?|storefronts?|shops?|blogs?|articles?|"
    r"screens?|layouts?|effects?|art|particles?|shaders?|terrain|planner|converter|keyboard|piano|synth\w*|"
    r"drum ?machine|puzzles?|mockup|prototype|grids?|loggers?|word clouds?|spreadsheets?|tables?|lists?|diagrams?|components?|html5?|css|javascript|webgl|three\.?js|p5\.?js|d3|clone)\b",
    _I,
)
_NON_WEB = re.compile(
    r"\b(?:(?:python|java|c\+\+|c#|rust|golang|go|ruby|php|bash|powershell|swift|kotlin)\s+(?:script|program|cli|library|"
    r"module|backend|server|bot|daemon)|(?:ios|android|mobile|desktop)\s+app|discord bot|telegram bot|slack bot|"
    r"django|flask|fastapi|spring boot|rails|laravel|express (?:server|backend)|rest(?:ful)? api|graphql server|"
    r"microservices?|kubernetes|docker(?:file)?|terraform|database schema|sql (?:query|queries)|excel (?:macro|formula)|"
    r"vba|arduino|firmware|unity|unreal engine|godot|chrome extension|browser extension|wordpress plugin)\b",
    _I,
)
_SINGLE_FILE = re.compile(r"\b(?:single[- ]file|one html file|html page|in the browser|web page)\b", _I)
_QUESTION_START = re.compile(
    r"^\s*(?:how|why|what|which|where|when|who|is|are|does|do|did|should|would|anyone|has anyone|any|can i|eli5)\b", _I
)
_ASK = re.compile(
    r"\b(?:build|create|make|design|implement|develop|code|write|generate|program|recreate|clone|need|want|"
    r"looking for|help me|could (?:you|someone)|can (?:you|someone)|i'?d like|i would like|please)\b",
    _I,
)


def check_scope(text: str) -> str | None:
    """None when the text asks for a browser-rendered artifact; otherwise why it does not."""
    if _NON_WEB.search(text) and not _SINGLE_FILE.search(text):
        return "needs a stack that cannot live in one HTML file"
    if not _ARTIFACT.search(text) and classify_rules(text).confidence == 0:
        return "names nothing a browser shows"
    if _is_question_only(text):
        return "a question to readers, not a request"
    return None


def _is_question_only(text: str) -> bool:
    sentences = [s for s in re.split(r"(?<=[.?!])\s+|\n+", text.strip()) if s.strip()]
    questions = [s for s in sentences if s.rstrip().endswith("?") or _QUESTION_START.match(s)]
    return len(questions) == len(sentences) and not _ASK.search(text)
