/* webmend offline CDN mirror: cdn.tailwindcss.com (the Tailwind v3 Play CDN)
 * is answered with @tailwindcss/browser (v4), which follows this preamble.
 * v3 pages assign `tailwind.config = {...}` right after the script tag; v4
 * defines no `tailwind` global, so without this that line throws. We provide
 * the global and translate the config's theme into a v4 @theme block. */
(function () {
  if (window.tailwind && window.tailwind.__webmend) return;
  var style = null, config = {};
  var vars = {
    colors: "--color", fontFamily: "--font", fontSize: "--text", borderRadius: "--radius",
    boxShadow: "--shadow", dropShadow: "--drop-shadow", screens: "--breakpoint", spacing: "--spacing",
    animation: "--animate", blur: "--blur", letterSpacing: "--tracking", lineHeight: "--leading",
    transitionTimingFunction: "--ease", fontWeight: "--font-weight"
  };
  function kebab(s) { return String(s).replace(/[A-Z]/g, function (c) { return "-" + c.toLowerCase(); }); }
  function quote(f) { f = String(f); return /\s/.test(f) && !/^['"]/.test(f) ? '"' + f + '"' : f; }
  function flat(key, prefix, obj, out) {
    for (var k in obj) {
      var v = obj[k], name = k === "DEFAULT" ? prefix : prefix + "-" + String(k).replace(/\./g, "_").replace(/\//g, "_");
      if (Array.isArray(v)) v = key === "fontFamily" ? v.map(quote).join(", ") : v[0];
      if (v && typeof v === "object") flat(key, name, v, out);
      else if (v !== undefined && v !== null && typeof v !== "function") out.push("  " + name + ": " + v + ";");
    }
  }
  function keyframes(frames, out) {
    for (var name in frames) {
      var steps = frames[name], body = [];
      for (var step in steps) {
        var decls = [];
        for (var prop in steps[step]) decls.push(kebab(prop) + ": " + steps[step][prop] + ";");
        body.push("    " + step + " { " + decls.join(" ") + " }");
      }
      out.push("  @keyframes " + name + " {\n" + body.join("\n") + "\n  }");
    }
  }
  function toCss(cfg) {
    var theme = cfg.theme || {}, lines = [];
    [theme, theme.extend || {}].forEach(function (src, i) {
      for (var key in vars) {
        if (!src[key] || typeof src[key] !== "object") continue;
        if (i === 0 && key === "colors") lines.push("  --color-*: initial;");  // v3 `theme.colors` replaces the palette
        flat(key, vars[key], src[key], lines);
      }
      if (src.keyframes) keyframes(src.keyframes, lines);
    });
    var css = "@theme {\n" + lines.join("\n") + "\n}\n";
    var dark = Array.isArray(cfg.darkMode) ? cfg.darkMode[0] : cfg.darkMode;
    if (dark === "class" || dark === "selector") css += "@custom-variant dark (&:where(.dark, .dark *));\n";
    return css;
  }
  function apply() {
    try {
      var created = !style;
      if (created) {
        style = document.createElement("style");
        style.setAttribute("type", "text/tailwindcss");
        style.setAttribute("data-webmend", "tailwind-config");
      }
      style.textContent = toCss(config || {});
      if (created) (document.head || document.documentElement).appendChild(style);
    } catch (e) {
      console.warn("webmend tailwind.config shim:", e);
    }
  }
  window.tailwind = {
    __webmend: true,
    get config() { return config; },
    set config(v) { config = v || {}; apply(); }
  };
})();
