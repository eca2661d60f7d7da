/* queuetune: charts that follow the theme's dark mode, and the what-if page's exercise buttons.

   Loaded after vendor/vega-offline.js on every page with a chart (book/_ext/queuetune_site.py).
   Each stored chart output calls the global vegaEmbed once the page has loaded its bundle; this
   file wraps that function. In dark mode (the theme's data-theme="dark", which follows
   prefers-color-scheme when the reader chose "auto") a chart is drawn with a dark background,
   light text, axes and grid, and its dark ink (rules, labels, the black of the palette) made
   light. Text drawn over a coloured cell (a conditional colour, as in a heat map) keeps its
   colours. When the reader switches the theme, every chart is drawn again. */
(function () {
  "use strict";
  var embed = window.vegaEmbed;
  if (typeof embed !== "function") return;

  // Dark ink of the chart builders (src/queuetune/charts) and its light counterpart.
  var LIGHTER = {
    "#000": "#e8e8e8", "#000000": "#e8e8e8", "black": "#e8e8e8", "#222": "#e0e0e0",
    "#333": "#d4d4d4", "#444": "#c8c8c8", "#555": "#bdbdbd", "#666": "#b0b0b0",
    "#8a5a00": "#f0b860"
  };
  var COLOUR_KEYS = {color: true, stroke: true, fill: true, value: true};
  var drawn = [];

  function isDark() {
    var root = document.documentElement;
    if (root.dataset.theme === "dark") return true;
    if (root.dataset.theme === "light") return false;
    return window.matchMedia("(prefers-color-scheme: dark)").matches;
  }

  function cssColour(name, fallback) {
    var value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return value || fallback;
  }

  function merged(base, over) {
    var out = Object.assign({}, base);
    Object.keys(over).forEach(function (key) {
      var a = out[key], b = over[key];
      out[key] = (a && b && typeof a === "object" && typeof b === "object" &&
                  !Array.isArray(a) && !Array.isArray(b)) ? merged(a, b) : b;
    });
    return out;
  }

  function darkConfig(config) {
    var text = cssColour("--pst-color-text-base", "#ced6dd");
    var muted = cssColour("--pst-color-text-muted", "#9ca4af");
    var grid = "#3b4249";
    var category = ((config.range || {}).category || []).map(function (c) {
      return typeof c === "string" && LIGHTER[c.toLowerCase()] || c;
    });
    var dark = {
      background: cssColour("--pst-color-background", "#14181e"),
      title: {color: text, subtitleColor: muted},
      axis: {labelColor: text, titleColor: text, gridColor: grid, domainColor: muted,
             tickColor: muted},
      legend: {labelColor: text, titleColor: text},
      header: {labelColor: text, titleColor: text},
      text: {color: text},
      style: {"guide-label": {fill: text}, "guide-title": {fill: text}}
    };
    if (category.length) dark.range = {category: category};
    return merged(config, dark);
  }

  // The spec with its dark ink made light, but not its data, its configuration, nor a colour
  // chosen by a condition (text on a coloured cell).
  function lightened(node) {
    if (Array.isArray(node)) return node.map(lightened);
    if (!node || typeof node !== "object") return node;
    var out = {};
    Object.keys(node).forEach(function (key) {
      var v = node[key];
      if (key === "datasets" || key === "data" || key === "config") {
        out[key] = v;
      } else if (typeof v === "string" && COLOUR_KEYS[key] && LIGHTER[v.toLowerCase()]) {
        out[key] = LIGHTER[v.toLowerCase()];
      } else if (v && typeof v === "object" && "condition" in v) {
        out[key] = v;
      } else {
        out[key] = lightened(v);
      }
    });
    return out;
  }

  function themed(spec) {
    if (!isDark() || !spec || typeof spec !== "object") return spec;
    var out = lightened(spec);
    out.config = darkConfig(spec.config || {});
    return out;
  }

  function draw(entry) {
    entry.dark = isDark();
    return embed(entry.el, themed(entry.spec), entry.opts).then(function (result) {
      entry.result = result;
      return result;
    });
  }

  function themedEmbed(el, spec, opts) {
    var target = typeof el === "string" ? document.querySelector(el) : el;
    var entry = {el: target, spec: spec, opts: opts};
    drawn.push(entry);
    entry.pending = draw(entry);
    return entry.pending;
  }
  Object.keys(embed).forEach(function (key) { themedEmbed[key] = embed[key]; });
  window.vegaEmbed = themedEmbed;

  // The values of a chart's sliders, to set again once it is drawn anew: a reader who switches
  // the theme in the middle of an exercise keeps the explorer where it was.
  function sliderValues(el) {
    var values = {};
    Array.prototype.forEach.call(el.querySelectorAll(".vega-bind input[type='range']"),
                                 function (input) { values[input.name] = input.value; });
    return values;
  }

  function setSliders(el, values) {
    Array.prototype.forEach.call(el.querySelectorAll(".vega-bind input[type='range']"),
                                 function (input) {
      if (!(input.name in values) || input.value === values[input.name]) return;
      input.value = values[input.name];
      input.dispatchEvent(new Event("input", {bubbles: true}));
    });
  }

  function redrawChanged() {
    drawn.forEach(function (entry) {
      if (entry.dark === isDark() || !entry.pending) return;
      entry.dark = isDark();
      entry.pending = entry.pending.then(function (result) {
        var values = sliderValues(entry.el);
        if (result && result.finalize) result.finalize();
        return draw(entry).then(function (drawnAgain) {
          setSliders(entry.el, values);
          return drawnAgain;
        });
      });
    });
  }
  new MutationObserver(redrawChanged).observe(document.documentElement,
                                              {attributes: true, attributeFilter: ["data-theme"]});
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", redrawChanged);

  // What-if page: a button in each exercise sets the explorer's sliders to the exercise's
  // starting values (its data-explorer attribute: "name=value" pairs separated by spaces, one
  // per slider) and brings the explorer into view.
  function presetValues(text) {
    var values = {};
    text.trim().split(/\s+/).forEach(function (pair) {
      var parts = pair.split("=");
      values[parts[0]] = Number(parts[1]);
    });
    return values;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-explorer]");
    if (!button) return;
    var values = presetValues(button.dataset.explorer);
    var inputs = document.querySelectorAll(".vega-bind input[type='range']");
    var explorer = null;
    Array.prototype.forEach.call(inputs, function (input) {
      if (!(input.name in values)) return;
      input.value = String(values[input.name]);
      input.dispatchEvent(new Event("input", {bubbles: true}));
      input.dispatchEvent(new Event("change", {bubbles: true}));
      explorer = explorer || input.closest(".vega-embed");
    });
    if (explorer) explorer.scrollIntoView({block: "start"});
  });
})();
