// Evaluated in an isolated world: it shares the DOM with the page but none of its JS globals,
// so a page that overrides built-ins cannot change what these probes report.
var __wm = (() => {
  const born = new WeakMap();
  let lastSync = 0;
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && Number(s.opacity) > 0.02;
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
    sync(now) {
      let n = 0;
      for (const a of document.getAnimations()) {
        if (!born.has(a)) born.set(a, lastSync);
        try { a.pause(); a.currentTime = Math.max(0, now - born.get(a)); n++; } catch (e) { /* finished or detached */ }
      }
      lastSync = now;
      return n;
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
    // click_text: the single visible element whose text matches; when nested elements match,
    // the innermost counts, and among several matches one interactive element wins.
    byText(source, flags) {
      let re;
      try { re = new RegExp(source, flags); } catch (e) { return { ok: false, error: 'bad pattern: ' + e.message }; }
      const textOf = (el) => ((el.tagName === 'INPUT' ? el.value : el.innerText) || '').trim();
      const all = Array.from(document.querySelectorAll('body *')).filter(
        (el) => !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName) && visible(el) && re.test(textOf(el)));
      const inner = all.filter((el) => !all.some((o) => o !== el && el.contains(o)));
      const clickable = 'button, a, input, select, summary, label, [role=button], [role=tab], [role=menuitem], [onclick], [tabindex]';
      let picks = inner;
      if (inner.length > 1) picks = inner.filter((el) => el.closest(clickable));
      if (picks.length === 0) return { ok: false, error: inner.length ? `${inner.length} elements match /${source}/` : `no visible element matches /${source}/` };
      if (picks.length > 1) return { ok: false, error: `${picks.length} elements match /${source}/` };
      const target = picks[0].closest(clickable) || picks[0];
      return { ok: true, selector: cssPath(target) };
    },
    semantic(tags) { return Object.fromEntries(tags.map((t) => [t, document.querySelector(t) !== null])); },
    style(selector, prop) {
      const el = Array.from(document.querySelectorAll(selector)).find(visible) || document.querySelector(selector);
      return el ? getComputedStyle(el).getPropertyValue(prop).trim() : null;
    },
    census(limit) {
      const sel = 'button, a[href], input, select, textarea, [role=button], [onclick], [tabindex]:not([tabindex="-1"]), summary, label[for], [draggable=true]';
      const seen = new Set();
      const out = [];
      for (const el of document.querySelectorAll(sel)) {
        if (out.length >= limit) break;
        if (!visible(el) || el.disabled) continue;
        const path = cssPath(el);
        if (seen.has(path)) continue;
        seen.add(path);
        const r = el.getBoundingClientRect();
        out.push({
          selector: path,
          tag: el.tagName.toLowerCase(),
          type: (el.getAttribute('type') || '').toLowerCase(),
          text: (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 40),
          area: Math.round(r.width * r.height),
          inViewport: r.top < innerHeight && r.bottom > 0,
        });
      }
      return out;
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
document.addEventListener('__WM_CLOCK_KEY__:sync', (e) => { if (typeof e.detail === 'number') __wm.sync(e.detail); });
true;
