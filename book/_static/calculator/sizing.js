/* queuetune sizing, in the browser: the same computation as src/queuetune/sizing.py, step by
 * step (the flow-equivalent server of the thread holders, the birth-death chain of admitted
 * requests, the sizing procedure). Read the Python module's docstring for the definitions;
 * tests/site/test_calculator.py holds the two to 1e-6 relative on random inputs.
 * No library: Pyodide could not load NumPy offline, and the arithmetic is a few loops. */
(function (root) {
  "use strict";

  var LIMITS = {
    processors: [1, 4096], cpu_time: [1e-6, 1e3], wait_time: [1e-6, 1e3],
    arrival_rate: [1e-6, 1e7], clients: [1, 1e5], think_time: [0, 1e5],
    connections: [1, 1e5], threads: [1, 1e5], max_response_time: [1e-6, 3.6e3],
    read_timeout: [1e-6, 3.6e3], p99_objective: [1e-6, 3.6e3], capacity: [1, 1e12],
    headroom: [1, 10]
  };
  var TRIM = 1e-30, CONVERGED = 1e-13, TAIL = 1e-16, MAX_WORK = 5e8, MAX_HOLDERS = 4e6;
  var STEP_WORK = 1250, RECURRENCE_WORK = 25;  // the Python's units of work (sizing.py)

  function SizingError(message) { this.name = "SizingError"; this.message = message; }
  SizingError.prototype = Object.create(Error.prototype);

  // ------------------------------------------------------------------ thread holders (def. 1)
  function Holders(p, sc, sw, C) {
    this.p = p; this.sc = sc; this.sw = sw; this.C = C;
    var poolLimit = (C === null || sw === 0) ? Infinity : C / sw;
    this.limit = Math.min(p / sc, poolLimit);
    this.values = [0];
    this.converged = null;
    this.work = 0;
    this.pi = new Float64Array([1]);
    this.lo = 0;
    this.poolRatio = new Float64Array(0);
  }

  Holders.prototype.at = function (m) {
    while (this.values.length <= m && this.converged === null) this.step();
    return this.values[Math.min(m, this.values.length - 1)];
  };

  Holders.prototype.untilConverged = function (cap) {
    while (this.converged === null && this.values.length <= cap) this.step();
    return this.converged !== null ? this.converged : cap;
  };

  Holders.prototype.step = function () {
    var m = this.values.length - 1, x;
    if (m + 1 > MAX_HOLDERS) {
      throw new SizingError("the thread holders' throughput has not converged after " +
        MAX_HOLDERS + " holders: give threads or connections");
    }
    if (this.sw === 0) {
      x = Math.min(m + 1, this.p) / this.sc;
    } else if (this.C !== null && m >= this.p + this.C) {
      var ra = this.sc / this.p, rb = this.sw / this.C;
      x = 1 / (ra + rb - ra * rb * this.values[this.values.length - 1]);
      this.work += RECURRENCE_WORK;
    } else {
      x = this.windowStep(m);
    }
    this.values.push(x);
    if (x >= (1 - CONVERGED) * this.limit) this.converged = m + 1;
  };

  Holders.prototype.windowStep = function (m) {
    var pi = this.pi, lo = this.lo, k = pi.length, top = m + 1 - lo;
    while (this.poolRatio.length <= top) this.extendPoolRatio();
    var q = new Float64Array(k + 1), total = 0, i;
    for (i = 0; i < k; i++) q[i] = pi[i] * this.poolRatio[top - i];
    q[k] = pi[k - 1] * (this.sc / Math.min(lo + k, this.p));
    for (i = 0; i <= k; i++) total += q[i];
    var scale = 1 / total;
    for (i = 0; i <= k; i++) q[i] *= scale;
    var first = 0, last = k;
    while (q[first] < TRIM) first++;
    while (q[last] < TRIM) last--;
    this.pi = q.subarray(first, last + 1);
    this.lo = lo + first;
    this.work += k + 1 + STEP_WORK;
    if (this.work > MAX_WORK) {
      throw new SizingError("the thread holders' throughput needs more than an estimated " +
        "10 s (beyond " + m + " holders): give fewer threads or connections");
    }
    return 1 / total;
  };

  Holders.prototype.extendPoolRatio = function () {
    var n = Math.max(64, 2 * this.poolRatio.length), r = new Float64Array(n);
    for (var w = 0; w < n; w++) {
      var servers = w === 0 ? 1 : (this.C === null ? w : Math.min(w, this.C));
      r[w] = this.sw / servers;
    }
    this.poolRatio = r;
  };

  // ------------------------------------------------------------ admitted requests (def. 2)
  function state(throughput, response, utilization, refused, admitted, stable) {
    return { throughput: throughput, response_time: response, utilization: utilization,
             refused: refused, admitted: admitted, stable: stable !== false };
  }

  function weight(shifted) { return shifted > -700 ? Math.exp(shifted) : 0; }

  function geometric(x, n) {  // [log S0, S1/S0] of sum_{j=0}^{n} r^j, x = log r
    if (n === 0) return [0, 0];
    if (n === Infinity) return [-Math.log(-Math.expm1(x)), 1 / Math.expm1(-x)];
    if (Math.abs(x) * (n + 1) < 1e-4) {
      return [Math.log(n + 1) + x * n / 2 + x * x * n * (n + 2) / 24,
              n / 2 + x * n * (n + 2) / 12];
    }
    if (x > 0) {
      var g = geometric(-x, n);
      return [n * x + g[0], n - g[1]];
    }
    var logS0 = Math.log(-Math.expm1((n + 1) * x)) - Math.log(-Math.expm1(x));
    var far = -(n + 1) * x > 700;
    return [logS0, 1 / Math.expm1(-x) - (far ? 0 : (n + 1) / Math.expm1(-(n + 1) * x))];
  }

  function openCut(h, rate, B) {
    var n = 0, total = 1, logW = 0, scale = 0;
    var limit = B !== null ? B : MAX_HOLDERS;
    while (n < limit) {
      n += 1;
      var x = h.at(n);
      logW += Math.log(rate / x);
      if (logW - scale > 600) { total *= Math.exp(scale - logW); scale = logW; }
      var w = Math.exp(logW - scale);
      total += w;
      if (h.converged !== null && n >= h.converged) return n;
      var r = rate / x;
      if (r < 1 && w * r / (1 - r) <= TAIL * total) return n;
    }
    return limit;
  }

  function solveOpen(h, T, B, rate) {
    if (T === null) T = openCut(h, rate, B);
    var n0 = B === null ? T : Math.min(T, B);
    var topRate = h.at(T);
    if (B === null && rate >= topRate) {
      return state(topRate, Infinity, topRate * h.sc / h.p, 0, Infinity, false);
    }
    var lw = new Float64Array(n0 + 1), n;
    for (n = 1; n <= n0; n++) lw[n] = lw[n - 1] + Math.log(rate / h.at(n));
    var logR = Math.log(rate / topRate);
    var tail = B === null ? Infinity : B - n0;
    var g = geometric(logR, tail);
    var block = lw[n0] + g[0], top = block;
    for (n = 0; n < n0; n++) if (lw[n] > top) top = lw[n];
    var total = 0, first = 0;
    for (n = 0; n < n0; n++) {
      var w = weight(lw[n] - top);
      total += w; first += n * w;
    }
    var wb = Math.exp(block - top);
    total += wb;
    var admitted = (first + wb * (n0 + g[1])) / total;
    var refused = B === null ? 0 : Math.exp(lw[n0] + tail * logR - top) / total;
    var throughput = rate * (1 - refused);
    return state(throughput, admitted / throughput, throughput * h.sc / h.p, refused, admitted);
  }

  function solveClosed(h, T, capacity, K, Z) {
    var B = capacity === null ? K : Math.min(capacity, K);
    if (T === null) T = Math.min(h.untilConverged(B), B);
    if (Z === 0) {
      var x0 = h.at(Math.min(B, T));
      return state(x0, B / x0, x0 * h.sc / h.p, K > B ? 1 : 0, B);
    }
    h.at(Math.min(T, B));
    var lw = new Float64Array(B + 1), n, top = 0;
    for (n = 1; n <= B; n++) {
      lw[n] = lw[n - 1] + (Math.log((K - (n - 1)) / Z) - Math.log(h.at(Math.min(n, T))));
      if (lw[n] > top) top = lw[n];
    }
    var total = 0, served = 0, admitted = 0, sent = 0, w = 0;
    for (n = 0; n <= B; n++) {
      w = weight(lw[n] - top);
      total += w;
      served += w * (n === 0 ? 0 : h.at(Math.min(n, T)));
      admitted += w * n;
      sent += w * (K - n);
    }
    var throughput = served / total;
    var refused = B === K ? 0 : w * (K - B) / sent;
    admitted /= total;
    return state(throughput, admitted / throughput, throughput * h.sc / h.p, refused, admitted);
  }

  function measure(h, T, B, rate, K, Z) {
    return rate !== null ? solveOpen(h, T, B, rate) : solveClosed(h, T, B, K, Z);
  }

  // ------------------------------------------------------------------- the sizing (def. 3)
  var HEADROOM = 1.5, MULTIPLES = [1, 1.1, 1.5, 2], DEFAULT_READ_TIMEOUT = 60;
  var ORIGINS = {
    max_response_time: "given as the longest acceptable response time",
    p99_objective: "the p99 objective",
    read_timeout: "the read timeout of the client or proxy",
    "default": "no timeout given: nginx's default proxy_read_timeout of 60 s"
  };

  function erlangCServers(load, tolerance, what) {
    var top = LIMITS.connections[1];
    what = what || "connections";
    if (load >= top) {
      throw new SizingError("the load keeps about " + load.toFixed(0) + " " + what +
        " busy, more than the " + top + " this sizing covers: split the load");
    }
    var b = 1, c = 0;
    for (;;) {
      c += 1;
      b = load * b / (c + load * b);
      if (c > load) {
        var waits = c * b / (c - load * (1 - b));
        if (waits / (c - load) <= tolerance) return c;
      }
      if (c >= top) {
        throw new SizingError("the load needs more than " + c + " " + what +
          ", the most this sizing covers: split the load");
      }
    }
  }

  function erlangCConnections(load, tolerance) {
    return erlangCServers(load, tolerance, "connections");
  }

  // The q-quantile of s_c + s_w alone (both exponential, no queueing): sizing.service_quantile.
  function serviceQuantile(sc, sw, q) {
    var a = Math.max(sc, sw), b = Math.min(sc, sw), target = 1 - q;
    function tail(t) {
      if (b === 0) return Math.exp(-t / a);
      if (a - b <= 1e-6 * a) {
        var m = (a + b) / 2;
        return (1 + t / m) * Math.exp(-t / m);
      }
      return (a * Math.exp(-t / a) - b * Math.exp(-t / b)) / (a - b);
    }
    var lo = 0, hi = a + b;
    while (tail(hi) > target) { lo = hi; hi = 2 * hi; }
    while (hi - lo > 1e-12 * hi) {
      var mid = (lo + hi) / 2;
      if (tail(mid) > target) lo = mid; else hi = mid;
    }
    return hi;
  }

  function tooManyThreads(what) {
    return new SizingError(what + " needs more than " + LIMITS.threads[1] + " threads, the " +
      "most this sizing covers: give more processors or connections, or split the load");
  }

  function saturationThreads(h, share) {
    var goal = share * h.limit, m = 1;
    while (h.at(m) < goal) {
      m += 1;
      if (m > LIMITS.threads[1]) throw tooManyThreads("keeping the server busy");
    }
    return m;
  }

  function peakThreads(h, rate, K, Z, tol) {
    var goal, first = 1, within;
    if (rate !== null) {
      if (rate >= h.limit) return null;
      goal = (1 + tol) * solveOpen(h, null, null, rate).response_time;
      while (h.at(first) <= rate) {
        first += 1;
        if (first > LIMITS.threads[1]) throw tooManyThreads("answering the load");
      }
      within = function (t) { return solveOpen(h, t, null, rate).response_time <= goal; };
    } else {
      goal = (1 + tol) * solveClosed(h, null, K, K, Z).response_time;
      within = function (t) { return solveClosed(h, t, K, K, Z).response_time <= goal; };
    }
    if (within(first)) return first;
    var lo = first, hi = 2 * first;
    while (!within(K === null ? hi : Math.min(hi, K))) {
      lo = hi; hi = 2 * hi;
      if (lo > LIMITS.threads[1]) throw tooManyThreads("answering the load in time");
    }
    if (K !== null) hi = Math.min(hi, K);
    while (hi - lo > 1) {
      var mid = Math.floor((lo + hi) / 2);
      if (within(mid)) hi = mid; else lo = mid;
    }
    if (hi > LIMITS.threads[1]) throw tooManyThreads("answering the load in time");
    return hi;
  }

  function ceil9(x) { return Math.ceil(x - 1e-9); }

  // The load at `multiple` times the peak: [rate, clients].
  function scaled(rate, K, multiple) {
    return rate !== null ? [multiple * rate, null] : [null, ceil9(multiple * K)];
  }

  function settings(p, sc, sw, C, rate, K, Z, rMax, headroom, share, tol, target) {
    var peak = rate !== null ? rate : K / (Z + sc + sw), needed;
    if (target === null) {
      needed = erlangCServers(headroom * peak * sc, tol * (sc + sw) / sc, "processors");
    } else {
      needed = Math.max(1, Math.ceil(peak * sc / target));
    }
    var sizedPool = C === null && sw > 0;
    if (sizedPool) C = erlangCConnections(headroom * peak * sw, tol);
    var h = new Holders(p, sc, sw, C);
    var tSat = saturationThreads(h, share);
    var load = scaled(rate, K, headroom);
    var tPeak = peakThreads(h, load[0], load[1], Z, tol);
    var T = Math.max(tSat, tPeak || 0);
    if (sizedPool && C > T) {
      C = T;
      h = new Holders(p, sc, sw, C);
    }
    var B = Math.max(T, ceil9(rMax * h.at(T)));
    return { peak: peak, processors_needed: needed, target: target, connections: C,
             holders: h, saturation_threads: tSat, peak_threads: tPeak, threads: T,
             capacity: B };
  }

  function row(h, T, B, rate, K, Z, multiple) {
    var load = scaled(rate, K, multiple), st = measure(h, T, B, load[0], load[1], Z);
    return { multiple: multiple, arrival_rate: load[0], clients: load[1],
             throughput: st.throughput, response_time: st.response_time,
             response_time_p95: null, response_time_p99: null,
             utilization: st.utilization, refused: st.refused };
  }

  function rows(h, T, B, rate, K, Z) {
    return MULTIPLES.map(function (m) { return row(h, T, B, rate, K, Z, m); });
  }

  function saturation(h, T, peak, share) {
    var ceiling = h.at(T);
    var busy = { processors: ceiling * h.sc / h.p,
                 pool: (h.C === null || h.sw === 0) ? 0 : ceiling * h.sw / h.C };
    var resource = busy.pool > busy.processors ? "pool" : "processors";
    if (busy[resource] < share * (1 - 1e-9)) resource = "threads";
    return [ceiling / peak, resource];
  }

  function longest(inp) {
    var given = { max_response_time: inp.max_response_time, read_timeout: inp.read_timeout,
                  p99_objective: inp.p99_objective };
    for (var key in given) if (given[key] === undefined) given[key] = null;
    var order = ["max_response_time", "p99_objective", "read_timeout"];
    for (var i = 0; i < order.length; i++) {
      if (given[order[i]] !== null) return [given[order[i]], order[i], given];
    }
    return [DEFAULT_READ_TIMEOUT, "default", given];
  }

  function yoursOf(p, sc, sw, C, plan, T, B, rate, K, Z, share) {
    var pool = C !== null ? C : plan.connections;
    var h = new Holders(p, sc, sw, pool);
    var sat = saturation(h, T, plan.peak, share);
    return { threads: T, connections: pool, capacity: B, thread_limit: h.at(T),
             saturation_multiple: sat[0], saturation_resource: sat[1],
             loads: rows(h, T, B, rate, K, Z), holders: h };
  }

  function objectiveOf(sc, sw, p99) {
    var floor = serviceQuantile(sc, sw, 0.99), fails = floor > p99;
    return { p99_objective: p99, service_p99: floor, met: fails ? false : null,
             prevented_by: fails ? "the service time itself" : null };
  }

  function percent(x) { return (100 * x).toFixed(1) + "%"; }
  function g4(x) { return Number(x.toPrecision(4)).toString(); }
  function ms(x) { return g4(1000 * x) + " ms"; }

  function warningsOf(p, sc, sw, headroom, plan, atPeak, multiple, resource, yours, objective,
                      givenPool) {
    var notes = [], peak = plan.peak, h = plan.holders;
    if (p < plan.processors_needed) {
      var are = p > 1 ? "processors are" : "processor is";
      notes.push(plan.target === null
        ? p + " " + are + " fewer than the " + plan.processors_needed + " that carry " +
          g4(headroom) + "× the peak"
        : p + " " + are + " fewer than the " + plan.processors_needed + " that keep under " +
          g4(100 * plan.target) + " % busy at the peak");
    }
    var poolLimit = (plan.connections === null || sw === 0) ? Infinity : plan.connections / sw;
    if (poolLimit < peak && poolLimit < p / sc) {
      notes.push("a pool of " + plan.connections +
                 (plan.connections === 1 ? " connection" : " connections") + " completes at most " +
                 g4(plan.connections / sw) + " requests/s, below the peak of " + g4(peak));
    }
    if (givenPool !== null && givenPool > plan.threads) {
      notes.push("your pool of " + givenPool + " connections is larger than the " +
                 plan.threads + " threads recommended: at most " + plan.threads +
                 " can be in use");
    }
    if (peak >= h.limit) {
      var then = atPeak.refused > 0.0005
        ? percent(atPeak.refused) + " of the requests are refused"
        : "the clients wait longer and send less";
      notes.push("the peak of " + g4(peak) + " requests/s is more than the server can " +
                 "complete (" + g4(h.limit) + "/s): " + then);
    } else if (atPeak.refused > 0.01) {
      notes.push(percent(atPeak.refused) + " of the requests are refused at the peak");
    }
    if (multiple < headroom) {
      notes.push("these settings saturate at " + g4(multiple) + "× the peak (" + resource +
                 "), below the headroom of " + g4(headroom) + "×");
    }
    if (yours !== null) {
      notes.push("your settings (T = " + yours.threads + ") saturate at " +
                 g4(yours.saturation_multiple) + "× the peak (" + yours.saturation_resource +
                 ")");
      if (yours.connections !== null && yours.connections > yours.threads) {
        notes.push("your pool of " + yours.connections + " connections is larger than your " +
                   yours.threads + " threads: at most " + yours.threads + " can be in use");
      }
    }
    if (plan.origin === "default") {
      notes.push("no read timeout and no p99 objective given: B lets an admitted request " +
                 "wait up to " + g4(DEFAULT_READ_TIMEOUT) + " s under overload (nginx's " +
                 "default proxy_read_timeout); give yours to bound it");
    }
    if (objective !== null && objective.met === false) {
      notes.push("the p99 objective of " + ms(objective.p99_objective) + " cannot be met: " +
                 "the service alone takes " + ms(objective.service_p99) + " at p99, with " +
                 "no queueing");
    }
    return notes;
  }

  function opt(x) { return x === undefined ? null : x; }

  // Inputs in SI units, already checked by the page. Returns the JSON of the Python sizing.
  function size(inp) {
    var p = inp.processors, sc = inp.cpu_time, sw = inp.wait_time;
    var rate = opt(inp.arrival_rate), K = opt(inp.clients), Z = opt(inp.think_time);
    var C = opt(inp.connections), Tu = opt(inp.threads), Bu = opt(inp.capacity);
    if (Bu !== null && Tu === null) {
      throw new SizingError("capacity (your bound on admitted requests) goes with threads " +
        "(your maxThreads): give both, or neither");
    }
    if (Bu !== null && Bu < Tu) {
      throw new SizingError("capacity must be at least the threads given (" + Tu + "): the " +
        "admitted requests include those holding a thread, got " + Bu);
    }
    var headroom = opt(inp.headroom) === null ? HEADROOM : inp.headroom;
    var bound = longest(inp), rMax = bound[0];
    var target = opt(inp.target_utilization);
    var share = inp.busy_share || 0.95, tol = inp.tolerance || 0.1;
    var plan = settings(p, sc, sw, C, rate, K, Z, rMax, headroom, share, tol, target);
    plan.origin = bound[1];
    var h = plan.holders;
    var loads = rows(h, plan.threads, plan.capacity, rate, K, Z), atPeak = loads[0];
    var sat = saturation(h, plan.threads, plan.peak, share);
    var yours = Tu === null ? null : yoursOf(p, sc, sw, C, plan, Tu, Bu, rate, K, Z, share);
    var objective = bound[2].p99_objective === null ? null
      : objectiveOf(sc, sw, bound[2].p99_objective);
    return {
      inputs: { processors: p, cpu_time: sc, wait_time: sw, arrival_rate: rate, clients: K,
                think_time: Z, connections: C, threads: Tu, capacity: Bu, headroom: headroom,
                max_response_time: bound[2].max_response_time,
                read_timeout: bound[2].read_timeout, p99_objective: bound[2].p99_objective,
                target_utilization: target, busy_share: share, tolerance: tol },
      headroom: headroom,
      processors_needed: plan.processors_needed, threads: plan.threads,
      connections: plan.connections, capacity: plan.capacity,
      throughput: atPeak.throughput, response_time: atPeak.response_time,
      response_time_p95: atPeak.response_time_p95, response_time_p99: atPeak.response_time_p99,
      utilization: atPeak.utilization, refused: atPeak.refused,
      processor_limit: p / sc,
      pool_limit: (plan.connections === null || sw === 0) ? null : plan.connections / sw,
      thread_limit: h.at(plan.threads), peak: plan.peak,
      saturation_multiple: sat[0], saturation_resource: sat[1],
      saturation_threads: plan.saturation_threads, peak_threads: plan.peak_threads,
      max_response_time: rMax, max_response_origin: bound[1], origin_text: ORIGINS[bound[1]],
      loads: loads, double: loads[MULTIPLES.indexOf(2)], yours: yours, objective: objective,
      warnings: warningsOf(p, sc, sw, headroom, plan, atPeak, sat[0], sat[1], yours,
                           objective, C),
      holders: h
    };
  }

  var api = { LIMITS: LIMITS, SizingError: SizingError, Holders: Holders, size: size,
              measure: measure, erlangCConnections: erlangCConnections,
              erlangCServers: erlangCServers, serviceQuantile: serviceQuantile,
              geometric: geometric, MULTIPLES: MULTIPLES, HEADROOM: HEADROOM,
              ORIGINS: ORIGINS };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.QueuetuneSizing = api;
})(this);
