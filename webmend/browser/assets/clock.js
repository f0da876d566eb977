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
    // Callbacks fired so far by kind, for the evaluator's motion evidence (frame rate, stalls).
    const fired = { frame: 0, timeout: 0, interval: 0, idle: 0 };
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
        return { ticks, fired: Object.assign({}, fired), pending };
      },
      async runFor(ms) {
        const end = ticks + Math.max(0, Math.floor(ms));
        let count = 0;
        for (let t = c.first(end); t; t = c.first(end)) {
          c.fire(t);
          count++;
          await yieldTask();
        }
        ticks = end;
        // Tell the evaluator's isolated world the page time, so it seeks CSS animations now.
        try { dispatch.call(document, new NativeCustomEvent(KEY + ':sync', { detail: ticks })); } catch (e) { /* no document */ }
        return count;
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
})();
