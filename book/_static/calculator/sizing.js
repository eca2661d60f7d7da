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
    connections: [1, 1e5], threads: [1, 1e5], max_response_time: [1e-6, 3.6e3]
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
  function erlangCConnections(load, tolerance) {
    if (load >= LIMITS.connections[1]) {
      throw new SizingError("the peak keeps about " + load.toFixed(0) + " connections busy, " +
        "more than the " + LIMITS.connections[1] + " pools this sizing covers");
    }
    var b = 1, c = 0;
    for (;;) {
      c += 1;
      b = load * b / (c + load * b);
      if (c > load) {
        var waits = c * b / (c - load * (1 - b));
        if (waits / (c - load) <= tolerance) return c;
      }
      if (c >= LIMITS.connections[1]) {
        throw new SizingError("the peak needs a pool of more than " + c +
          " connections, the largest this sizing covers");
      }
    }
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
        if (first > LIMITS.threads[1]) throw tooManyThreads("answering the peak");
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
      if (lo > LIMITS.threads[1]) throw tooManyThreads("answering the peak in time");
    }
    if (K !== null) hi = Math.min(hi, K);
    while (hi - lo > 1) {
      var mid = Math.floor((lo + hi) / 2);
      if (within(mid)) hi = mid; else lo = mid;
    }
    if (hi > LIMITS.threads[1]) throw tooManyThreads("answering the peak in time");
    return hi;
  }

  function settings(p, sc, sw, C, rate, K, Z, rMax, target, share, tol) {
    var peak = rate !== null ? rate : K / (Z + sc + sw);
    var needed = Math.max(1, Math.ceil(peak * sc / target));
    if (C === null && sw > 0) C = erlangCConnections(peak * sw, tol);
    var h = new Holders(p, sc, sw, C);
    var tSat = saturationThreads(h, share);
    var tPeak = peakThreads(h, rate, K, Z, tol);
    var T = Math.max(tSat, tPeak || 0);
    var B = Math.max(T, Math.ceil(rMax * h.at(T) - 1e-9));
    return { peak: peak, processors_needed: needed, connections: C, holders: h,
             saturation_threads: tSat, peak_threads: tPeak, threads: T, capacity: B };
  }

  function percent(x) { return (100 * x).toFixed(1) + "%"; }
  function g4(x) { return Number(x.toPrecision(4)).toString(); }

  function warningsOf(p, sw, plan, atPeak, dbl) {
    var notes = [], peak = plan.peak, h = plan.holders;
    if (p < plan.processors_needed) {
      notes.push(p + " processors are fewer than the " + plan.processors_needed +
                 " the peak needs");
    }
    if (plan.connections !== null && sw > 0 && plan.connections / sw < peak) {
      notes.push("a pool of " + plan.connections + " connections completes at most " +
                 g4(plan.connections / sw) + " requests/s, below the peak of " + g4(peak));
    }
    if (peak >= h.limit) {
      notes.push("the peak of " + g4(peak) + " requests/s is more than the server can " +
                 "complete (" + g4(h.limit) + "/s): " + percent(atPeak.refused) +
                 " of the requests are refused");
    } else if (atPeak.refused > 0.01) {
      notes.push(percent(atPeak.refused) + " of the requests are refused at the peak");
    }
    if (dbl.error) notes.push("twice the peak: " + dbl.error);
    else if (dbl.refused > 0.01) {
      notes.push("at twice the peak " + percent(dbl.refused) + " of the requests are " +
                 "refused with these settings");
    }
    return notes;
  }

  // Inputs in SI units, already checked (see check()). Returns the JSON of the Python sizing.
  function size(inp) {
    var p = inp.processors, sc = inp.cpu_time, sw = inp.wait_time;
    var rate = inp.arrival_rate === undefined ? null : inp.arrival_rate;
    var K = inp.clients === undefined ? null : inp.clients;
    var Z = inp.think_time === undefined ? null : inp.think_time;
    var C = inp.connections === undefined ? null : inp.connections;
    var S = sc + sw;
    var rMax = (inp.max_response_time === undefined || inp.max_response_time === null)
      ? 10 * S : inp.max_response_time;
    var target = inp.target_utilization || 0.7, share = inp.busy_share || 0.95;
    var tol = inp.tolerance || 0.1;
    var plan = settings(p, sc, sw, C, rate, K, Z, rMax, target, share, tol);
    var h = plan.holders;
    var atPeak = measure(h, plan.threads, plan.capacity, rate, K, Z);
    var atDouble = measure(h, plan.threads, plan.capacity, rate === null ? null : 2 * rate,
                           K === null ? null : 2 * K, Z);
    var dbl = { processors_needed: null, threads: null, connections: null, capacity: null,
                throughput: atDouble.throughput, response_time: atDouble.response_time,
                utilization: atDouble.utilization, refused: atDouble.refused, error: null };
    try {
      var twice = settings(p, sc, sw, C, rate === null ? null : 2 * rate,
                           K === null ? null : 2 * K, Z, rMax, target, share, tol);
      dbl.processors_needed = twice.processors_needed; dbl.threads = twice.threads;
      dbl.connections = twice.connections; dbl.capacity = twice.capacity;
    } catch (e) {
      if (!(e instanceof SizingError)) throw e;
      dbl.error = e.message;
    }
    return {
      inputs: { processors: p, cpu_time: sc, wait_time: sw, arrival_rate: rate, clients: K,
                think_time: Z, connections: C, max_response_time: rMax,
                target_utilization: target, busy_share: share, tolerance: tol },
      processors_needed: plan.processors_needed, threads: plan.threads,
      connections: plan.connections, capacity: plan.capacity,
      throughput: atPeak.throughput, response_time: atPeak.response_time,
      utilization: atPeak.utilization, refused: atPeak.refused,
      processor_limit: p / sc,
      pool_limit: (plan.connections === null || sw === 0) ? null : plan.connections / sw,
      thread_limit: h.at(plan.threads), peak: plan.peak,
      saturation_threads: plan.saturation_threads, peak_threads: plan.peak_threads,
      double: dbl, warnings: warningsOf(p, sw, plan, atPeak, dbl),
      holders: h
    };
  }

  var api = { LIMITS: LIMITS, SizingError: SizingError, Holders: Holders, size: size,
              measure: measure, erlangCConnections: erlangCConnections, geometric: geometric };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.QueuetuneSizing = api;
})(this);
