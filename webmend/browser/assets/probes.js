// Evaluated in an isolated world: it shares the DOM with the page but none of its JS globals,
// so a page that overrides built-ins cannot change what these probes report.
var __wm = (() => {
  const POINTER_SCAN = 4000; // elements checked for a pointer cursor (bounded work on huge pages)
  const NOT_CONTROLS = new Set(['CANVAS', 'VIDEO', 'IFRAME', 'SCRIPT', 'STYLE']); // canvases are layer 3's
  const born = new WeakMap();
  let lastSync = 0;
  // Which iteration a finite animation is in and whether it has ended; null for endless ones.
  const animStage = (a) => {
    const t = a.effect ? a.effect.getComputedTiming() : null;
    return t && Number.isFinite(t.endTime) ? `${t.currentIteration}|${t.localTime >= t.endTime}` : null;
  };
  const pointerCursor = (el) => !!el && el.nodeType === 1 && getComputedStyle(el).cursor === 'pointer';
  // Looks clickable without being a control by markup: the topmost of a run of `cursor: pointer`
  // (the cursor is inherited, so its descendants are not separate controls), outside any control.
  const pointerTop = (el, controls) => pointerCursor(el) && !pointerCursor(el.parentElement) && !el.closest(controls);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && Number(s.opacity) > 0.02;
  };
  // Playwright's visibility (its injected script's computeBox), for the test-case actions that
  // follow the format's "first visible match": not hidden by display, visibility or
  // content-visibility (checkVisibility), and a non-empty box; opacity does not matter. An
  // element with display: contents is visible when one of its children is.
  const textRange = document.createRange();
  const pwVisible = (el) => {
    const s = getComputedStyle(el);
    if (s.display === 'contents') {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && pwVisible(c)) return true;
        if (c.nodeType === 3) {
          textRange.selectNode(c);
          const r = textRange.getBoundingClientRect();
          if (r.width > 0 && r.height > 0) return true;
        }
      }
      return false;
    }
    if (el.checkVisibility && !el.checkVisibility()) return false;
    if (s.visibility !== 'visible') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const cssPath = (el) => {
    if (el.id && document.querySelectorAll('#' + CSS.escape(el.id)).length === 1) return '#' + CSS.escape(el.id);
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
      let i = 1;
      for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) i++;
      parts.unshift(`${e.tagName.toLowerCase()}:nth-of-type(${i})`);
    }
    return 'html > ' + parts.join(' > ');
  };
  const lum = (rgb) => {
    const c = rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const parseColor = (s) => {
    const m = s.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { rgb: p.slice(0, 3), a: p.length > 3 ? p[3] : 1 };
  };
  const backgroundOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parseColor(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.5) return c.rgb;
    }
    return [255, 255, 255];
  };
  const hash = (str) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < str.length; i++) { h ^= str.charCodeAt(i); h = Math.imul(h, 0x01000193); }
    return (h >>> 0).toString(16);
  };
  return {
    // Drive CSS animations and transitions from page time: pause each one and seek it to
    // the virtual time elapsed since we first saw it.
    // An animation first seen now is taken to have started at the previous sync (page time),
    // never at a wall-clock-dependent moment, so its position is the same on every run.
    // Returns whether the seek owes the page animation events (start, iteration, end): Chromium
    // fires them in its next real frame, which the evaluator then waits for. An endless
    // animation's iterations do not count, so a spinner does not cost a wait on every step.
    sync(now) {
      let events = false;
      for (const a of document.getAnimations()) {
        const fresh = !born.has(a);
        if (fresh) born.set(a, lastSync);
        const before = animStage(a);
        try { a.pause(); a.currentTime = Math.max(0, now - born.get(a)); } catch (e) { /* finished or detached */ }
        if (fresh || (before !== null && before !== animStage(a))) events = true;
      }
      lastSync = now;
      return events;
    },
    doc() {
      const de = document.documentElement;
      return {
        nodes: document.getElementsByTagName('*').length,
        scrollWidth: de ? de.scrollWidth : 0,
        clientWidth: de ? de.clientWidth : 0,
        scrollHeight: de ? de.scrollHeight : 0,
        textChars: document.body ? (document.body.innerText || '').trim().length : 0,
        url: location.href,
      };
    },
    signature() {
      const body = document.body;
      if (!body) return '';
      const vals = Array.from(document.querySelectorAll('input,select,textarea'), (e) => e.type === 'checkbox' || e.type === 'radio' ? String(e.checked) : e.value).join('\u0001');
      return hash(body.innerHTML) + ':' + hash(vals) + ':' + (document.documentElement.scrollTop | 0);
    },
    // The computed look of one element: hover feedback without a screenshot.
    look(selector) {
      const el = document.querySelector(selector);
      if (!el) return '';
      const c = getComputedStyle(el);
      return [c.color, c.backgroundColor, c.backgroundImage, c.borderColor, c.boxShadow, c.transform,
        c.opacity, c.textDecorationLine, c.outlineStyle, c.filter, c.cursor].join('|');
    },
    overflow() {
      const de = document.documentElement;
      const out = [];
      const limit = de.clientWidth;
      for (const el of document.body ? document.body.querySelectorAll('*') : []) {
        if (out.length >= 5) break;
        const r = el.getBoundingClientRect();
        if (r.right > limit + 1 && r.width > 0 && visible(el)) out.push(cssPath(el));
      }
      return { scrollWidth: de.scrollWidth, clientWidth: de.clientWidth, overflowing: de.scrollWidth > de.clientWidth, elements: out };
    },
    a11y() {
      const imgs = Array.from(document.images);
      return {
        imagesWithoutAlt: imgs.filter((i) => !i.hasAttribute('alt')).length,
        hasH1: document.querySelector('h1') !== null,
        hasLang: !!(document.documentElement.getAttribute('lang') || '').trim(),
      };
    },
    // click_text: the single visible element (Playwright's rule, pwVisible) whose text (an
    // input's value) matches. When nested elements match, only the innermost counts: a button and
    // the body around it are one match, not two. Zero or several matches fail, whether or not
    // they are controls and wherever they are on the page (below the fold too). The match is
    // clicked through the control it is inside: a matching span in a button clicks the button.
    byText(source, flags) {
      let re;
      try { re = new RegExp(source, flags); } catch (e) { return { ok: false, error: 'bad pattern: ' + e.message }; }
      const textOf = (el) => ((el.tagName === 'INPUT' ? el.value : el.innerText) || '').trim();
      const all = Array.from(document.querySelectorAll('body *')).filter(
        (el) => !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName) && pwVisible(el) && re.test(textOf(el)));
      const inner = all.filter((el) => !all.some((o) => o !== el && el.contains(o)));
      if (inner.length === 0) return { ok: false, error: `no visible element matches /${source}/` };
      if (inner.length > 1) return { ok: false, error: `${inner.length} elements match /${source}/` };
      const clickable = 'button, a, input, select, summary, label, [role=button], [role=tab], [role=menuitem], [onclick], [tabindex]';
      const target = inner[0].closest(clickable) || inner[0];
      return { ok: true, selector: cssPath(target) };
    },
    semantic(tags) { return Object.fromEntries(tags.map((t) => [t, document.querySelector(t) !== null])); },
    style(selector, prop) {
      const el = Array.from(document.querySelectorAll(selector)).find(visible) || document.querySelector(selector);
      return el ? getComputedStyle(el).getPropertyValue(prop).trim() : null;
    },
    // Controls in document order: elements that are controls by their markup, then elements
    // that only look clickable (the topmost of a run of `cursor: pointer`, e.g. div cards of a
    // memory game whose clicks a grid-level listener handles).
    census(limit) {
      const sel = 'button, a[href], input, select, textarea, [role=button], [onclick], [tabindex]:not([tabindex="-1"]), summary, [draggable=true]';
      const seen = new Set();
      const out = [];
      const add = (el) => {
        if (out.length >= limit || !visible(el) || el.disabled) return;
        const path = cssPath(el);
        if (seen.has(path)) return;
        seen.add(path);
        const r = el.getBoundingClientRect();
        out.push({
          selector: path,
          tag: el.tagName.toLowerCase(),
          type: (el.getAttribute('type') || '').toLowerCase(),
          text: (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 40),
          area: Math.round(r.width * r.height),
          inViewport: r.top < innerHeight && r.bottom > 0,
          draggable: el.getAttribute('draggable') === 'true',
        });
      };
      // A canvas is no DOM control even when focusable (tabindex, for a game's keys): the key
      // scan and layer 3 judge it; clicked, it changes no DOM and would read as dead.
      for (const el of document.querySelectorAll(sel)) if (el.tagName !== 'CANVAS') add(el);
      const all = document.body ? document.body.getElementsByTagName('*') : [];
      for (let i = 0; i < all.length && i < POINTER_SCAN && out.length < limit; i++) {
        if (!NOT_CONTROLS.has(all[i].tagName) && pointerTop(all[i], sel)) add(all[i]);
      }
      return out;
    },
    // Controls' geometry in the current viewport: off-screen ones (a user cannot reach them
    // without scrolling sideways) and overlapping pairs (one covers part of the other).
    controlsLayout() {
      const sel = 'button, a[href], input:not([type=hidden]), select, textarea, [role=button], summary';
      const w = document.documentElement.clientWidth;
      const els = Array.from(document.querySelectorAll(sel)).filter(visible).slice(0, 150);
      const rects = els.map((e) => e.getBoundingClientRect());
      const offscreen = [];
      rects.forEach((r, i) => { if ((r.right > w + 1 || r.left < -1) && offscreen.length < 5) offscreen.push(cssPath(els[i])); });
      let overlapping = 0;
      const pairs = [];
      for (let i = 0; i < rects.length; i++) {
        for (let j = i + 1; j < rects.length; j++) {
          if (els[i].contains(els[j]) || els[j].contains(els[i])) continue;
          const a = rects[i], b = rects[j];
          const ow = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const oh = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          const small = Math.min(a.width * a.height, b.width * b.height);
          if (ow > 0 && oh > 0 && small > 0 && (ow * oh) / small > 0.3) {
            overlapping++;
            if (pairs.length < 3) pairs.push([cssPath(els[i]), cssPath(els[j])]);
          }
        }
      }
      return { controls: els.length, offscreen: rects.filter((r) => r.right > w + 1 || r.left < -1).length, offscreenSelectors: offscreen, overlapping, overlappingPairs: pairs };
    },
    // Visible text runs with their size and contrast (the judge's visible_text, readability).
    textRuns(limit) {
      const out = [];
      const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n && out.length < limit; n = walker.nextNode()) {
        const el = n.parentElement;
        const text = n.textContent.replace(/\s+/g, ' ').trim();
        if (!el || !text || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) continue;
        const s = getComputedStyle(el);
        const fg = parseColor(s.color);
        let ratio = null;
        if (fg) {
          const l1 = lum(fg.rgb), l2 = lum(backgroundOf(el));
          ratio = Math.round(((Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)) * 100) / 100;
        }
        // Off-screen (left: -9999px) and clipped-to-a-pixel (screen-reader-only) text is not seen.
        const r = el.getBoundingClientRect();
        const seen = visible(el) && r.width * r.height >= 4 && r.right > 0 && r.bottom > 0 && r.left < document.documentElement.scrollWidth;
        out.push({ text: text.slice(0, 200), visible: seen, font_px: parseFloat(s.fontSize), contrast_ratio: ratio });
      }
      return out;
    },
    belowFold() {
      const h = innerHeight;
      let chars = 0, elements = 0;
      for (const el of document.body ? document.body.querySelectorAll('h1,h2,h3,h4,p,li,img,svg,canvas,section,article,button,table,figure') : []) {
        const r = el.getBoundingClientRect();
        if (r.top >= h && r.height > 0 && visible(el)) { elements++; chars += (el.innerText || '').length; }
      }
      return { scrollHeight: document.documentElement.scrollHeight, viewportHeight: h, elements, chars };
    },
    visibleText(limit) { return document.body ? (document.body.innerText || '').slice(0, limit) : ''; },
    canvasRects() {
      return Array.from(document.querySelectorAll('canvas'), (c) => {
        const r = c.getBoundingClientRect();
        return { selector: cssPath(c), x: r.left, y: r.top, width: r.width, height: r.height, visible: visible(c) };
      });
    },
    // Forms and the fields a user would fill, with what kind of value each wants.
    forms(limit) {
      return Array.from(document.forms).filter((f) => visible(f)).slice(0, limit).map((f) => ({
        selector: cssPath(f),
        fields: Array.from(f.elements).filter((e) => visible(e) && !e.disabled && !['submit', 'button', 'reset', 'hidden', 'image', 'file'].includes(e.type)).slice(0, 20).map((e) => ({
          selector: cssPath(e), tag: e.tagName.toLowerCase(), type: (e.type || '').toLowerCase(),
          hint: [e.name, e.id, e.getAttribute('placeholder'), e.getAttribute('autocomplete'), e.labels && e.labels[0] ? e.labels[0].innerText : ''].join(' ').toLowerCase().slice(0, 120),
          options: e.tagName === 'SELECT' ? e.options.length : 0,
        })),
        submit: (() => { const b = f.querySelector('button:not([type=button]):not([type=reset]), input[type=submit]'); return b && visible(b) ? cssPath(b) : null; })(),
      }));
    },
    // Things a player would click: controls plus anything that shows a pointer cursor, with centres.
    clickables(limit) {
      const out = [];
      const sel = 'button, a[href], [role=button], [onclick], canvas, summary';
      for (const el of document.querySelectorAll('body *')) {
        if (out.length >= limit) break;
        if (!(el.matches(sel) || pointerCursor(el)) || !visible(el) || el.disabled) continue;
        if (el.parentElement && (el.parentElement.closest(sel) || pointerCursor(el.parentElement)) && !el.matches('canvas')) continue;
        const r = el.getBoundingClientRect();
        if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
        out.push({ selector: cssPath(el), tag: el.tagName.toLowerCase(), text: (el.innerText || '').trim().slice(0, 40),
          x: r.left + r.width / 2, y: r.top + r.height / 2, width: r.width, height: r.height });
      }
      return out;
    },
    newControls(before) {
      const now = this.census(200).map((c) => c.selector);
      const old = new Set(before);
      return now.filter((x) => !old.has(x)).length;
    },
    canvases() {
      return Array.from(document.querySelectorAll('canvas'), (c) => {
        const r = c.getBoundingClientRect();
        return { width: Math.round(r.width), height: Math.round(r.height), visible: visible(c) };
      });
    },
    design() {
      const texts = [];
      const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n && texts.length < 400; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || !n.textContent.trim() || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(el.tagName) || !visible(el)) continue;
        texts.push(el);
      }
      const uniq = Array.from(new Set(texts));
      let low = 0, small = 0;
      const fonts = new Set(), sizes = new Set(), bgs = new Set();
      const boxes = [];
      for (const el of uniq) {
        const s = getComputedStyle(el);
        const fg = parseColor(s.color);
        const bg = backgroundOf(el);
        if (fg) {
          const l1 = lum(fg.rgb), l2 = lum(bg);
          const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
          if (ratio < 3) low++;
        }
        const px = parseFloat(s.fontSize);
        if (px < 11) small++;
        fonts.add(s.fontFamily.split(',')[0].trim().toLowerCase());
        sizes.add(Math.round(px));
        const r = el.getBoundingClientRect();
        boxes.push([r.left, r.top, r.right, r.bottom]);
      }
      for (const el of document.querySelectorAll('body *')) {
        const c = parseColor(getComputedStyle(el).backgroundColor);
        if (c && c.a > 0.5) bgs.add(c.rgb.join(','));
        if (bgs.size > 40) break;
      }
      let overlaps = 0;
      for (let i = 0; i < boxes.length && i < 150; i++) {
        for (let j = i + 1; j < boxes.length && j < 150; j++) {
          if (uniq[i].contains(uniq[j]) || uniq[j].contains(uniq[i])) continue;  // nesting is not overlap
          const a = boxes[i], b = boxes[j];
          const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
          const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
          if (w > 4 && h > 4) overlaps++;
        }
      }
      const bodyStyle = document.body ? getComputedStyle(document.body) : null;
      let hoverRules = 0, rules = 0, media = 0;
      for (const sheet of document.styleSheets) {
        let list;
        try { list = sheet.cssRules; } catch (e) { continue; }
        for (const r of list) {
          rules++;
          if (r.selectorText && r.selectorText.includes(':hover')) hoverRules++;
          if (r.type === CSSRule.MEDIA_RULE) media++;
        }
      }
      return {
        textElements: uniq.length,
        lowContrast: low,
        smallText: small,
        fontFamilies: fonts.size,
        defaultFont: bodyStyle ? /times|serif$/i.test(bodyStyle.fontFamily.split(',')[0]) && !/sans/i.test(bodyStyle.fontFamily.split(',')[0]) : true,
        fontSizes: sizes.size,
        backgrounds: bgs.size,
        overlaps,
        cssRules: rules,
        hoverRules,
        mediaRules: media,
        bodyMargin: bodyStyle ? parseFloat(bodyStyle.marginLeft) + parseFloat(bodyStyle.paddingLeft) : 0,
      };
    },
  };
})();
// The page clock (clock.js, main world) announces each step it ran; the DOM is shared between
// worlds, so CSS animations are seeked here in the same evaluation, without a second round trip.
// Cancelling the announcement tells the clock that animation events are owed.
document.addEventListener('__WM_CLOCK_KEY__:sync', (e) => {
  if (typeof e.detail === 'number' && __wm.sync(e.detail)) e.preventDefault();
});
// Chromium's form-validation bubble ("Please fill out this field") fades in and out in real time,
// outside the page, so screenshots caught it at different stages. Cancelling `invalid` keeps it
// away (the HTML spec's opt-out); the form still does not submit, and the page's own `invalid`
// listeners still run.
document.addEventListener('invalid', (e) => e.preventDefault(), true);
// The text caret blinks in real time, so a screenshot could catch it on or off: hide it (as
// Playwright's screenshots do), through a stylesheet the page's own style sheets do not list.
try {
  const noCaret = new CSSStyleSheet();
  // Smooth scrolling runs in real time too: every scroll is instant (clock.js does the same for
  // scrollTo / scrollIntoView called with behavior 'smooth').
  noCaret.replaceSync('*, *::before, *::after { caret-color: transparent !important; scroll-behavior: auto !important; will-change: auto !important; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, noCaret];
} catch (e) { /* no document yet */ }
true;
