"""Family classification: six HTMLBench families, a subtype, and whether the task is interactive.

Deterministic keyword rules come first; an LLM classifier is optional and only consulted for
low-confidence rule results (it is a `complete(messages) -> str` callable handed in by the caller).
The interactive flag picks the scoring profile, so it errs towards interactive: a page is static
only when nothing in the request asks the user to act on it.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass
from typing import Callable

from webmend.schemas.vocab import FAMILIES

log = logging.getLogger(__name__)

_I = re.IGNORECASE
Complete = Callable[[list[dict]], str]


@dataclass(frozen=True)
class FamilyLabel:
    family: str
    subtype: str
    interactive: bool
    confidence: float  # 0..1
    method: str  # "rules", "llm", or "source" (given by the item itself)


def _rx(words: str) -> re.Pattern:
    return re.compile(r"\b(?:" + words + r")\b", _I)


# family -> [(subtype, pattern, weight)]; a subtype match also counts towards its family.
_SUBTYPES: dict[str, list[tuple[str, re.Pattern, float]]] = {
    "three_d_webgl": [
        ("solar_system", _rx(r"solar system|planets? orbit\w*|orrery"), 2),
        ("product_configurator", _rx(r"(?:product|car|shoe|watch|furniture) (?:configurator|viewer|customi[sz]er)|configurator"), 3),
        ("procedural_terrain", _rx(r"terrain|heightmap|voxel\w*|minecraft"), 2),
        ("particle_galaxy", _rx(r"galaxy|nebula|starfield|particle (?:system|cloud)s?"), 1.5),
        ("shader_art", _rx(r"(?:fragment |glsl |vertex )?shaders?|raymarch\w*|glsl"), 2),
        ("3d_scene", _rx(r"3d scene|three\.?js scene|low[- ]poly|orbit ?controls|first[- ]person|walkthrough|diorama"), 1.5),
        ("3d_model_viewer", _rx(r"model viewer|gltf|glb|obj loader|rotating (?:3d )?(?:cube|model)"), 2),
    ],
    "games_simulations": [
        ("snake", _rx(r"snake"), 3),
        ("breakout", _rx(r"breakout|brick[- ]?breaker|arkanoid"), 3),
        ("platformer", _rx(r"platformer|mario|jump(?:s|ing)? (?:between|on) platforms"), 3),
        ("tetris", _rx(r"tetris|tetromino\w*|falling blocks"), 3),
        ("puzzle", _rx(r"2048|sudoku|sliding puzzle|minesweeper|jigsaw|match[- ]3|crossword|nonogram|sokoban"), 3),
        ("memory_cards", _rx(r"memory (?:card )?(?:game|match\w*)|card matching|concentration game"), 3),
        ("space_shooter", _rx(r"asteroids|space (?:shooter|invaders)|shoot[- ]?em[- ]?up|shmup"), 3),
        ("board_game", _rx(r"chess|checkers|tic[- ]tac[- ]toe|connect (?:four|4)|othello|reversi|backgammon|go board"), 3),
        ("arcade", _rx(r"pong|flappy|dino(?:saur)? (?:game|run\w*)|endless runner|whack[- ]a[- ]mole|frogger|pac[- ]?man"), 3),
        ("cellular_automaton", _rx(r"game of life|cellular automat\w+|conway"), 3),
        ("physics_simulation", _rx(r"physics|pendulum|gravity|projectile|springs?|cloth|collisions?|boids|flocking|n[- ]body|fluid|predator|ecosystem|traffic"), 1.5),
        ("card_game", _rx(r"solitaire|blackjack|poker|uno|card game"), 3),
        ("word_game", _rx(r"wordle|hangman|typing (?:game|test|speed)|word search|anagram"), 3),
    ],
    "data_visualization": [
        ("dashboard", _rx(r"dashboards?|kpis?|analytics|admin panel"), 2.5),
        ("line_chart", _rx(r"line charts?|time[- ]series|trend lines?"), 3),
        ("bar_chart", _rx(r"bar charts?|histograms?|column charts?|stacked bars?"), 3),
        ("pie_chart", _rx(r"pie charts?|donut charts?|doughnut"), 3),
        ("scatter_plot", _rx(r"scatter ?plots?|bubble charts?"), 3),
        ("network_graph", _rx(r"network graphs?|force[- ]directed|node[- ]link|graph of (?:nodes|connections)|dependency graph"), 3),
        ("heatmap", _rx(r"heat ?maps?|calendar heatmap|choropleth"), 3),
        ("financial_chart", _rx(r"candlestick|stock (?:price|chart|market|ticker)|ohlc|portfolio (?:tracker|performance)"), 2.5),
        ("algorithm_visualizer", _rx(r"(?:sorting|pathfinding|search|algorithm) (?:algorithms? )?visuali[sz]\w+|visuali[sz]\w+ (?:of )?(?:sorting|dijkstra|a\*|bfs|dfs|binary search)|bubble sort|quicksort|merge sort"), 3),
        ("map_visualization", _rx(r"(?:world|interactive) map of|geo(?:graphic|json)|map visuali[sz]\w+"), 2.5),
        ("infographic", _rx(r"infographics?|data story|treemap|sankey|sunburst|radar chart"), 2.5),
    ],
    "visual_art_animation": [
        ("generative_art", _rx(r"generative|flow ?fields?|perlin|noise field|fractals?|mandelbrot|l[- ]system|truchet|spirograph"), 2.5),
        ("svg_animation", _rx(r"svg (?:animation|illustration|scene|landscape)|animated svg|illustrat\w+ (?:scene|landscape)"), 2.5),
        ("css_animation", _rx(r"css (?:animation|art|only)|keyframe animations?|pure css|loading (?:animation|spinner)s?|loaders?"), 2.5),
        ("interactive_animation", _rx(r"particles? (?:that |which )?(?:follow|react|repel|attract|scatter)|particle text|mouse[- ]?(?:reactive|follow\w*|trail)|cursor (?:trail|effect)s?|ripples?"), 2.5),
        ("clock", _rx(r"(?:analog|analogue|digital|word|flip) clock|clock face|clock"), 2),
        ("drawing_toy", _rx(r"kaleidoscope|drawing (?:toy|app|canvas|pad)|paint(?:ing)? (?:app|program)|sketch ?pad|doodle"), 2.5),
        ("text_effect", _rx(r"text (?:effects?|animation)|typewriter|glitch|kinetic typography|neon (?:sign|text)"), 2.5),
        ("scene_animation", _rx(r"animated (?:scene|night sky|ocean|underwater|forest|landscape|aquarium|fireworks)|fireworks|aurora|rain|snowfall|starry night|sunrise|sunset|lava lamp|matrix rain"), 2),
    ],
    "content_marketing": [
        ("saas_landing", _rx(r"(?:saas|startup|product|app) landing|landing pages?|hero section|pricing (?:table|section|tiers?|plans?)"), 3),
        ("portfolio", _rx(r"portfolio|personal (?:site|website|homepage)|resume|cv|about me"), 2.5),
        ("small_business_site", _rx(r"(?:restaurant|cafe|coffee|bakery|salon|gym|dental|law firm|agency|hotel|florist|plumb\w*|bike shop|bookstore|brewery|yoga studio|roastery)\b"), 2),
        ("blog_article", _rx(r"blog(?: post)?|articles?|long[- ]form|magazine|newsletter|editorial|essay"), 2.5),
        ("event_page", _rx(r"event page|conference|wedding|festival|meetup|webinar|invitation|rsvp"), 2.5),
        ("product_page", _rx(r"product page|e-?commerce|storefront|online shop|product (?:showcase|launch)|shopping cart"), 2),
        ("documentation_page", _rx(r"documentation (?:page|site)|docs page|faq page|help center|changelog"), 2.5),
        ("email_template", _rx(r"email template|newsletter template"), 3),
    ],
    "apps_tools": [
        ("todo_list", _rx(r"to-?do(?: list)?|task (?:list|manager)"), 3),
        ("calculator", _rx(r"calculators?|tip calc\w*|mortgage|loan (?:payment|amortization)|bmi|unit converter|currency converter|converter"), 3),
        ("timer", _rx(r"pomodoro|stopwatch|countdown|timer"), 3),
        ("kanban_board", _rx(r"kanban|trello"), 3),
        ("markdown_editor", _rx(r"markdown|text editor|code editor|note[- ]?taking|notes app|rich text"), 3),
        ("expense_tracker", _rx(r"expense|budget(?:ing)? (?:app|tracker)|habit tracker|tracker"), 2.5),
        ("form_builder", _rx(r"form (?:builder|validation|wizard)|multi[- ]step form|survey|sign[- ]?up form|registration form|checkout (?:form|page)"), 2.5),
        ("generator_tool", _rx(r"password generator|color palette|gradient generator|qr code|lorem ipsum|regex tester|json formatter|invoice generator"), 3),
        ("media_player", _rx(r"music player|audio player|video player|playlist"), 3),
        ("productivity_app", _rx(r"calendar|planner|scheduler|flashcards?|quiz app|chat (?:ui|interface|app)|inbox|contacts? (?:app|manager)|crm|inventory|recipe (?:app|book|manager)"), 2.5),
    ],
}

# Generic cues that lean towards a family without naming a subtype.
_FAMILY_CUES: dict[str, list[tuple[re.Pattern, float]]] = {
    "three_d_webgl": [(_rx(r"three\.?js|webgl|webgpu|babylon\.?js|a-frame|3d|three[- ]dimensional"), 3), (_rx(r"camera|lighting|meshes?|orbit\w*"), 0.5)],
    "games_simulations": [(_rx(r"games?|playable|score|levels?|lives|high ?score|player"), 1.5), (_rx(r"simulat\w+"), 1.5)],
    "data_visualization": [(_rx(r"charts?|graphs?|plots?|visuali[sz]\w+|d3(?:\.js)?|chart\.?js|echarts|plotly|data ?sets?|axes|axis|legend|tooltips?"), 1.5), (_rx(r"data|statistics|metrics"), 0.5)],
    "visual_art_animation": [(_rx(r"animation|animated|animate|art|artistic|p5\.?js|gsap|anime\.?js|mesmeri[sz]ing|hypnotic|trippy|effects?|screensaver"), 1.5)],
    "content_marketing": [(_rx(r"websites?|homepage|landing|about us|about page|announc\w+|press release|sections?|call[- ]to[- ]action|cta|testimonials?|footer|navbar|nav bar|brand|marketing|company|business"), 1)],
    "apps_tools": [(_rx(r"apps?|tool|utility|localstorage|crud|add, edit|manage|organi[sz]er|productivity"), 1)],
}

_INTERACTIVE = _rx(
    r"click\w*|drag\w*|press(?:es|ing)?(?! release)|keyboard|keys?|arrow|wasd|mouse|touch|tap|swipe|scroll-triggered|type|typing|input\w*|"
    r"(?<!-)forms?|buttons?|toggle\w*|switch\w*|sliders?|filter\w*|search\w*|sort\w*|users? can|lets? (?:the )?users?|controls?|play|"
    r"playable|zoom\w*|pan|select\w*|dropdowns?|tabs?|accordion|modal|lightbox|hamburger|carousel|checkbox\w*|"
    r"add|delete|edit(?:s|ing|able|or)?|interactive|adjust\w*|draw (?:on|with)|drawing (?:pad|tool|app|canvas|toy)|pickers?|cursor trails?|pause|restart|start|stop|reset|upload|hover tooltips?"
)
_STATIC = _rx(r"static|non-interactive|no interaction|purely visual|read-only|no javascript|without javascript|nothing to click")
_INFOGRAPHIC = _rx(r"infographics?")
_STATIC_FAMILIES = {"content_marketing", "visual_art_animation"}


def classify_rules(text: str) -> FamilyLabel:
    scores = {family: 0.0 for family in FAMILIES}
    best_sub: dict[str, tuple[float, str]] = {}
    for family, rules in _SUBTYPES.items():
        for subtype, pattern, weight in rules:
            hits = len(pattern.findall(text))
            if hits:
                scores[family] += weight * min(hits, 2)
                if weight > best_sub.get(family, (0.0, ""))[0]:
                    best_sub[family] = (weight, subtype)
    for family, cues in _FAMILY_CUES.items():
        for pattern, weight in cues:
            scores[family] += weight * min(len(pattern.findall(text)), 3)
    ranked = sorted(FAMILIES, key=lambda f: (-scores[f], FAMILIES.index(f)))
    top, second = scores[ranked[0]], scores[ranked[1]]
    family = ranked[0]
    return FamilyLabel(family, best_sub.get(family, (0, "general"))[1], is_interactive(text, family), _confidence(top, second), "rules")


def _confidence(top: float, second: float) -> float:
    """Share of the evidence the winner holds, damped when there is little evidence at all."""
    if top <= 0:
        return 0.0
    share = top / (top + second)
    strength = 1.0 - math.exp(-top / 3.0)
    return round(share * strength, 3)


def is_interactive(text: str, family: str) -> bool:
    if _STATIC.search(text) and not re.search(r"\busers? can\b", text, _I):
        return False
    if family == "data_visualization" and _INFOGRAPHIC.search(text) and not _INTERACTIVE.search(text):
        return False  # an infographic is read, not operated
    if family in _STATIC_FAMILIES:
        return bool(_INTERACTIVE.search(text))
    return True


# Optional LLM classifier -------------------------------------------------------------------

_LLM_SYSTEM = (
    "You label requests for single-file HTML pages. Families: " + ", ".join(FAMILIES) + ". "
    'Answer with one JSON object and nothing else: {"family": ..., "subtype": short_snake_case, '
    '"interactive": true|false, "confidence": 0..1}. interactive is false only when the page needs no user action.'
)


def classify_llm(text: str, complete: Complete) -> FamilyLabel | None:
    """None when the model's answer is not a valid label (the caller keeps the rule result)."""
    answer = complete([{"role": "system", "content": _LLM_SYSTEM}, {"role": "user", "content": text}])
    match = re.search(r"\{.*\}", answer or "", re.S)
    try:
        obj = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        obj = None
    if not isinstance(obj, dict) or obj.get("family") not in FAMILIES or not isinstance(obj.get("interactive"), bool):
        log.warning("LLM classifier gave no usable label")
        return None
    subtype = re.sub(r"[^a-z0-9_]+", "_", str(obj.get("subtype") or "general").lower()).strip("_") or "general"
    try:
        confidence = min(1.0, max(0.0, float(obj.get("confidence", 0.5))))
    except (TypeError, ValueError):
        confidence = 0.5
    return FamilyLabel(obj["family"], subtype, obj["interactive"], round(confidence, 3), "llm")


def classify(text: str, hints: dict | None = None, complete: Complete | None = None, llm_below: float = 0.5) -> FamilyLabel:
    """Source labels win (a benchmark item states its family); then rules; then the LLM if rules are unsure."""
    hints = hints or {}
    rules = classify_rules(text)
    if "family" in hints:
        subtype = hints.get("subtype") or (rules.subtype if rules.family == hints["family"] else "general")
        interactive = hints.get("interactive", is_interactive(text, hints["family"]))
        return FamilyLabel(hints["family"], subtype, interactive, 1.0, "source")
    if complete is not None and rules.confidence < llm_below:
        return classify_llm(text, complete) or rules
    return rules
