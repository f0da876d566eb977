// Dedicated Workers on the page clock. A real Worker runs on its own thread in real time: which of
// its answers had arrived by a given page time depended on the machine, and a busy one took a core.
// Here a classic dedicated Worker's script runs in the page's own thread, in a scope of its own:
// its timers are page timers, and every message either way is delivered as a page-clock task in
// the order it was sent. So the same page gives the same results on every run, and several
// workers cost no thread. Module workers and SharedWorkers stay native (capped in init.js).
// Installed after init.js (whose capped constructor is kept for those) and needs clock.js.
(() => {
  const clock = window['__WM_CLOCK_KEY__'];
  const Native = window.Worker;
  if (!clock || typeof Native !== 'function') return;
  const MAX = __WM_MAX_CLOCK_WORKERS__;
  const report = console.debug.bind(console); // before page code can replace console
  const records = [];
  const stops = []; // one per worker: stops it for good
  clock.workers = records; // what observe.js reports as observed.workers
  // Which worker's code is running. A worker that never returns holds the page's thread: the
  // evaluator stops the script, finds this set, and stops every worker of the document
  // (stopHungWorkers), so the page goes on without them, as it would beside a stuck thread.
  clock.inWorker = null;
  // Returns the page time the stopped run had reached (the run goes on from there), else null.
  clock.stopHungWorkers = () => {
    if (clock.inWorker === null) return null;
    clock.inWorker = null;
    for (const stop of stops) stop();
    report('__wm:worker_blocked', 'hung');
    return clock.ticks();
  };
  const NativeError = ErrorEvent;
  const NativeMessage = MessageEvent;

  // A worker loads its script from a URL: blob: and data: URLs (what single-file pages use) and
  // same-origin files, read synchronously as the constructor would have fetched them.
  const load = (url) => {
    const href = new URL(String(url), location.href);
    if (!['blob:', 'data:'].includes(href.protocol) && href.origin !== location.origin) {
      // as the native constructor: a script of another origin may not be a worker
      throw new DOMException(`Script at '${href}' cannot be accessed from origin '${location.origin}'.`, 'SecurityError');
    }
    const xhr = new XMLHttpRequest();
    xhr.open('GET', href.href, false);
    xhr.send();
    if (xhr.status !== 200 && xhr.status !== 0) throw new DOMException(`worker script ${url}: HTTP ${xhr.status}`, 'NetworkError');
    return xhr.responseText;
  };
  // Messages are copied as postMessage copies them: a transfer list (given as the list or as
  // {transfer}) moves ArrayBuffers.
  const clone = (data, options) => {
    const transfer = Array.isArray(options) ? options : options && options.transfer;
    return structuredClone(data, transfer && transfer.length ? { transfer } : undefined);
  };
  const later = (fn) => clock.add('timeout', fn, 0, []);

  class WorkerScope extends EventTarget {}

  function PageClockWorker(url, options) {
    if (!new.target) throw new TypeError("Failed to construct 'Worker': Please use the 'new' operator");
    if (options && options.type === 'module') return new Native(url, options);
    if (records.length >= MAX) {
      report('__wm:worker_blocked', 'Worker');
      throw new DOMException(`webmend allows ${MAX} workers per page`, 'SecurityError');
    }
    const source = load(url); // a script that cannot be read throws here, as construction would
    const outside = new EventTarget();
    Object.setPrototypeOf(outside, PageClockWorker.prototype);
    const record = { url: String(url).slice(0, 60), messagesIn: 0, messagesOut: 0, errors: 0, terminated: false };
    records.push(record);
    const inside = new WorkerScope();
    let closed = false;
    const handlers = { inside: { message: null, error: null }, outside: { message: null, error: null, messageerror: null } };

    const deliver = (target, own, event) => {
      const fn = own.message;
      target.dispatchEvent(event);
      if (typeof fn === 'function') fn.call(target, event);
    };
    // An error thrown inside the worker: an `error` event on the Worker object, and reported as
    // uncaught (a page error) unless a handler cancels it, as a real worker's error is.
    const fault = (e) => {
      record.errors += 1;
      const event = new NativeError('error', { message: String(e && e.message || e), error: e, cancelable: true });
      try {
        outside.dispatchEvent(event);
        if (typeof handlers.outside.error === 'function') handlers.outside.error.call(outside, event);
      } catch (inner) { reportError(inner); }
      if (!event.defaultPrevented) reportError(e);
    };
    const guarded = (fn) => () => {
      if (closed) return;
      clock.inWorker = record;
      try { fn(); } catch (e) { fault(e); } finally { clock.inWorker = null; }
    };

    const names = {
      self: null, globalThis: null,
      postMessage(data, transfer) {
        if (closed) return;
        const copy = clone(data, transfer);
        record.messagesOut += 1;
        later(() => { if (!record.terminated) deliver(outside, handlers.outside, new NativeMessage('message', { data: copy })); });
      },
      close() { closed = true; },
      importScripts(...urls) { for (const u of urls) run(load(new URL(u, location.href))); },
      addEventListener: inside.addEventListener.bind(inside),
      removeEventListener: inside.removeEventListener.bind(inside),
      dispatchEvent: inside.dispatchEvent.bind(inside),
    };
    const own = new Set([...Object.keys(names), 'onmessage', 'onerror', 'onmessageerror', 'name']);
    const scope = new Proxy(names, {
      has: (t, k) => own.has(k),
      get: (t, k) => {
        if (k === 'self' || k === 'globalThis') return scope;
        if (k === 'onmessage' || k === 'onerror') return handlers.inside[k.slice(2)];
        if (k in t) return t[k];
        return window[k];
      },
      set: (t, k, v) => {
        if (k === 'onmessage' || k === 'onerror') handlers.inside[k.slice(2)] = v;
        else { t[k] = v; own.add(k); }
        return true;
      },
    });
    // The worker's top-level `function onmessage` declares a local; `var onmessage` keeps it off
    // the page's window. Sloppy mode, as a classic worker script may be.
    const run = (src) => {
      const body = new Function('__scope', 'var onmessage; with (__scope) {\n' + src + '\n}\nreturn onmessage;');
      const declared = body.call(scope, scope);
      if (typeof declared === 'function' && handlers.inside.message === null) handlers.inside.message = declared;
    };

    outside.postMessage = (data, transfer) => {
      if (record.terminated) return;
      const copy = clone(data, transfer);
      record.messagesIn += 1;
      later(guarded(() => deliver(inside, handlers.inside, new NativeMessage('message', { data: copy }))));
    };
    outside.terminate = () => { record.terminated = true; closed = true; };
    stops.push(outside.terminate);
    for (const kind of ['message', 'error', 'messageerror']) {
      Object.defineProperty(outside, 'on' + kind, {
        get: () => handlers.outside[kind], set: (v) => { handlers.outside[kind] = v; }, configurable: true,
      });
    }
    later(guarded(() => run(source))); // a real worker starts after the constructor returns
    return outside;
  }
  PageClockWorker.prototype = Object.create(EventTarget.prototype);
  Object.defineProperty(PageClockWorker.prototype, 'constructor', { value: PageClockWorker, writable: true, configurable: true });
  Object.defineProperty(PageClockWorker, 'name', { value: 'Worker' });
  Object.defineProperty(window, 'Worker', { value: PageClockWorker, configurable: true, writable: true, enumerable: false });
})();
