// Runs in the page's own world before any page script (every frame, every document).
// Seeds randomness and contains window-level side effects. Reports go out through a
// console.debug reference captured here, before page code can replace console.
(() => {
  const report = console.debug.bind(console);
  let state = (__WM_SEED__ >>> 0) || 1;
  const next = () => {
    state = (state + 0x6D2B79F5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  Math.random = function random() { return next(); };
  if (typeof Crypto !== 'undefined') {
    const fill = function getRandomValues(arr) {
      const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (next() * 256) | 0;
      return arr;
    };
    const uuid = function randomUUID() {
      const b = fill(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    };
    Object.defineProperty(Crypto.prototype, 'getRandomValues', { value: fill, configurable: true, writable: true });
    Object.defineProperty(Crypto.prototype, 'randomUUID', { value: uuid, configurable: true, writable: true });
  }
  // Console volume is capped at the source: a flood of messages would otherwise queue up in
  // the DevTools pipe and starve every evaluator call behind it.
  // Each level has its own budget, so a flood of logs cannot hide the page's errors.
  const CONSOLE_CAP = __WM_CONSOLE_CAP__;
  for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table']) {
    const native = console[level];
    if (typeof native !== 'function') continue;
    let calls = 0;
    const capped = {
      [level](...args) { /*__wm_console__*/
        calls++;
        if (calls <= CONSOLE_CAP) return native.apply(console, args);
        if (calls === CONSOLE_CAP + 1) report('__wm:console_flood', level);
      },
    }[level];
    console[level] = capped;
  }
  // Modal dialogs would block the renderer (and screenshots) until answered: answer at once.
  window.alert = function alert(msg) { report('__wm:dialog', 'alert'); };
  window.confirm = function confirm(msg) { report('__wm:dialog', 'confirm'); return false; };
  window.prompt = function prompt(msg) { report('__wm:dialog', 'prompt'); return null; };
  // Busy workers run outside page time and can starve the machine: cap how many may start.
  let workers = 0;
  for (const name of ['Worker', 'SharedWorker']) {
    const Native = window[name];
    if (typeof Native !== 'function') continue;
    const Capped = function (...args) {
      if (workers >= __WM_MAX_WORKERS__) {
        report('__wm:worker_blocked', name);
        throw new DOMException(`webmend allows ${__WM_MAX_WORKERS__} workers per page`, 'SecurityError');
      }
      const worker = new Native(...args); // a construction that throws does not use up the cap
      workers++;
      return worker;
    };
    Object.defineProperty(Capped, 'name', { value: name });
    Capped.prototype = Native.prototype;
    window[name] = Capped;
  }
  // In the gl browser pages see a smaller devicePixelRatio (EvalConfig.gl_pixel_ratio; the
  // evaluator writes 1 elsewhere). Pages size their WebGL drawing buffers by it, and SwiftShader
  // renders every one of those pixels on the CPU; CSS pixels, layout and the compositor (hence
  // screenshots) stay at scale 1, where the canvas is scaled up to its CSS size.
  const PIXEL_RATIO = Number('__WM_PIXEL_RATIO__') || 1;
  if (PIXEL_RATIO !== 1) {
    Object.defineProperty(window, 'devicePixelRatio', {
      get: function devicePixelRatio() { return PIXEL_RATIO; }, set: function devicePixelRatio(v) {},
      configurable: true, enumerable: true,
    });
  }
  // WebGL pages run in the browser profile that composites through SwiftShader (fast WebGL
  // frames); the evaluator picks it from the code, and this report catches pages it missed.
  const nativeGetContext = HTMLCanvasElement.prototype.getContext;
  let saidGl = false;
  // Multisampling is by far the dearest part of a software-rendered WebGL frame (about 2x);
  // it only smooths edges, which the evaluator's checks cannot see.
  HTMLCanvasElement.prototype.getContext = function getContext(type, opts, ...rest) {
    if (/webgl/i.test(String(type))) {
      if (!saidGl) { saidGl = true; report('__wm:webgl', String(type)); }
      opts = Object.assign({}, opts, { antialias: false });
    }
    return nativeGetContext.call(this, type, opts, ...rest);
  };
  window.open = function open(url) { report('__wm:popup', String(url === undefined ? '' : url)); return null; };
  window.close = function close() { report('__wm:close', ''); };
  window.print = function print() { report('__wm:print', ''); };
  if (window.RTCPeerConnection) {
    // No UDP leaves the sandbox (launch flags, namespace); this only records the attempt.
    const Native = window.RTCPeerConnection;
    const Recorded = function RTCPeerConnection(config, ...rest) {
      const urls = ((config && config.iceServers) || []).flatMap((s) => [].concat(s.urls || s.url || []));
      report('__wm:webrtc', urls.map(String).join(' '));
      return new Native(config, ...rest);
    };
    Recorded.prototype = Native.prototype;
    window.RTCPeerConnection = Recorded;
    if (window.webkitRTCPeerConnection) window.webkitRTCPeerConnection = Recorded;
  }
  // Pointer moves the browser makes up while a document loads are held back from the page until
  // the evaluator has seen the document load completely (its isolated world then dispatches
  // '__WM_LIVE_EVENT__'). Chromium hands a fresh document a move to (0, 0) when one was pending
  // as the navigation began; it lands at some point of the page's start-up that depends on wall
  // time, so a page that registers its mousemove listener early saw it on some runs and not on
  // others (a shader gallery drew around a different mouse position). Only the top document is
  // gated: child frames get no such event. The evaluator moves the pointer only after the load.
  if (window.top === window) {
    const MOVES = ['pointerover', 'pointerenter', 'pointermove', 'pointerout', 'pointerleave',
      'mouseover', 'mouseenter', 'mousemove', 'mouseout', 'mouseleave'];
    let live = false; // a flag, not removeEventListener, which the page may have replaced by then
    const hold = (e) => { if (!live && e.isTrusted) e.stopImmediatePropagation(); };
    for (const type of MOVES) addEventListener(type, hold, true);
    addEventListener('__WM_LIVE_EVENT__', (e) => { live = true; e.stopImmediatePropagation(); }, true);
  }
  if (navigator.serviceWorker) {
    const sw = navigator.serviceWorker;
    Object.defineProperty(sw, 'register', {
      value: function register(u) {
        report('__wm:service_worker', String(u));
        return Promise.reject(new DOMException('service workers are disabled', 'SecurityError'));
      },
    });
  }
})();
