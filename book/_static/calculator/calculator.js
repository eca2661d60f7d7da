/* The "Size your server" page: reads the form, checks each field, sizes the server with
 * sizing.js (the same computation as `python -m queuetune size`), and writes the answer, a
 * chart of the response time and refusals against the load with the ceilings, and the
 * settings to copy.
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
    max_response_ms: ["Longest acceptable response", "number", 0.001, 3.6e6, true, false],
    headroom: ["Headroom", "number", 1, 10, true, false],
    read_timeout_s: ["Read timeout", "number", 0.000001, 3600, true, false],
    p99_objective_ms: ["p99 objective", "number", 0.001, 3.6e6, true, false],
    threads: ["Your maxThreads", "integer", 1, 1e5, true, false],
    capacity: ["Your admitted requests", "integer", 1, 1e12, true, false],
    // a fleet against one database (fleet.js, `python -m queuetune size --db-ms ...`)
    db_ms: ["Database processor time per request", "number", 0.001, 1e6, true, false],
    db_processors: ["Database processors", "integer", 1, 4096, true, false],
    instances: ["Instances", "integer", 1, 4096, true, false],
    db_max_connections: ["Database max_connections", "integer", 4, 1e5, true, false],
    db_contention: ["Database contention", "number", 0, 10, true, true]
  };
  // Any of these sizes a fleet; these single-server fields are then not taken (as the CLI).
  var FLEET_FIELDS = ["db_ms", "db_processors", "instances", "db_max_connections",
                      "db_contention"];
  var NOT_IN_FLEET = ["connections", "threads", "capacity", "p99_objective_ms"];
  var UNITS = { cpu_ms: " ms", wait_ms: " ms", rate: " requests/s", think_s: " s",
                max_response_ms: " ms", read_timeout_s: " s", p99_objective_ms: " ms",
                db_ms: " ms" };

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
    var fleet = FLEET_FIELDS.some(function (n) { return values[n] !== undefined; });
    if (!errors.length && fleet) {
      if (values.db_ms === undefined) {
        errors.push(["db_ms", FIELDS.db_ms[0] + " (db_ms) must be " + range("db_ms") +
          " to size a fleet (instances, database processors, max_connections or contention " +
          "given); it is empty."]);
      }
      NOT_IN_FLEET.forEach(function (n) {
        if (values[n] !== undefined) {
          errors.push([n, FIELDS[n][0] + " (" + n + ") is not taken with a fleet: the fleet " +
            "sizing sizes the pool, threads and bound itself; leave it empty, or leave the " +
            "database fields empty."]);
        }
      });
    }
    return { values: values, errors: errors, fleet: fleet };
  }

  function inputsOf(v) {
    var inp = { processors: v.processors, cpu_time: v.cpu_ms / 1000,
                wait_time: v.wait_ms / 1000 };
    if (v.rate !== undefined) inp.arrival_rate = v.rate;
    else { inp.clients = v.clients; inp.think_time = v.think_s; }
    if (v.connections !== undefined) inp.connections = v.connections;
    if (v.max_response_ms !== undefined) inp.max_response_time = v.max_response_ms / 1000;
    if (v.headroom !== undefined) inp.headroom = v.headroom;
    if (v.read_timeout_s !== undefined) inp.read_timeout = v.read_timeout_s;
    if (v.p99_objective_ms !== undefined) inp.p99_objective = v.p99_objective_ms / 1000;
    if (v.threads !== undefined) inp.threads = v.threads;
    if (v.capacity !== undefined) inp.capacity = v.capacity;
    return inp;
  }

  function fleetInputsOf(v) {
    var inp = inputsOf(v);
    inp.db_time = v.db_ms / 1000;
    ["db_processors", "instances", "db_max_connections", "db_contention"].forEach(function (n) {
      if (v[n] !== undefined) inp[n] = v[n];
    });
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

  // The columns of the load tables: the rows of r.loads (1, 1.1, 1.5 and 2 times the peak).
  var COLUMNS = ["", "x1_1_", "x1_5_", "double_"];

  function ms(seconds, unit) {
    if (seconds === null) return [null, "—"];
    var x = seconds * 1000;
    return [x, isFinite(x) ? number(x, 4) + (unit === false ? "" : " ms") : "unbounded"];
  }

  function writeLoads(pre, loads) {
    for (var i = 0; i < loads.length; i++) {
      var o = loads[i], col = pre + COLUMNS[i];
      show(col + "load", o.arrival_rate !== null ? o.arrival_rate : o.clients,
           o.arrival_rate !== null ? number(o.arrival_rate, 4) + "/s"
                                   : number(o.clients, 12) + " clients");
      show(col + "utilization", o.utilization, (100 * o.utilization).toFixed(1) + " %");
      var mean = ms(o.response_time, false), p95 = ms(o.response_time_p95, false);
      var p99 = ms(o.response_time_p99, false);
      show(col + "response_ms", mean[0], mean[1]);
      show(col + "p95_ms", p95[0], p95[1]);
      show(col + "p99_ms", p99[0], p99[1]);
      show(col + "throughput", o.throughput, number(o.throughput, 4));
      show(col + "refused", o.refused, o.refused < 1e-3 && o.refused > 0
           ? "< 0.1 %" : (100 * o.refused).toFixed(1) + " %");
    }
  }

  var RESOURCE = { processors: "the processors", pool: "the connection pool",
                   threads: "the threads" };

  function writeOutputs(r) {
    show("headroom", r.headroom, number(r.headroom, 4));
    show("processors_needed", r.processors_needed, number(r.processors_needed, 12));
    show("threads", r.threads, number(r.threads, 12));
    show("connections", r.connections,
         r.connections === null ? (r.inputs.wait_time === 0 ? "none (no wait)" : "—")
                                : number(r.connections, 12));
    show("capacity", r.capacity, number(r.capacity, 15));
    show("saturation_multiple", r.saturation_multiple, number(r.saturation_multiple, 3) + "×");
    show("saturation_resource", r.saturation_resource, RESOURCE[r.saturation_resource]);
    show("max_response_ms", r.max_response_time * 1000, number(r.max_response_time * 1000, 6));
    show("max_response_origin", r.max_response_origin, r.origin_text);
    writeLoads("", r.loads);
    var yours = r.yours, marked = form.querySelectorAll("[data-yours]");
    for (var k = 0; k < marked.length; k++) marked[k].hidden = yours === null;
    if (yours !== null) {
      show("yours_threads", yours.threads, number(yours.threads, 12));
      show("yours_connections", yours.connections,
           yours.connections === null ? "none (no wait)" : number(yours.connections, 12));
      show("yours_capacity", yours.capacity,
           yours.capacity === null ? "unbounded" : number(yours.capacity, 15));
      show("yours_saturation_multiple", yours.saturation_multiple,
           number(yours.saturation_multiple, 3) + "×");
      show("yours_saturation_resource", yours.saturation_resource,
           RESOURCE[yours.saturation_resource]);
      writeLoads("yours_", yours.loads);
    }
    var list = form.querySelector("[data-warnings]");
    list.textContent = "";
    for (var j = 0; j < r.warnings.length; j++) {
      var li = document.createElement("li");
      li.textContent = r.warnings[j];
      list.appendChild(li);
    }
  }

  // ------------------------------------------------------------------------------ a fleet
  var LIMITING = { "instance processors": "the instances' processors",
                   threads: "the threads", pools: "the connection pools",
                   "database processors": "the database's processors",
                   "connection limit": "the database's connection limit" };

  function writeWarnings(list) {
    var ul = form.querySelector("[data-warnings]");
    ul.textContent = "";
    for (var j = 0; j < list.length; j++) {
      var li = document.createElement("li");
      li.textContent = list[j];
      ul.appendChild(li);
    }
  }

  function cell(value, text, isMs) {  // isMs: a time in ms, "< 0.001" below a microsecond
    var td = document.createElement("td");
    if (isMs && value > 0 && value < 0.001) text = "< 0.001";
    td.textContent = text;
    td.setAttribute("data-value", value === null ? "" : String(value));
    return td;
  }

  function writeFleet(r) {
    show("fleet_headroom", r.headroom, number(r.headroom, 4));
    show("instances", r.instances, number(r.instances, 12));
    show("fleet_instances_text", r.instances, number(r.instances, 12));
    show("fleet_connections", r.connections, number(r.connections, 12));
    show("total_connections", r.total_connections, number(r.total_connections, 12));
    show("connection_limit", r.connection_limit, number(r.connection_limit, 12));
    show("fleet_threads", r.threads, number(r.threads, 12));
    show("fleet_capacity", r.capacity, number(r.capacity, 15));
    show("fleet_response_ms", r.response_time * 1000, ms(r.response_time)[1]);
    show("fleet_connection_wait_ms", r.connection_wait * 1000, ms(r.connection_wait)[1]);
    show("fleet_database_ms", r.database_time * 1000, ms(r.database_time)[1]);
    show("database_utilization", r.database_utilization,
         r.inputs.db_processors === null ? "— (no processor limit given)"
                                         : (100 * r.database_utilization).toFixed(1) + " %");
    show("fleet_utilization", r.utilization, (100 * r.utilization).toFixed(1) + " %");
    show("fleet_throughput", r.throughput, number(r.throughput, 4));
    show("fleet_refused", r.refused, r.refused < 1e-3 && r.refused > 0
         ? "< 0.1 %" : (100 * r.refused).toFixed(1) + " % refused");
    show("fleet_saturation_multiple", r.saturation_multiple,
         number(r.saturation_multiple, 3) + "×");
    show("limiting_resource", r.limiting_resource, LIMITING[r.limiting_resource]);
    show("single_connections", r.single_server.connections,
         number(r.single_server.connections, 12));
    show("single_total_connections", r.single_server.total_connections,
         number(r.single_server.total_connections, 12));
    var body = form.querySelector("[data-pools]");
    body.textContent = "";
    r.pools.forEach(function (row) {
      var tr = document.createElement("tr");
      if (row.connections === r.connections) tr.className = "qt-chosen";
      tr.appendChild(cell(row.connections, number(row.connections, 12) +
        (row.connections === r.connections ? " ✓" : "")));
      tr.appendChild(cell(row.total_connections, number(row.total_connections, 12) +
        (row.within_limit ? "" : " > limit")));
      tr.setAttribute("data-within-limit", String(row.within_limit));
      tr.appendChild(cell(row.response_time * 1000, ms(row.response_time, false)[1], true));
      tr.appendChild(cell(row.connection_wait * 1000, ms(row.connection_wait, false)[1], true));
      tr.appendChild(cell(row.database_time * 1000, ms(row.database_time, false)[1], true));
      tr.appendChild(cell(row.database_utilization,
                          (100 * row.database_utilization).toFixed(1) + " %"));
      tr.appendChild(cell(row.ceiling, number(row.ceiling, 4)));
      body.appendChild(tr);
    });
    writeWarnings(r.warnings);
  }

  // Shows the answer of one kind (fleet or a single server) and empties the other's outputs.
  function showKind(fleet) {
    var parts = form.querySelectorAll("[data-fleet], [data-single]");
    for (var i = 0; i < parts.length; i++) {
      var hide = parts[i].hasAttribute("data-fleet") ? !fleet : fleet;
      parts[i].hidden = hide;
      if (!hide) continue;
      var outs = parts[i].querySelectorAll("[data-out]");
      for (var k = 0; k < outs.length; k++) {
        outs[k].textContent = "";
        outs[k].removeAttribute("data-value");
      }
    }
    if (!fleet) form.querySelector("[data-pools]").textContent = "";
  }

  // ---------------------------------------------------------------------------- the chart
  var SVG = "http://www.w3.org/2000/svg";
  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The load multiples the chart draws: 0.1 to 2.5 times the peak.
  var CHART_MULTIPLES = [];
  for (var cm = 1; cm <= 25; cm++) CHART_MULTIPLES.push(cm / 10);

  // Response time (log scale, top panel) and the share refused (bottom panel) against the
  // load as a multiple of the peak, with the ceilings of the processors, the pool and the
  // threads as vertical lines at their multiples of the peak, named in a legend under the
  // chart. The viewBox is as wide as the SVG is on the screen (one unit, one pixel), so that
  // the 12-unit text is drawn at 12 px on a phone as on a desktop; the chart is drawn again
  // when that width changes (a rotated phone, a resized window, the answer shown).
  var chart = { svg: form.querySelector("[data-chart]"), result: null, width: 0 };
  var CHART_TEXT_WIDTH = 7;  // units per character of 12-px text, a generous estimate

  function chartWidth() {
    var w = chart.svg.getBoundingClientRect().width;
    return w > 0 ? Math.round(w) : 640;  // hidden: a desktop's width, redrawn once shown
  }

  function drawChart(r) {
    var svg = chart.svg;
    chart.result = r;
    svg.textContent = "";
    var W = chartWidth();
    chart.width = W;
    var left = 64, right = 24, top = 16, mid = 200, gap = 30, bottom = 300;
    var open = r.inputs.arrival_rate !== null, xMax = 2.5;
    var points = CHART_MULTIPLES.map(function (m) {
      var load = open ? [m * r.inputs.arrival_rate, null]
                      : [null, Math.ceil(m * r.inputs.clients - 1e-9)];
      var st = S.measure(r.holders, r.threads, r.capacity, load[0], load[1],
                         r.inputs.think_time);
      return [m, st.response_time * 1000, st.refused];
    });
    var finite = points.filter(function (p) { return isFinite(p[1]) && p[1] > 0; });
    var lo = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null,
      finite.map(function (p) { return p[1]; })))));
    var hi = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null,
      finite.map(function (p) { return p[1]; })) * 1.01)));
    if (hi <= lo) hi = lo * 10;
    var sx = function (x) { return left + (W - left - right) * x / xMax; };
    var sy = function (y) {
      return mid - (mid - top) * (Math.log10(y) - Math.log10(lo)) /
        (Math.log10(hi) - Math.log10(lo));
    };
    var r0 = mid + gap;
    var sr = function (f) { return bottom - (bottom - r0) * f; };
    [[top, mid], [r0, bottom]].forEach(function (panel) {
      svg.appendChild(el("line", { x1: left, y1: panel[1], x2: W - right, y2: panel[1],
                                   "class": "qt-axis" }));
      svg.appendChild(el("line", { x1: left, y1: panel[0], x2: left, y2: panel[1],
                                   "class": "qt-axis" }));
    });
    for (var d = lo; d <= hi * 1.0001; d *= 10) {
      svg.appendChild(el("text", { x: left - 6, y: sy(d) + 4, "text-anchor": "end" },
                         number(d, 3)));
    }
    [0, 0.5, 1].forEach(function (f) {
      svg.appendChild(el("text", { x: left - 6, y: sr(f) + 4, "text-anchor": "end" },
                         (100 * f).toFixed(0) + " %"));
    });
    // every tick on a wide chart, every other one (0, 1, 2) on a narrow one
    var step = (W - left - right) / 5 < 36 ? 2 : 1;
    for (var t = 0; t <= 5; t += step) {
      svg.appendChild(el("text", { x: sx(t / 2), y: bottom + 16, "text-anchor": "middle" },
                         (t / 2) + "×"));
    }
    svg.appendChild(el("text", { x: (left + W - right) / 2, y: bottom + 36,
                                 "text-anchor": "middle" }, "load, × the peak"));
    svg.appendChild(el("text", { x: 14, y: (top + mid) / 2, "text-anchor": "middle",
                                 transform: "rotate(-90 14 " + (top + mid) / 2 + ")" },
                       "mean response (ms)"));
    svg.appendChild(el("text", { x: 14, y: (r0 + bottom) / 2, "text-anchor": "middle",
                                 transform: "rotate(-90 14 " + (r0 + bottom) / 2 + ")" },
                       "refused"));
    var ceilings = [["processor", "processors", r.processor_limit / r.peak],
                    ["pool", "pool", r.pool_limit === null ? null : r.pool_limit / r.peak],
                    ["threads", "threads", r.saturation_multiple]];
    // the legend: one entry per ceiling drawn, in rows as wide as the chart
    var lx = left, ly = bottom + 60;
    ceilings.forEach(function (c) {
      if (c[2] === null || c[2] > xMax) return;
      var x = sx(c[2]);
      svg.appendChild(el("line", { x1: x, y1: top, x2: x, y2: bottom,
                                   "class": "qt-ceiling " + c[0] }));
      var label = c[1] + " " + number(c[2], 3) + "×";
      var width = 28 + label.length * CHART_TEXT_WIDTH;
      if (lx > left && lx + width > W - 4) { lx = left; ly += 18; }
      svg.appendChild(el("line", { x1: lx, y1: ly - 4, x2: lx + 22, y2: ly - 4,
                                   "class": "qt-ceiling " + c[0] }));
      svg.appendChild(el("text", { x: lx + 26, y: ly }, label));
      lx += width + 12;
    });
    svg.setAttribute("viewBox", "0 0 " + W + " " + (ly + 8));
    var response = finite.map(function (p, i) {
      return (i ? "L" : "M") + sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1);
    }).join(" ");
    svg.appendChild(el("path", { d: response, "class": "qt-curve" }));
    var refused = points.map(function (p, i) {
      return (i ? "L" : "M") + sx(p[0]).toFixed(1) + "," + sr(p[2]).toFixed(1);
    }).join(" ");
    svg.appendChild(el("path", { d: refused, "class": "qt-curve", "stroke-dasharray": "5 3" }));
    var atOne = points[9], atTwo = points[19];
    svg.setAttribute("aria-label", "Mean response time and share refused against the load, " +
      "0.1 to 2.5 times the peak, with the recommended settings: " + ms(atOne[1] / 1000)[1] +
      " and " + (100 * atOne[2]).toFixed(1) + " % refused at the peak, " +
      ms(atTwo[1] / 1000)[1] + " and " + (100 * atTwo[2]).toFixed(1) + " % refused at " +
      "twice the peak; the server saturates at " + number(r.saturation_multiple, 3) +
      " times the peak (" + RESOURCE[r.saturation_resource] + "); ceilings: processors at " +
      number(r.processor_limit / r.peak, 3) + "×" + (r.pool_limit === null ? "" :
      ", pool at " + number(r.pool_limit / r.peak, 3) + "×") + ".");
    form.querySelector("[data-chart-caption]").textContent =
      "Mean response time (top, log scale) and share refused (bottom, dashed) with the " +
      "recommended settings (T = " + r.threads + ", B = " + r.capacity + ") against the " +
      "load as a multiple of the peak; the vertical lines are where the processors, the " +
      "pool and the threads saturate.";
  }

  function redrawChart() {
    if (chart.result !== null && chartWidth() !== chart.width) drawChart(chart.result);
  }
  if (window.ResizeObserver) new ResizeObserver(redrawChart).observe(chart.svg);
  window.addEventListener("resize", redrawChart);

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
    form.querySelector("[data-pools]").textContent = "";
  }

  // A fleet's sizing takes the page a second or more (its fixed point over the instances), so
  // while the reader types in a fleet, the page answers after a pause of typing instead of
  // at each keystroke, and says so; a single server answers at each keystroke.
  var PAUSE_MS = 400;
  var pending = null;
  function fleetFieldsFilled() {
    return FLEET_FIELDS.some(function (n) { return form.elements[n].value.trim() !== ""; });
  }
  function onInput() {
    if (pending !== null) clearTimeout(pending);
    pending = null;
    if (!fleetFieldsFilled()) { update(); return; }
    form.setAttribute("aria-busy", "true");
    pending = setTimeout(update, PAUSE_MS);
  }

  function update() {
    if (pending !== null) clearTimeout(pending);
    pending = null;
    form.removeAttribute("aria-busy");
    var started = performance.now();
    var got = read();
    if (got.errors.length) {
      got.errors.forEach(function (e) {
        form.elements[e[0]].setAttribute("aria-invalid", "true");
      });
      refuse(got.errors.map(function (e) { return e[1]; }));
    } else {
      try {
        var r;
        if (got.fleet) {
          r = window.QueuetuneFleet.sizeFleet(fleetInputsOf(got.values));
          showKind(true);
          writeFleet(r);
          // the settings of one instance: its pool, threads and bound (Hikari, Spring, Tomcat)
          var texts = window.QueuetuneSnippets.texts({
            threads: r.threads, capacity: r.capacity, connections: r.connections,
            connections_given: false, max_response_time: r.max_response_time });
          for (var key in texts) {
            var pre = form.querySelector("[data-snippet='" + key + "']");
            if (pre) pre.textContent = texts[key];
          }
        } else {
          r = S.size(inputsOf(got.values));
          showKind(false);
          writeOutputs(r);
          drawChart(r);
          writeSnippets(r);
        }
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
  form.addEventListener("input", onInput);
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
