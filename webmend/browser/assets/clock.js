// Virtual page time, installed before any page script (every frame, every document).
// Date, performance.now, timers, animation frames, idle callbacks, Event.timeStamp,
// Intl.DateTimeFormat's default date and AbortSignal.timeout all read one page clock that moves
// only when the evaluator calls runFor(ms) through CDP. Every document starts at the same page
// time, so a test case sees the same clock whether it runs first or tenth.
// Why not Playwright's clock: each of its calls adds an init script to the context and evaluates
// in every frame, and new documents replay that growing log (tens of ms per call, more per load).
(() => {
  const KEY = '__WM_CLOCK_KEY__';
  const START = __WM_START_MS__;
  let top = null;
  try { top = window.top !== window && window.top[KEY] ? window.top[KEY] : null; } catch (e) { /* cross-origin */ }
  // A same-origin child frame joins its top document's timeline; a cross-origin one keeps
  // real timers (the evaluator serves no other origin, so it can only be an error page).
  const clock = top || (() => {
    const NativePromise = Promise;
    const dispatch = EventTarget.prototype.dispatchEvent;
    const NativeCustomEvent = CustomEvent;
    const channel = new MessageChannel();
    const waiting = [];
    channel.port1.onmessage = () => { const f = waiting.shift(); if (f) f(); };
    // One macrotask between callbacks: the microtasks a callback queued run before the next
    // timer fires, as in a real event loop (a MessageChannel task is not clamped like setTimeout).
    const yieldTask = () => new NativePromise((resolve) => { waiting.push(resolve); channel.port2.postMessage(0); });
    const timers = Object.create(null);
    let ticks = 0;
    let nextId = 1;
    let nesting = 0;
    // The page time of the animation frame being fired when nobody can see it (another frame
    // tick still falls inside the same runFor), else -1. Only WebGL draw skipping reads it.
    let hiddenFrame = -1;
    const runEnd = [];
    const gl = { skipped: 0, diverged: 0 };
    // Callbacks fired so far by kind, for the evaluator's motion evidence (frame rate, stalls).
    const fired = { frame: 0, timeout: 0, interval: 0, idle: 0 };
    // Animation frames that ran at least one callback (several rAF loops share one frame).
    let frames = 0;
    let lastFrame = -1;
    // Set when this document starts to leave (a form submit, a location change, a reload: each
    // fires beforeunload first, synchronously). No timer runs after that: how far a leaving
    // document gets before its successor commits would depend on wall time. The evaluator
    // either follows the new document or, when none comes (mailto:, a refused navigation),
    // lets this one stay (page_follow.py).
    let leaving = false;
    window.addEventListener('beforeunload', (e) => { if (e.isTrusted) leaving = true; }, true);
    const c = {
      now: () => START + ticks,
      ticks: () => ticks,
      add(kind, fn, delay, args) {
        delay = Number(delay) || 0;
        if (!(delay >= 0) || delay > 2147483647) delay = 0;
        const level = nesting + 1;
        if (kind === 'frame') delay = 16 - (ticks % 16);
        else if (kind === 'idle') delay = Math.min(delay || 50, 50);
        else if (level > 5 && delay < 4) delay = 4; // the HTML spec's clamp for nested timers
        const id = nextId++;
        timers[id] = { id, kind, fn, args, delay, level, at: ticks + delay };
        return id;
      },
      clear(id) { delete timers[id]; },
      first(limit) {
        let best = null;
        for (const k in timers) {
          const t = timers[k];
          if (t.at <= limit && (!best || t.at < best.at || (t.at === best.at && t.id < best.id))) best = t;
        }
        return best;
      },
      fire(t) {
        ticks = t.at;
        if (t.kind === 'interval') {
          t.level += 1;
          t.at = ticks + (t.level > 5 && t.delay < 4 ? 4 : Math.max(t.delay, 1));
        } else {
          delete timers[t.id];
        }
        fired[t.kind] += 1;
        if (t.kind === 'frame' && lastFrame !== ticks) { frames += 1; lastFrame = ticks; }
        const saved = nesting;
        nesting = t.level;
        try {
          if (typeof t.fn === 'function') {
            const args = t.kind === 'frame' ? [ticks] : t.kind === 'idle' ? [{ didTimeout: false, timeRemaining: () => 0 }] : t.args;
            t.fn.apply(window, args);
          } else {
            (0, eval)(String(t.fn));
          }
        } catch (e) {
          reportError(e); // reported as uncaught, like a real timer's exception; the rest still run
        } finally {
          nesting = saved;
        }
      },
      // Counters and what is still scheduled: a loop that stopped requesting frames has stalled.
      stats() {
        const pending = { frame: 0, timeout: 0, interval: 0, idle: 0 };
        for (const k in timers) pending[timers[k].kind] += 1;
        return { ticks, frames, fired: Object.assign({}, fired), pending, gl: Object.assign({}, gl) };
      },
      hiddenFrame: () => hiddenFrame,
      gl,
      runEnd,
      stay() { leaving = false; },
      // Fire what falls due within `ms` of page time. After `most` callbacks the run stops
      // early ({more: true}) and the evaluator asks for the rest: each call stays short however
      // slow the page's callbacks are, and where it stops depends on page time alone, so the
      // page sees the same run either way (nothing runs at the stop).
      async runFor(ms, most) {
        const end = ticks + Math.max(0, Math.floor(ms));
        most = most > 0 ? most : Infinity;
        let count = 0;
        if (leaving) return { count, owed: false, leaving, ticks };
        for (let t = c.first(end); t; t = c.first(end)) {
          if (count >= most) return { count, owed: false, leaving, ticks, more: true };
          // A frame is hidden when the next frame tick (16 ms on) still falls inside this run:
          // only page time and the run's end decide it, never wall time.
          hiddenFrame = t.kind === 'frame' && t.at + 16 <= end ? t.at : -1;
          c.fire(t);
          count++;
          await yieldTask(); // the frame's microtasks still count as the frame
          hiddenFrame = -1;
          if (leaving) return { count, owed: false, leaving, ticks };
        }
        hiddenFrame = -1;
        ticks = end;
        for (const hook of runEnd) {
          try { hook(); } catch (e) { /* a hook of a document that went away */ }
        }
        // Tell the evaluator's isolated world the page time, so it seeks CSS animations now; it
        // cancels the announcement when the seek owes the page animation events.
        let owed = false;
        try {
          owed = !dispatch.call(document, new NativeCustomEvent(KEY + ':sync', { detail: ticks, cancelable: true }));
        } catch (e) { /* no document */ }
        return { count, owed, leaving, ticks };
      },
    };
    Object.defineProperty(window, KEY, { value: c, enumerable: false });
    return c;
  })();
  if (top) Object.defineProperty(window, KEY, { value: clock, enumerable: false });

  const NativeDate = Date;
  function FakeDate(...args) {
    if (!new.target) return new NativeDate(clock.now()).toString();
    return Reflect.construct(NativeDate, args.length ? args : [clock.now()], new.target === FakeDate ? NativeDate : new.target);
  }
  Object.setPrototypeOf(FakeDate, NativeDate);
  FakeDate.prototype = NativeDate.prototype;
  FakeDate.now = function now() { return clock.now(); };
  FakeDate.parse = NativeDate.parse;
  FakeDate.UTC = NativeDate.UTC;
  Object.defineProperty(FakeDate, 'name', { value: 'Date' });
  Object.defineProperty(NativeDate.prototype, 'constructor', { value: FakeDate, writable: true, configurable: true });
  window.Date = FakeDate;

  Object.defineProperty(performance, 'now', { value: function now() { return clock.ticks(); }, configurable: true, writable: true });
  Object.defineProperty(performance, 'timeOrigin', { get: () => START, configurable: true });
  const stamps = new WeakMap();
  Object.defineProperty(Event.prototype, 'timeStamp', {
    configurable: true,
    get() { if (!stamps.has(this)) stamps.set(this, clock.ticks()); return stamps.get(this); },
  });

  const define = (name, fn) => Object.defineProperty(window, name, { value: fn, configurable: true, writable: true, enumerable: true });
  define('setTimeout', function setTimeout(fn, delay, ...args) { return clock.add('timeout', fn, delay, args); });
  define('setInterval', function setInterval(fn, delay, ...args) { return clock.add('interval', fn, delay, args); });
  define('requestAnimationFrame', function requestAnimationFrame(fn) { return clock.add('frame', fn, 0, []); });
  define('requestIdleCallback', function requestIdleCallback(fn, opts) { return clock.add('idle', fn, opts && opts.timeout, []); });
  for (const name of ['clearTimeout', 'clearInterval', 'cancelAnimationFrame', 'cancelIdleCallback']) {
    define(name, { [name](id) { clock.clear(id); } }[name]);
  }

  const DTF = Intl.DateTimeFormat;
  const nativeFormat = Object.getOwnPropertyDescriptor(DTF.prototype, 'format').get;
  const nativeParts = DTF.prototype.formatToParts;
  Object.defineProperty(DTF.prototype, 'format', {
    configurable: true,
    get() { const f = nativeFormat.call(this); return (d) => f(d === undefined ? clock.now() : d); },
  });
  Object.defineProperty(DTF.prototype, 'formatToParts', {
    configurable: true, writable: true,
    value: function formatToParts(d) { return nativeParts.call(this, d === undefined ? clock.now() : d); },
  });
  if (typeof AbortSignal !== 'undefined' && AbortSignal.timeout) {
    Object.defineProperty(AbortSignal, 'timeout', {
      configurable: true, writable: true,
      value: function timeout(ms) {
        const ctl = new AbortController();
        clock.add('timeout', () => ctl.abort(new DOMException('signal timed out', 'TimeoutError')), ms, []);
        return ctl.signal;
      },
    });
  }

  // Smooth scrolling is animated in real time, so where a page stood after a click on an anchor
  // (or a scrollIntoView({behavior: 'smooth'})) depended on wall time. Scroll at once instead;
  // probes.js turns off the CSS scroll-behavior the same way.
  const instant = (opts) => (opts && typeof opts === 'object' && opts.behavior === 'smooth'
    ? Object.assign({}, opts, { behavior: 'instant' }) : opts);
  for (const [proto, names] of [[Element.prototype, ['scrollTo', 'scroll', 'scrollBy', 'scrollIntoView']],
    [Window.prototype, ['scrollTo', 'scroll', 'scrollBy']], [window, ['scrollTo', 'scroll', 'scrollBy']]]) {
    for (const name of names) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d || typeof d.value !== 'function') continue;
      const native = d.value;
      const fn = { [name](opts) { return arguments.length === 1 ? native.call(this, instant(opts)) : native.apply(this, arguments); } }[name];
      Object.defineProperty(fn, 'length', { value: native.length });
      Object.defineProperty(proto, name, Object.assign({}, d, { value: fn }));
    }
  }
})();

// WebGL frames that nobody sees. Between two looks the evaluator runs many animation frames back
// to back (a 2 s wait is 125 frames), and SwiftShader renders every one of them on the CPU
// although only the last can ever be captured. In a hidden frame (clock.hiddenFrame() >= 0) the
// draws and clears a page sends to the default framebuffer of a WebGL context are dropped when
// that frame starts by clearing the whole default framebuffer: the next frame, which also starts
// with a full clear, erases whatever they would have drawn. Everything else runs as before: the
// page's JavaScript and GL state changes, draws into framebuffer objects (render targets,
// ping-pong simulations), transform feedback, occlusion queries, every context created with
// preserveDrawingBuffer, and every context the page reads back during a frame.
// When dropping did change what can be seen (the loop stopped drawing before the run ended, a
// later frame drew over dropped content without a full clear, the page read the canvas), the
// page reports `__wm:gl_skip_diverged` once per document and is to be evaluated again without
// skipping (EvalConfig.skip_hidden_draws), so no verdict depends on it.
(() => {
  const clock = window['__WM_CLOCK_KEY__'];
  // The evaluator writes 'true' or 'false' here (EvalConfig.skip_hidden_draws); left as is, it is off.
  if (!clock || '__WM_SKIP_HIDDEN_DRAWS__' !== 'true' || typeof WebGLRenderingContext !== 'function') return;
  const GL2 = typeof WebGL2RenderingContext === 'function' ? WebGL2RenderingContext : null;
  const COLOR = 0x4000, DEPTH = 0x100, STENCIL = 0x400, SCISSOR_TEST = 0x0C11, RASTERIZER_DISCARD = 0x8C89;
  const FRAMEBUFFER = 0x8D40, READ_FRAMEBUFFER = 0x8CA8, DRAW_FRAMEBUFFER = 0x8CA9;
  const FRONT = 0x404, BACK = 0x405, FRONT_AND_BACK = 0x408;
  const SAMPLE_QUERIES = [0x8C2F, 0x8D6A, 0x8C88]; // any samples passed (+conservative), TF primitives

  // One registry per top document, shared by its same-origin frames (they share its clock).
  const shared = clock.glShared || (() => {
    const report = console.debug.bind(console);
    const s = { states: new WeakMap(), canvases: new WeakMap(), owners: new WeakMap(), deleted: new WeakSet(), pending: new Set(), reported: false };
    s.diverge = (st, why) => {
      st.observed = true; // this context is not skipped again in this document
      st.pending = false;
      s.pending.delete(st);
      clock.gl.diverged += 1;
      if (!s.reported) { s.reported = true; report('__wm:gl_skip_diverged', why); }
    };
    // Dropped content still not erased when the run ends is what a screenshot would show.
    clock.runEnd.push(() => { for (const st of s.pending) s.diverge(st, 'stale'); });
    clock.glShared = s;
    return s;
  })();

  const fresh = () => ({
    drawFb: null, readFb: null, scissor: false, discard: false, color: true, depthMask: true,
    stencilFront: 0xff, stencilBack: 0xff, backOff: false, tf: false, queries: 0,
    observed: false, frame: -1, skip: false, pending: false,
  });
  const fullClear = (st, bits) => bits !== -1 && (bits & COLOR) !== 0 && !st.scissor && !st.discard && st.color && !st.backOff
    && (!st.depth || ((bits & DEPTH) !== 0 && st.depthMask))
    && (!st.stencil || ((bits & STENCIL) !== 0 && (st.stencilFront & 0xff) === 0xff && (st.stencilBack & 0xff) === 0xff));

  // A write to the current draw framebuffer; `bits` is the clear mask, -1 for a draw. True: drop it.
  const dropWrite = (st, bits) => {
    if (st.drawFb !== null) return false;
    const frame = clock.hiddenFrame();
    if (frame >= 0 && !st.observed && !st.tf && st.queries === 0) {
      if (st.frame !== frame) { st.frame = frame; st.skip = fullClear(st, bits); } // the frame's first write decides
      if (st.skip) {
        if (!st.pending) { st.pending = true; shared.pending.add(st); }
        clock.gl.skipped += 1;
        return true;
      }
    }
    if (st.pending) {
      if (fullClear(st, bits)) { st.pending = false; shared.pending.delete(st); }
      else if (bits !== -1 || !st.discard) shared.diverge(st, 'drawn over');
    }
    return false;
  };
  const onRead = (st) => {
    if (!st) return;
    if (clock.hiddenFrame() >= 0) st.observed = true; // read during frames: keep drawing it
    if (st.pending) shared.diverge(st, 'read');
  };

  const wrap = (proto, name, make) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, name);
    if (!d || typeof d.value !== 'function') return;
    const fn = make(d.value);
    Object.defineProperty(fn, 'name', { value: name });
    Object.defineProperty(fn, 'length', { value: d.value.length });
    Object.defineProperty(proto, name, Object.assign({}, d, { value: fn }));
  };
  const state = (ctx) => shared.states.get(ctx);
  const draw = (native) => function () { const st = state(this); if (st && dropWrite(st, -1)) return undefined; return native.apply(this, arguments); };
  // Runs the call, then updates the tracked state of an eligible context.
  const track = (update) => (native) => function () {
    const out = native.apply(this, arguments);
    const st = state(this);
    if (st) update(st, arguments, this);
    return out;
  };
  const readsCanvasArg = (native) => function () {
    for (let i = 0; i < arguments.length; i++) onRead(shared.canvases.get(arguments[i]));
    return native.apply(this, arguments);
  };

  for (const proto of [WebGLRenderingContext.prototype, GL2 && GL2.prototype]) {
    if (!proto) continue;
    const gl2 = GL2 !== null && proto === GL2.prototype;
    for (const name of ['drawArrays', 'drawElements', 'drawArraysInstanced', 'drawElementsInstanced', 'drawRangeElements',
      'clearBufferfv', 'clearBufferiv', 'clearBufferuiv', 'clearBufferfi']) wrap(proto, name, draw);
    wrap(proto, 'clear', (native) => function clear(mask) {
      const st = state(this);
      if (st && dropWrite(st, Number(mask) >>> 0)) return undefined;
      return native.apply(this, arguments);
    });
    wrap(proto, 'blitFramebuffer', (native) => function () {
      const st = state(this);
      if (st && st.readFb === null) onRead(st);
      if (st && dropWrite(st, -1)) return undefined;
      return native.apply(this, arguments);
    });
    for (const name of ['readPixels', 'copyTexImage2D', 'copyTexSubImage2D', 'copyTexSubImage3D']) {
      wrap(proto, name, (native) => function () { const st = state(this); if (st && st.readFb === null) onRead(st); return native.apply(this, arguments); });
    }
    for (const name of ['texImage2D', 'texSubImage2D', 'texImage3D', 'texSubImage3D']) wrap(proto, name, readsCanvasArg);
    const setCap = (on) => track((st, [cap]) => {
      if (cap === SCISSOR_TEST) st.scissor = on;
      else if (cap === RASTERIZER_DISCARD && gl2) st.discard = on;
    });
    wrap(proto, 'enable', setCap(true));
    wrap(proto, 'disable', setCap(false));
    wrap(proto, 'colorMask', track((st, a) => { st.color = !!(a[0] && a[1] && a[2] && a[3]); }));
    wrap(proto, 'depthMask', track((st, a) => { st.depthMask = !!a[0]; }));
    wrap(proto, 'stencilMask', track((st, a) => { st.stencilFront = st.stencilBack = Number(a[0]) >>> 0; }));
    wrap(proto, 'stencilMaskSeparate', track((st, [face, mask]) => {
      if (face === FRONT || face === FRONT_AND_BACK) st.stencilFront = Number(mask) >>> 0;
      if (face === BACK || face === FRONT_AND_BACK) st.stencilBack = Number(mask) >>> 0;
    }));
    wrap(proto, 'bindFramebuffer', track((st, [target, fb]) => {
      fb = fb || null;
      if (fb !== null && shared.deleted.has(fb)) return; // an error: the binding stays
      if (target === FRAMEBUFFER) st.drawFb = st.readFb = fb;
      else if (gl2 && target === DRAW_FRAMEBUFFER) st.drawFb = fb;
      else if (gl2 && target === READ_FRAMEBUFFER) st.readFb = fb;
    }));
    wrap(proto, 'deleteFramebuffer', (native) => function (fb) {
      const st = state(this);
      if (fb && typeof fb === 'object') {
        shared.deleted.add(fb);
        if (st && st.drawFb === fb) st.drawFb = null; // deleting a bound framebuffer unbinds it
        if (st && st.readFb === fb) st.readFb = null;
      }
      return native.apply(this, arguments);
    });
    wrap(proto, 'drawBuffers', track((st, [bufs]) => { if (st.drawFb === null && bufs && bufs.length === 1) st.backOff = bufs[0] === 0; }));
    wrap(proto, 'beginTransformFeedback', track((st) => { st.tf = true; }));
    wrap(proto, 'endTransformFeedback', track((st) => { st.tf = false; }));
    wrap(proto, 'beginQuery', track((st, [target]) => { if (SAMPLE_QUERIES.includes(target)) st.queries += 1; }));
    wrap(proto, 'endQuery', track((st, [target]) => { if (SAMPLE_QUERIES.includes(target)) st.queries = Math.max(0, st.queries - 1); }));
    // Extension draw calls (instancing, multi-draw) run on the extension object: find its context.
    wrap(proto, 'getExtension', (native) => function getExtension() {
      const ext = native.apply(this, arguments);
      if (ext && typeof ext === 'object' && state(this)) {
        shared.owners.set(ext, this);
        wrapExtension(Object.getPrototypeOf(ext));
      }
      return ext;
    });
  }

  const wrappedExt = new WeakSet();
  const EXT_DRAW = /^(multiDraw|draw)(Arrays|Elements)/;
  function wrapExtension(proto) {
    if (!proto || wrappedExt.has(proto)) return;
    wrappedExt.add(proto);
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (EXT_DRAW.test(name)) {
        wrap(proto, name, (native) => function () {
          const st = state(shared.owners.get(this));
          if (st && dropWrite(st, -1)) return undefined;
          return native.apply(this, arguments);
        });
      } else if (name === 'drawBuffersWEBGL') {
        wrap(proto, name, (native) => function (bufs) {
          const st = state(shared.owners.get(this));
          if (st && st.drawFb === null && bufs && bufs.length === 1) st.backOff = bufs[0] === 0;
          return native.apply(this, arguments);
        });
      } else if (/^colorMaski/.test(name)) {
        wrap(proto, name, (native) => function () {
          const st = state(shared.owners.get(this));
          if (st && !(arguments[1] && arguments[2] && arguments[3] && arguments[4])) st.color = false; // per-buffer masks: stop trusting clears
          return native.apply(this, arguments);
        });
      }
    }
  }

  // Reads of a WebGL canvas from outside its context.
  const canvasRead = (native) => function () { onRead(shared.canvases.get(this)); return native.apply(this, arguments); };
  wrap(HTMLCanvasElement.prototype, 'toDataURL', canvasRead);
  wrap(HTMLCanvasElement.prototype, 'toBlob', canvasRead);
  wrap(HTMLCanvasElement.prototype, 'captureStream', (native) => function () {
    const st = shared.canvases.get(this);
    if (st) { onRead(st); st.observed = true; } // a stream sees every frame
    return native.apply(this, arguments);
  });
  for (const cls of ['CanvasRenderingContext2D', 'OffscreenCanvasRenderingContext2D']) {
    if (typeof window[cls] !== 'function') continue;
    wrap(window[cls].prototype, 'drawImage', readsCanvasArg);
    wrap(window[cls].prototype, 'createPattern', readsCanvasArg);
  }
  if (typeof window.createImageBitmap === 'function') {
    const nativeBitmap = window.createImageBitmap;
    Object.defineProperty(window, 'createImageBitmap', {
      configurable: true, writable: true, enumerable: true,
      value: function createImageBitmap(source) { onRead(shared.canvases.get(source)); return nativeBitmap.apply(this, arguments); },
    });
  }

  // Contexts with preserveDrawingBuffer keep every frame's pixels: they are never skipped.
  const nativeGetContext = HTMLCanvasElement.prototype.getContext;
  const isGl = (ctx) => ctx instanceof WebGLRenderingContext || (GL2 !== null && ctx instanceof GL2);
  const seen = new WeakSet();
  wrap(HTMLCanvasElement.prototype, 'getContext', () => function getContext() {
    const ctx = nativeGetContext.apply(this, arguments);
    if (ctx && typeof ctx === 'object' && !seen.has(ctx) && isGl(ctx)) {
      seen.add(ctx);
      const attrs = ctx.getContextAttributes();
      if (attrs && !attrs.preserveDrawingBuffer) {
        const st = Object.assign(fresh(), { depth: !!attrs.depth, stencil: !!attrs.stencil });
        shared.states.set(ctx, st);
        shared.canvases.set(this, st);
        // A restored context starts from default GL state.
        this.addEventListener('webglcontextrestored', () => Object.assign(st, fresh(), { observed: st.observed }));
      }
    }
    return ctx;
  });
})();
