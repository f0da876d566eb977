// Main-world observations, recorded from before the page's first script: the names the page adds
// to window (built-ins are known at document start), the text it draws on canvases (a canvas
// game's score or "GAME OVER" never reaches the DOM; text drawn once into a cached sprite at load
// counts too), localStorage as the document found it and what it wrote there. Contract checks read
// them as `observed` (docs/icg-format.md, "Observations"); the experience protocol reads game state.
// Hidden under an unguessable key, not writable, frozen: a page can draw or write storage (which
// is what is observed) but cannot edit the record.
(() => {
  const KEY = '__WM_OBSERVE_KEY__';
  const CLOCK = '__WM_CLOCK_KEY__';
  const MAX_TEXTS = 256;
  const initial = new Set(Object.getOwnPropertyNames(window));
  const drawn = new Map(); // text -> {first, last, count} in page ms since the document started
  const now = () => performance.now();
  // Where on its canvas a text was drawn: the centre of its box in canvas pixels (the current
  // transform applied), kept with the canvas so the viewport position is worked out only when
  // read (a layout per draw would cost every frame). Offscreen canvases have no position.
  const ALIGN = { left: 0.5, start: 0.5, center: 0, right: -0.5, end: -0.5 };
  const placeOf = (ctx, text, x, y) => {
    const canvas = ctx.canvas;
    if (!canvas || typeof canvas.getBoundingClientRect !== 'function') return null;
    const m = ctx.getTransform();
    const metrics = ctx.measureText(text);
    const cx = x + (ALIGN[ctx.textAlign] ?? 0.5) * metrics.width;
    const cy = y - (metrics.actualBoundingBoxAscent - metrics.actualBoundingBoxDescent) / 2;
    return { canvas, px: m.a * cx + m.c * cy + m.e, py: m.b * cx + m.d * cy + m.f };
  };
  const remember = (text, ctx, x, y) => {
    const t = String(text).slice(0, 80);
    if (!t.trim()) return;
    const seen = drawn.get(t);
    const at = now();
    // One position per text per page time: a page drawing the same glyph thousands of times a
    // frame pays for one measureText, not thousands.
    let place = seen && seen.last === at ? seen.place : null;
    if (!place) {
      try { place = placeOf(ctx, String(text), Number(x), Number(y)); } catch (e) { /* no position */ }
    }
    drawn.delete(t); // most recently drawn last
    drawn.set(t, { first: seen ? seen.first : at, last: at, count: (seen ? seen.count : 0) + 1, place });
    if (drawn.size > MAX_TEXTS) drawn.delete(drawn.keys().next().value);
  };
  const viewportOf = (place) => {
    if (!place || !place.canvas.isConnected || !place.canvas.width || !place.canvas.height) return { x: null, y: null };
    const r = place.canvas.getBoundingClientRect();
    return { x: Math.round(r.left + place.px * r.width / place.canvas.width),
      y: Math.round(r.top + place.py * r.height / place.canvas.height) };
  };
  const wrap = (proto) => {
    if (!proto) return;
    for (const name of ['fillText', 'strokeText']) {
      const native = proto[name];
      if (typeof native !== 'function') continue;
      Object.defineProperty(proto, name, {
        configurable: true, writable: true,
        value: { [name](text, ...rest) { try { remember(text, this, rest[0], rest[1]); } catch (e) { /* never break drawing */ } return native.call(this, text, ...rest); } }[name],
      });
    }
  };
  wrap(window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype);
  wrap(window.OffscreenCanvasRenderingContext2D && OffscreenCanvasRenderingContext2D.prototype);

  // Circles: what a canvas simulation draws its bodies with (planets, balls, markers). The arcs and
  // ellipses of the latest page time at which any was drawn (one frame), on on-screen canvases. A
  // circle is filled or stroked when its path is (styles are often set after the arc, before
  // fill()): the style then current, a colour string or 'gradient' / 'pattern'.
  const MAX_CIRCLES = 500;
  let circles = [];
  let circlesAt = -1;
  const paths = new WeakMap(); // context -> circles of its current path
  const styleName = (style) => (typeof style === 'string' ? style
    : (window.CanvasGradient && style instanceof CanvasGradient) ? 'gradient' : 'pattern');
  const circle = (ctx, x, y, rx, ry) => {
    const canvas = ctx.canvas;
    if (!canvas || typeof canvas.getBoundingClientRect !== 'function') return;
    const at = now();
    if (at !== circlesAt) { circles = []; circlesAt = at; }
    if (circles.length >= MAX_CIRCLES) return;
    const m = ctx.getTransform();
    const scale = Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) || 1;
    const c = { canvas, px: m.a * x + m.c * y + m.e, py: m.b * x + m.d * y + m.f, pr: Math.max(rx, ry) * scale,
      fill: null, stroke: null };
    circles.push(c);
    const path = paths.get(ctx);
    if (path) path.push(c); else paths.set(ctx, [c]);
  };
  const hook = (proto, name, before) => {
    const native = proto && proto[name];
    if (typeof native !== 'function') return;
    Object.defineProperty(proto, name, {
      configurable: true, writable: true,
      value: { [name](...args) { try { before(this, args); } catch (e) { /* never break drawing */ } return native.apply(this, args); } }[name],
    });
  };
  const proto2d = window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype;
  hook(proto2d, 'arc', (ctx, a) => circle(ctx, Number(a[0]), Number(a[1]), Number(a[2]), Number(a[2])));
  hook(proto2d, 'ellipse', (ctx, a) => circle(ctx, Number(a[0]), Number(a[1]), Number(a[2]), Number(a[3])));
  hook(proto2d, 'beginPath', (ctx) => paths.delete(ctx));
  // fill(path2d) / stroke(path2d) paint another path, not the current one.
  hook(proto2d, 'fill', (ctx, a) => { if (!(a[0] instanceof Path2D)) for (const c of paths.get(ctx) || []) c.fill = styleName(ctx.fillStyle); });
  hook(proto2d, 'stroke', (ctx, a) => { if (!(a[0] instanceof Path2D)) for (const c of paths.get(ctx) || []) c.stroke = styleName(ctx.strokeStyle); });
  const circlesNow = () => circles.filter((c) => c.canvas.isConnected && c.canvas.width).map((c) => {
    const r = c.canvas.getBoundingClientRect();
    const sx = r.width / c.canvas.width;
    return { x: Math.round(r.left + c.px * sx), y: Math.round(r.top + c.py * r.height / c.canvas.height),
      r: Math.round(c.pr * sx * 10) / 10, fill: c.fill, stroke: c.stroke };
  });

  // Storage: what the document found (a fresh document finds nothing; a reload finds what the
  // page kept) and the keys it wrote or removed through the Storage API.
  const storageAtStart = {};
  const writes = [];
  try {
    for (let i = 0; i < localStorage.length && i < 200; i++) {
      const k = localStorage.key(i);
      storageAtStart[k] = String(localStorage.getItem(k)).slice(0, 2000);
    }
    const proto = Storage.prototype;
    for (const name of ['setItem', 'removeItem', 'clear']) {
      const native = proto[name];
      Object.defineProperty(proto, name, {
        configurable: true, writable: true,
        value: { [name](...args) {
          try { if (this === localStorage && writes.length < 1000) writes.push({ op: name, key: args.length ? String(args[0]) : null, at: now() }); } catch (e) { /* never break storage */ }
          return native.apply(this, args);
        } }[name],
      });
    }
  } catch (e) { /* storage refused (opaque origin): nothing to observe */ }

  const copy = (x) => JSON.parse(JSON.stringify(x));
  const snapshot = () => {
    const clock = window[CLOCK];
    const stats = clock ? clock.stats() : null;
    return Object.freeze({
      now: now(),
      drawnText: Array.from(drawn.entries(), ([text, r]) => ({ text, first: r.first, last: r.last, count: r.count, ...viewportOf(r.place) })),
      frames: stats ? stats.frames : null,
      circles: circlesNow(),
      circlesAt,
      workers: clock && clock.workers ? copy(clock.workers) : [],
      storageAtStart: copy(storageAtStart),
      storageWrites: copy(writes),
    });
  };
  Object.defineProperty(window, KEY, {
    enumerable: false,
    value: Object.freeze({
      added: () => Object.getOwnPropertyNames(window).filter((n) => !initial.has(n) && n !== KEY && !n.startsWith('__wm')),
      // Texts drawn at or after page time `since` (ms), most recent last.
      drawnSince: (since) => Array.from(drawn.entries()).filter(([, r]) => r.last >= since).map(([s]) => s),
      snapshot,
      // What a contract's expressions see as `observed` (observation_checks.in_scope): each field
      // read afresh, so a promise that lets page time pass sees what happened meanwhile.
      live: () => Object.freeze(Object.defineProperties({}, Object.fromEntries(
        ['now', 'drawnText', 'frames', 'circles', 'circlesAt', 'workers', 'storageAtStart', 'storageWrites'].map((k) => [k, { enumerable: true, get: () => snapshot()[k] }])))),
    }),
  });
})();
