// Main-world observations, recorded from before the page's first script: the names the page adds
// to window (built-ins are known at document start), the text it draws on canvases (a canvas
// game's score or "GAME OVER" never reaches the DOM; text drawn once into a cached sprite at load
// counts too), the circles of its latest frame, localStorage as the document found it and what it
// wrote there. Contract checks read them as `observed` (docs/icg-format.md, "Observations"); the
// experience protocol reads game state. Hidden under an unguessable key, not writable, frozen. The
// record lives in the page's world, so a page that replaces built-ins these functions call
// (Map.prototype.set, JSON.stringify, ...) could still falsify it.
(() => {
  const KEY = '__WM_OBSERVE_KEY__';
  const CLOCK = '__WM_CLOCK_KEY__';
  const initial = new Set(Object.getOwnPropertyNames(window));
  const now = () => performance.now();
  // Every recorder wraps a platform method: `before(receiver, args)` runs first and can never
  // break the call (a recorder's failure only loses that record).
  const hook = (proto, name, before) => {
    const native = proto && proto[name];
    if (typeof native !== 'function') return;
    Object.defineProperty(proto, name, {
      configurable: true, writable: true,
      value: { [name](...args) { try { before(this, args); } catch (e) { /* never break the call */ } return native.apply(this, args); } }[name],
    });
  };
  // A point of a context's drawing space in its canvas's pixels (the current transform applied),
  // and a canvas pixel in the viewport's CSS px (worked out only when read: a layout per draw
  // would cost every frame). Offscreen canvases have no viewport position.
  const onCanvas = (m, x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
  const onScreen = (canvas) => canvas && typeof canvas.getBoundingClientRect === 'function';
  const inViewport = (canvas, px, py) => {
    const r = canvas.getBoundingClientRect();
    const sx = r.width / canvas.width;
    return { x: Math.round(r.left + px * sx), y: Math.round(r.top + py * r.height / canvas.height), scale: sx };
  };
  const shown = (canvas) => canvas.isConnected && canvas.width && canvas.height;

  // Drawn text: text -> {first, last, count, place}, page ms since the document started; the
  // place is the centre of its box where it was last drawn.
  const MAX_TEXTS = 256;
  const drawn = new Map();
  const ALIGN = { left: 0.5, start: 0.5, center: 0, right: -0.5, end: -0.5 };
  const placeOf = (ctx, text, x, y) => {
    if (!onScreen(ctx.canvas)) return null;
    const metrics = ctx.measureText(text);
    const cx = x + (ALIGN[ctx.textAlign] ?? 0.5) * metrics.width;
    const cy = y - (metrics.actualBoundingBoxAscent - metrics.actualBoundingBoxDescent) / 2;
    const [px, py] = onCanvas(ctx.getTransform(), cx, cy);
    return { canvas: ctx.canvas, px, py };
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
  for (const proto of [window.CanvasRenderingContext2D, window.OffscreenCanvasRenderingContext2D]) {
    for (const name of ['fillText', 'strokeText']) hook(proto && proto.prototype, name, (ctx, a) => remember(a[0], ctx, a[1], a[2]));
  }
  const drawnTextNow = () => Array.from(drawn.entries(), ([text, r]) => {
    const at = r.place && shown(r.place.canvas) ? inViewport(r.place.canvas, r.place.px, r.place.py) : { x: null, y: null };
    return { text, first: r.first, last: r.last, count: r.count, x: at.x, y: at.y };
  });

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
    if (!onScreen(ctx.canvas)) return;
    const at = now();
    if (at !== circlesAt) { circles = []; circlesAt = at; }
    if (circles.length >= MAX_CIRCLES) return;
    const m = ctx.getTransform();
    const [px, py] = onCanvas(m, x, y);
    const c = { canvas: ctx.canvas, px, py, pr: Math.max(rx, ry) * (Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) || 1),
      fill: null, stroke: null };
    circles.push(c);
    const path = paths.get(ctx);
    if (path) path.push(c); else paths.set(ctx, [c]);
  };
  const proto2d = window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype;
  hook(proto2d, 'arc', (ctx, a) => circle(ctx, Number(a[0]), Number(a[1]), Number(a[2]), Number(a[2])));
  hook(proto2d, 'ellipse', (ctx, a) => circle(ctx, Number(a[0]), Number(a[1]), Number(a[2]), Number(a[3])));
  hook(proto2d, 'beginPath', (ctx) => paths.delete(ctx));
  // fill(path2d) / stroke(path2d) paint another path, not the current one.
  hook(proto2d, 'fill', (ctx, a) => { if (!(a[0] instanceof Path2D)) for (const c of paths.get(ctx) || []) c.fill = styleName(ctx.fillStyle); });
  hook(proto2d, 'stroke', (ctx, a) => { if (!(a[0] instanceof Path2D)) for (const c of paths.get(ctx) || []) c.stroke = styleName(ctx.strokeStyle); });
  const circlesNow = () => circles.filter((c) => shown(c.canvas)).map((c) => {
    const at = inViewport(c.canvas, c.px, c.py);
    return { x: at.x, y: at.y, r: Math.round(c.pr * at.scale * 10) / 10, fill: c.fill, stroke: c.stroke };
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
  } catch (e) { /* storage refused (opaque origin): nothing to observe */ }
  for (const name of ['setItem', 'removeItem', 'clear']) {
    hook(window.Storage && Storage.prototype, name, (store, a) => {
      if (store === localStorage && writes.length < 1000) writes.push({ op: name, key: a.length ? String(a[0]) : null, at: now() });
    });
  }

  // What a contract reads as `observed`, one function per field (docs/icg-format.md).
  const copy = (x) => JSON.parse(JSON.stringify(x));
  const FIELDS = {
    now,
    drawnText: drawnTextNow,
    frames: () => (window[CLOCK] ? window[CLOCK].stats().frames : null),
    circles: circlesNow,
    circlesAt: () => circlesAt,
    workers: () => (window[CLOCK] && window[CLOCK].workers ? copy(window[CLOCK].workers) : []),
    storageAtStart: () => copy(storageAtStart),
    storageWrites: () => copy(writes),
  };
  const fields = (as) => Object.fromEntries(Object.entries(FIELDS).map(([k, f]) => [k, as(f)]));
  Object.defineProperty(window, KEY, {
    enumerable: false,
    value: Object.freeze({
      added: () => Object.getOwnPropertyNames(window).filter((n) => !initial.has(n) && n !== KEY && !n.startsWith('__wm')),
      // Texts drawn at or after page time `since` (ms), most recent last.
      drawnSince: (since) => Array.from(drawn.entries()).filter(([, r]) => r.last >= since).map(([s]) => s),
      snapshot: () => Object.freeze(fields((f) => f())),
      // `observed` in a contract's expressions (observation_checks.in_scope): each field read
      // when used, so a promise that lets page time pass sees what happened meanwhile.
      live: () => Object.freeze(Object.defineProperties({}, fields((f) => ({ enumerable: true, get: f })))),
    }),
  });
})();
