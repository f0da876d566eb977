// Main-world observations for the experience protocol's game-state evidence: the names the
// page itself adds to window (built-ins are known at document start), and the text the page
// draws on canvases (a canvas game's score or "GAME OVER" never reaches the DOM).
// Hidden under an unguessable, non-enumerable key. A page that tampers with this only
// misleads the evidence about its own game state, never a verdict that needs no page globals.
(() => {
  const KEY = '__WM_OBSERVE_KEY__';
  const initial = new Set(Object.getOwnPropertyNames(window));
  const drawn = new Map(); // text -> page time it was last drawn
  const now = () => performance.now();
  const remember = (text) => {
    const t = String(text).slice(0, 80);
    if (!t.trim()) return;
    drawn.delete(t);
    drawn.set(t, now());
    if (drawn.size > 64) drawn.delete(drawn.keys().next().value);
  };
  const wrap = (proto) => {
    if (!proto) return;
    for (const name of ['fillText', 'strokeText']) {
      const native = proto[name];
      if (typeof native !== 'function') continue;
      Object.defineProperty(proto, name, {
        configurable: true, writable: true,
        value: { [name](text, ...rest) { try { remember(text); } catch (e) { /* never break drawing */ } return native.call(this, text, ...rest); } }[name],
      });
    }
  };
  wrap(window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype);
  wrap(window.OffscreenCanvasRenderingContext2D && OffscreenCanvasRenderingContext2D.prototype);
  Object.defineProperty(window, KEY, {
    enumerable: false,
    value: {
      added: () => Object.getOwnPropertyNames(window).filter((n) => !initial.has(n) && n !== KEY && !n.startsWith('__wm')),
      // Texts drawn at or after page time `since` (ms), most recent last.
      drawnSince: (since) => Array.from(drawn.entries()).filter(([, t]) => t >= since).map(([s]) => s),
    },
  });
})();
