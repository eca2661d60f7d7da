/* The "Size your server" page: reads the form, checks each field, sizes the server with
 * sizing.js (the same computation as `python -m queuetune size`), and writes the answer, a
 * chart of the throughput against the load with the ceilings, and the settings to copy.
 * Every output carries its exact value in data-value (the browser test compares it with the
 * Python package). Runs from file:// with no network. */
(function () {
  "use strict";
  var S = window.QueuetuneSizing;
  var form = document.getElementById("qt-calculator");
  if (!S || !window.QueuetuneSnippets || !form) return;

  // name: [label, kind, low, high, optional, allowZero]
  var FIELDS = {
    processors: ["Processors", "integer", 1, 4096, false, false],
    cpu_ms: ["Processor time per request", "number", 0.001, 1e6, false, false],
    wait_ms: ["Wait per request", "number", 0.001, 1e6, false, true],
    rate: ["Peak arrival rate", "number", 0, 1e7, true, false],
    clients: ["Clients at the peak", "integer", 1, 1e5, true, false],
    think_s: ["Think time", "number", 0, 1e5, true, true],
    connections: ["Connection pool", "integer", 1, 1e5, true, false],
    max_response_ms: ["Longest acceptable response", "number", 0.001, 3.6e6, true, false]
  };
  var UNITS = { cpu_ms: " ms", wait_ms: " ms", rate: " requests/s", think_s: " s",
                max_response_ms: " ms" };

  function fmt(x) { return x.toLocaleString("en-US"); }

  function range(name) {
    var f = FIELDS[name], unit = UNITS[name] || "";
    var low = name === "rate" ? "more than 0" : "from " + fmt(f[2]);
    var text = (f[1] === "integer" ? "a whole number " : "a number ") + low + " to " +
      fmt(f[3]) + unit;
    return f[5] && f[2] > 0 ? text + ", or 0" : text;
  }

  // unreadable: the browser holds text it cannot read as a number (1e400, letters): a number
  // field then gives "" for its value, and only validity.badInput tells it from an empty one.
  function fieldError(name, raw, unreadable) {
    var f = FIELDS[name];
    return f[0] + " (" + name + ") must be " + range(name) +
      (unreadable ? "; what is typed there is not a number in that range."
                  : raw === "" ? "; it is empty." : "; got " + raw + ".");
  }

  function read() {
    var values = {}, errors = [], name;
    for (name in FIELDS) {
      var input = form.elements[name], raw = input.value.trim(), f = FIELDS[name];
      input.removeAttribute("aria-invalid");
      var unreadable = Boolean(input.validity && input.validity.badInput);
      if (raw === "") {
        // an optional field left empty is ignored; one holding what is no number is not
        if (unreadable || !f[4]) errors.push([name, fieldError(name, raw, unreadable)]);
        continue;
      }
      var x = Number(raw);
      var ok = isFinite(x) && (f[1] !== "integer" || Math.floor(x) === x) &&
        ((f[5] && x === 0) || (name === "rate" ? x > 0 && x <= f[3] : x >= f[2] && x <= f[3]));
      if (!ok) errors.push([name, fieldError(name, raw)]);
      else values[name] = x;
    }
    if (!errors.length) {
      var open = values.rate !== undefined;
      var closed = values.clients !== undefined || values.think_s !== undefined;
      if (open && closed) {
        errors.push(["rate", "Give either a peak arrival rate (rate) or clients (clients) " +
          "with their think time (think_s), not both."]);
      } else if (!open && (values.clients === undefined || values.think_s === undefined)) {
        errors.push([values.clients === undefined ? "clients" : "think_s",
          "Give a peak arrival rate (rate), more than 0 to 10,000,000 requests/s, or clients " +
          "(clients), 1 to 100,000, with their think time (think_s), 0 to 100,000 s."]);
      }
    }
    return { values: values, errors: errors };
  }

  function inputsOf(v) {
    var inp = { processors: v.processors, cpu_time: v.cpu_ms / 1000,
                wait_time: v.wait_ms / 1000 };
    if (v.rate !== undefined) inp.arrival_rate = v.rate;
    else { inp.clients = v.clients; inp.think_time = v.think_s; }
    if (v.connections !== undefined) inp.connections = v.connections;
    if (v.max_response_ms !== undefined) inp.max_response_time = v.max_response_ms / 1000;
    return inp;
  }

  function show(name, value, text) {
    var el = form.querySelector("[data-out='" + name + "']");
    if (!el) return;
    el.textContent = text;
    el.setAttribute("data-value", value === null ? "" : String(value));
  }

  function number(x, digits) {
    if (x === null) return "—";
    if (!isFinite(x)) return "unbounded";
    return Number(x.toPrecision(digits || 4)).toLocaleString("en-US");
  }

  function writeOutputs(r) {
    var sides = [["", r], ["double_", r.double]];
    for (var i = 0; i < sides.length; i++) {
      var pre = sides[i][0], o = sides[i][1];
      show(pre + "processors_needed", o.processors_needed, number(o.processors_needed, 12));
      show(pre + "threads", o.threads, number(o.threads, 12));
      show(pre + "connections", o.connections,
           o.connections === null ? (r.inputs.wait_time === 0 ? "none (no wait)" : "—")
                                  : number(o.connections, 12));
      show(pre + "capacity", o.capacity, number(o.capacity, 15));
      show(pre + "utilization", o.utilization, (100 * o.utilization).toFixed(1) + " %");
      var ms = o.response_time * 1000;
      show(pre + "response_ms", ms, isFinite(ms) ? number(ms, 4) + " ms" : "unbounded");
      show(pre + "throughput", o.throughput, number(o.throughput, 4));
      show(pre + "refused", o.refused, o.refused < 1e-4 && o.refused > 0
           ? "< 0.01 %" : (100 * o.refused).toFixed(2) + " %");
    }
    var list = form.querySelector("[data-warnings]");
    list.textContent = "";
    for (var j = 0; j < r.warnings.length; j++) {
      var li = document.createElement("li");
      li.textContent = r.warnings[j];
      list.appendChild(li);
    }
  }

  // ---------------------------------------------------------------------------- the chart
  var SVG = "http://www.w3.org/2000/svg";
  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawChart(r) {
    var svg = form.querySelector("[data-chart]");
    svg.textContent = "";
    var W = 640, H = 300, left = 64, right = 140, top = 16, bottom = 44;
    var open = r.inputs.arrival_rate !== null;
    var peakLoad = open ? r.inputs.arrival_rate : r.inputs.clients;
    var xMax = 2.2 * peakLoad, n = 24, points = [];
    for (var i = 0; i <= n; i++) {
      var load = xMax * i / n, st;
      if (open) {
        st = load > 0 ? S.measure(r.holders, r.threads, r.capacity, load, null, null)
                      : { throughput: 0 };
      } else {
        var k = Math.max(1, Math.round(load));
        load = k;
        st = S.measure(r.holders, r.threads, r.capacity, null, k, r.inputs.think_time);
      }
      points.push([load, st.throughput]);
    }
    var ceilings = [["processor", "processors p/s_c", r.processor_limit],
                    ["pool", "pool C/s_w", r.pool_limit],
                    ["threads", "threads X_in(T)", r.thread_limit]];
    var yMax = 0;
    points.forEach(function (p) { yMax = Math.max(yMax, p[1]); });
    ceilings.forEach(function (c) { if (c[2] !== null) yMax = Math.max(yMax, c[2]); });
    yMax = Math.min(yMax, 3 * Math.max(r.peak, r.thread_limit)) * 1.08;
    var sx = function (x) { return left + (W - left - right) * x / xMax; };
    var sy = function (y) { return H - bottom - (H - top - bottom) * Math.min(y, yMax) / yMax; };
    svg.appendChild(el("line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom,
                                 "class": "qt-axis" }));
    svg.appendChild(el("line", { x1: left, y1: top, x2: left, y2: H - bottom,
                                 "class": "qt-axis" }));
    for (var t = 0; t <= 4; t++) {
      var yv = yMax * t / 4;
      svg.appendChild(el("text", { x: left - 6, y: sy(yv) + 4, "text-anchor": "end" },
                         number(yv, 3)));
      var xv = xMax * t / 4;
      svg.appendChild(el("text", { x: sx(xv), y: H - bottom + 16, "text-anchor": "middle" },
                         number(xv, 3)));
    }
    svg.appendChild(el("text", { x: (left + W - right) / 2, y: H - 6, "text-anchor": "middle" },
                       open ? "offered load (requests/s)" : "clients"));
    svg.appendChild(el("text", { x: 14, y: (top + H - bottom) / 2, "text-anchor": "middle",
                                 transform: "rotate(-90 14 " + (top + H - bottom) / 2 + ")" },
                       "throughput (requests/s)"));
    [[peakLoad, "peak"], [2 * peakLoad, "2 × peak"]].forEach(function (m) {
      svg.appendChild(el("line", { x1: sx(m[0]), y1: top, x2: sx(m[0]), y2: H - bottom,
                                   "class": "qt-mark" }));
      svg.appendChild(el("text", { x: sx(m[0]) + 3, y: top + 10 }, m[1]));
    });
    var labelY = [];
    ceilings.forEach(function (c) {
      if (c[2] === null || c[2] > yMax) return;
      var y = sy(c[2]);
      svg.appendChild(el("line", { x1: left, y1: y, x2: W - right, y2: y,
                                   "class": "qt-ceiling " + c[0] }));
      var ly = y + 4;
      labelY.forEach(function (other) { if (Math.abs(other - ly) < 13) ly = other + 13; });
      labelY.push(ly);
      svg.appendChild(el("text", { x: W - right + 4, y: ly }, c[1] + ": " + number(c[2], 4)));
    });
    var d = points.map(function (p, i) {
      return (i ? "L" : "M") + sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1);
    }).join(" ");
    svg.appendChild(el("path", { d: d, "class": "qt-curve" }));
    svg.setAttribute("aria-label", "Throughput against " + (open ? "the offered load" :
      "the number of clients") + " with the sized settings, levelling off at " +
      number(r.thread_limit, 4) + " requests/s; ceilings: processors " +
      number(r.processor_limit, 4) + (r.pool_limit === null ? "" : ", pool " +
      number(r.pool_limit, 4)) + " requests/s.");
    form.querySelector("[data-chart-caption]").textContent =
      "Throughput with the sized settings (T = " + r.threads + ", B = " + r.capacity +
      ") against the load, and the ceilings: the processors, the pool and the threads.";
  }

  // ------------------------------------------------------------------------- the snippets
  // The text comes from snippets.js, the twin of src/queuetune/snippets.py.
  function snippets(r) {
    return window.QueuetuneSnippets.texts(window.QueuetuneSnippets.fromSizing(r));
  }

  function writeSnippets(r) {
    var texts = snippets(r);
    for (var key in texts) {
      var pre = form.querySelector("[data-snippet='" + key + "']");
      if (pre) pre.textContent = texts[key];
    }
  }

  // ------------------------------------------------------------------------------- update
  var errorBox = form.querySelector("[data-error]");
  var answer = form.querySelector("[data-answer]");

  function refuse(messages) {
    errorBox.textContent = messages.join(" ");
    errorBox.hidden = false;
    answer.hidden = true;
    var outs = form.querySelectorAll("[data-out]");
    for (var i = 0; i < outs.length; i++) {
      outs[i].textContent = "";
      outs[i].removeAttribute("data-value");
    }
  }

  function update() {
    var started = performance.now();
    var got = read();
    if (got.errors.length) {
      got.errors.forEach(function (e) {
        form.elements[e[0]].setAttribute("aria-invalid", "true");
      });
      refuse(got.errors.map(function (e) { return e[1]; }));
    } else {
      try {
        var r = S.size(inputsOf(got.values));
        writeOutputs(r);
        drawChart(r);
        writeSnippets(r);
        errorBox.hidden = true;
        answer.hidden = false;
        window.QueuetuneCalculator.result = r;
      } catch (e) {
        if (!(e instanceof S.SizingError)) throw e;
        refuse(["No answer: " + e.message + "."]);
      }
    }
    window.QueuetuneCalculator.millis = performance.now() - started;
    window.QueuetuneCalculator.updates += 1;
  }

  window.QueuetuneCalculator = { update: update, updates: 0, millis: null, result: null };
  form.addEventListener("input", update);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  update();
  // Once the page is drawn, run each kind of sizing once (open and closed, a stable and an
  // overloaded peak), so that the browser has compiled every path before the reader's first
  // change: that change then answers as fast as the next ones.
  setTimeout(function () {
    var warm = [
      { processors: 18, cpu_time: 0.04, wait_time: 0.2, arrival_rate: 300 },
      { processors: 4, cpu_time: 0.01, wait_time: 0.2, clients: 500, think_time: 2 },
      { processors: 2, cpu_time: 0.01, wait_time: 0, arrival_rate: 100, connections: 5 }
    ];
    warm.forEach(function (inp) {
      try {
        var r = S.size(inp);
        S.measure(r.holders, r.threads, r.capacity, inp.arrival_rate || null,
                  inp.clients || null, inp.think_time === undefined ? null : inp.think_time);
        snippets(r);
      } catch (e) { /* a warm-up never shows anything */ }
    });
  }, 0);
})();
