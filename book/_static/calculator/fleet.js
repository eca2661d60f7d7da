/* queuetune fleet sizing, in the browser: the same computation as
 * src/queuetune/fleet_sizing.py (size_fleet) and the approximation it evaluates,
 * src/queuetune/models/fleet.py's method="fes" (the fixed point of flow-equivalent servers),
 * step by step; read those modules' docstrings for the model and the steps.
 * tests/site/test_calculator_fleet.py holds the two to 1e-6 relative on random inputs.
 * Function names follow the Python's (_Database -> Database, _instance -> instance, ...).
 * NumPy's pairwise sums are plain sums here: they differ at rounding level, far below 1e-6.
 * Needs sizing.js (QueuetuneSizing: size, erlangCServers, brentq, SizingError). */
(function (root) {
  "use strict";
  var S = root.QueuetuneSizing;
  var SizingError = S.SizingError;

  var DB_MAX_CONNECTIONS = 100, DB_RESERVED_CONNECTIONS = 3, POOL_GRID = 16, OVERLOAD = 10;
  var FLEET_MAX_INSTANCES = 4096, FLEET_FES_MAX_HOLDERS = 5000, DB_TRIM = 1e-40;
  var FIXED_POINT_RTOL = 1e-12, CLOSED_CONVOLUTION_WORK = 20000000, MAXITER = 100;

  // ------------------------------------------------------------------------ small helpers
  function arange(n) { var a = new Float64Array(n); for (var i = 0; i < n; i++) a[i] = i; return a; }
  function sum(a, lo, hi) {
    var s = 0; lo = lo || 0; hi = hi === undefined ? a.length : hi;
    for (var i = lo; i < hi; i++) s += a[i];
    return s;
  }
  // log Gamma(x) for x = a whole number >= 1 (the Python's gammaln(k + 1)): sums of logs
  // below 64, Stirling's series above (its first omitted term is below 1e-19 there).
  var LOG_FACT = [0];
  for (var lf = 1; lf < 64; lf++) LOG_FACT.push(LOG_FACT[lf - 1] + Math.log(lf));
  function gammaln(x) {  // x = k + 1
    var k = x - 1;
    if (k < 64) return LOG_FACT[k];
    var x2 = x * x;
    return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) +
      (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * x2)) / x2) / x2) / x;
  }
  function roundHalfEven(x) {  // numpy.round
    var r = Math.round(x);
    return (Math.abs(x % 1) === 0.5 && r % 2 !== 0) ? r - 1 : r;
  }
  function brentq(f, a, b, xtol, rtol) { return S.brentq(f, a, b, xtol, rtol, MAXITER); }

  // -------------------------------------------------------------- the model: _Config
  function config(o) {
    // o: open, lam, K, Z, B, T, C, N, p, cpu, wait, db, pdb (null: none), sigma
    var B = o.B, isOpen = o.open, K = isOpen ? B : o.K;
    var top = isOpen ? B : Math.min(B, K);
    var T = o.T, C = Math.min(o.C, T), N = o.N;
    var pdb = o.pdb === null ? N * Math.min(C, T, top) : o.pdb;
    var cfg = { N: N, open: isOpen, lam: isOpen ? o.lam : 0, K: K, Z: isOpen ? 1 : o.Z, B: B,
                T: T, p: o.p, C: C, cpu: o.cpu, wait: o.wait, db: o.db, pdb: Math.max(1, pdb),
                sigma: o.sigma, limited: o.pdb !== null, top: top };
    cfg.holders = Math.min(T, top);
    cfg.hasDb = o.db > 0;
    if (cfg.holders > FLEET_FES_MAX_HOLDERS) {
      throw new SizingError("min(threads, capacity, clients) must be <= " +
        "FLEET_FES_MAX_HOLDERS = " + FLEET_FES_MAX_HOLDERS + " with method='fes', got " +
        cfg.holders + ": give fewer threads or a smaller capacity");
    }
    var total = N * Math.min(C, cfg.holders);
    if (cfg.hasDb && total > 64 * FLEET_FES_MAX_HOLDERS) {
      throw new SizingError("instances * min(connections, threads) must be <= " +
        64 * FLEET_FES_MAX_HOLDERS + " with a database phase and method='fes', got " + total);
    }
    return cfg;
  }

  function dbRate(cfg, D) { return Math.min(D, cfg.pdb) / (cfg.db * (1 + cfg.sigma * (D - 1))); }

  // ------------------------------------------------------------------------- _Database
  function Database(cfg, size) {
    this.cfg = cfg; this.size = size;
    this.rate = new Float64Array(size); this.rateInv = new Float64Array(size);
    this.logA = new Float64Array(size);
    var acc = 0;
    for (var i = 1; i < size; i++) {
      var r = dbRate(cfg, i);
      this.rate[i] = r; this.rateInv[i] = 1 / r;
      acc += Math.log(r);
      this.logA[i] = -acc;
    }
  }

  Database.prototype.direct = function (H) {
    if (H === 0) return [0, [1]];
    if (this.cfg.wait === 0) return [H, [1]];
    var logW = new Float64Array(H + 1), top = -Infinity, lw = Math.log(this.cfg.wait), j;
    for (j = 0; j <= H; j++) {
      logW[j] = this.logA[j] + (H - j) * lw - gammaln(H - j + 1);
      if (logW[j] > top) top = logW[j];
    }
    var w = new Float64Array(H + 1), first = -1, last = -1;
    for (j = 0; j <= H; j++) {
      w[j] = Math.exp(logW[j] - top);
      if (w[j] >= DB_TRIM) { if (first < 0) first = j; last = j; }
    }
    var kept = Array.prototype.slice.call(w, first, last + 1), s = sum(kept);
    for (j = 0; j < kept.length; j++) kept[j] /= s;
    return [first, kept];
  };

  Database.prototype.window = function (start, count) {
    var pdb = this.cfg.pdb, wait = this.cfg.wait;
    var x = new Float64Array(count), req = new Float64Array(count),
        busy = new Float64Array(count);
    var d = this.direct(start), low = d[0], dist = d[1], k;
    for (var i = 0; i < count; i++) {
      var H = start + i;
      if (i > 0) {
        var terms = new Array(dist.length + 1);
        for (k = 0; k < dist.length; k++) terms[k + 1] = dist[k] * this.rateInv[low + 1 + k];
        terms[0] = low === 0 ? dist[0] * wait / H : 0;
        var total = sum(terms);
        x[i] = 1 / total;
        var first = -1, last = -1;
        for (k = 0; k < terms.length; k++) {
          terms[k] /= total;
          if (terms[k] >= DB_TRIM) { if (first < 0) first = k; last = k; }
        }
        dist = terms.slice(first, last + 1);
        low += first;
      }
      var sx = 0, sr = 0, sb = 0;
      for (k = 0; k < dist.length; k++) {
        var v = low + k;
        if (i === 0) sx += dist[k] * this.rate[v];
        sr += dist[k] * v;
        sb += dist[k] * Math.min(v, pdb);
      }
      if (i === 0) x[i] = sx;
      req[i] = sr;
      busy[i] = sb / pdb;
    }
    return [x, req, busy];
  };

  Database.prototype.around = function (others, own) {
    var start = Math.min(Math.floor(others), this.size - 1);
    var count = Math.min(own + 2, this.size - start);
    var t = this.window(start, count), f = others - start;
    return t.map(function (table) {
      var out = new Float64Array(own + 1);
      for (var j = 0; j <= own; j++) {
        out[j] = (1 - f) * table[Math.min(j, count - 1)] + f * table[Math.min(j + 1, count - 1)];
      }
      return out;
    });
  };

  // ------------------------------------------------------------------------- _instance
  function instance(cfg, nuInv, dbRequests, dbBusy) {
    var M = cfg.holders, Cc = Math.min(cfg.C, cfg.holders), w, m;
    var x = new Float64Array(M + 1);
    var table = [];
    for (w = 0; w <= M; w++) {
      var held = Math.min(w, Cc);
      table.push([held, w - held, dbRequests[held], dbBusy[held]]);
    }
    var sums = [table[0].slice()];
    var cpuSteps = new Float64Array(M);  // cpuSteps[k] = s_c / min(M - k, p)
    for (var k = 0; k < M; k++) cpuSteps[k] = cfg.cpu / Math.min(M - k, cfg.p);
    var dist = new Float64Array(M + 1);
    dist[0] = 1;
    for (m = 1; m <= M; m++) {
      var last = dist[m - 1] * nuInv[Math.min(m, Cc)];
      for (w = 0; w < m; w++) dist[w] *= cpuSteps[M - m + w];
      dist[m] = last;
      var total = sum(dist, 0, m + 1);
      x[m] = 1 / total;
      var s = [0, 0, 0, 0];
      for (w = 0; w <= m; w++) {
        dist[w] /= total;
        for (var c = 0; c < 4; c++) s[c] += dist[w] * table[w][c];
      }
      sums.push(s);
    }
    var u = new Float64Array(M + 1);
    for (m = 0; m <= M; m++) u[m] = x[m] * cfg.cpu / cfg.p;
    var col = function (c) { return sums.map(function (r) { return r[c]; }); };
    return { x: x, u: u, conn: col(0), connQueue: col(1), dbRequests: col(2), dbBusy: col(3) };
  }

  // ---------------------------------------------------------------- _outer and _levels
  function outer(cfg, inst, others) {
    var top = cfg.top, logTerms = new Float64Array(top + 1), acc = 0, best = 0, n;
    logTerms[0] = 0;
    for (n = 0; n < top; n++) {
      var birth = cfg.open ? cfg.lam / cfg.N : Math.max(cfg.K - n - others, 0) / (cfg.Z * cfg.N);
      var death = inst.x[Math.min(n + 1, cfg.T)];
      acc += Math.log(birth) - Math.log(death);
      logTerms[n + 1] = acc;
      if (acc > best) best = acc;
    }
    var p = new Float64Array(top + 1), s = 0;
    for (n = 0; n <= top; n++) { p[n] = Math.exp(logTerms[n] - best); s += p[n]; }
    for (n = 0; n <= top; n++) p[n] /= s;
    return p;
  }

  function mean(p) { var s = 0; for (var n = 0; n < p.length; n++) s += p[n] * n; return s; }

  function levelsOf(cfg, inst) {
    var n, top = cfg.top, thinking;
    if (cfg.open) return [outer(cfg, inst, 0), null];
    if (cfg.N === 1) {
      thinking = new Float64Array(top + 1);
      for (n = 0; n <= top; n++) thinking[n] = cfg.K - n;
      return [outer(cfg, inst, 0), thinking];
    }
    if (cfg.N * Math.min(cfg.K, cfg.N * top) * (top + 1) <= CLOSED_CONVOLUTION_WORK) {
      return closedProductForm(cfg, inst);
    }
    var gap = function (others) { return mean(outer(cfg, inst, others)) * (cfg.N - 1) - others; };
    var high = Math.min(top, cfg.K) * (cfg.N - 1);
    var others = gap(high) >= 0 ? high : brentq(gap, 0, high, 1e-12, FIXED_POINT_RTOL);
    thinking = new Float64Array(top + 1);
    for (n = 0; n <= top; n++) thinking[n] = Math.max(cfg.K - n - others, 0);
    return [outer(cfg, inst, others), thinking];
  }

  // log sum_k exp(logA[i - k] + logB[k]), i = 0..min(cap, lengths - 2): the Python's
  // _log_convolve. A row's terms are exp(logA - maxA) exp(logB - maxB) exp(maxA + maxB - top):
  // two tables of exponentials instead of one per term (the Python's vectorized exp is not
  // at hand, and 36 convolutions of 214 terms per row took seconds). A product of two factors
  // each at least 1e-290 (exponents above -668) is exact to a few ulps; the factors below are
  // dropped, which changes a row only if its own largest term is within e^-40 of that
  // threshold: such a row is summed term by term as the Python does.
  var FACTOR_FLOOR = -668;
  function logConvolve(logA, logB, cap) {
    var size = Math.min(cap + 1, logA.length + logB.length - 1), out = new Float64Array(size);
    var ma = Math.max.apply(null, logA), mb = Math.max.apply(null, logB), k;
    var ea = new Float64Array(logA.length), eb = new Float64Array(logB.length);
    for (k = 0; k < logA.length; k++) ea[k] = logA[k] - ma >= FACTOR_FLOOR ? Math.exp(logA[k] - ma) : 0;
    for (k = 0; k < logB.length; k++) eb[k] = logB[k] - mb >= FACTOR_FLOOR ? Math.exp(logB[k] - mb) : 0;
    for (var i = 0; i < size; i++) {
      var lo = Math.max(0, i - logA.length + 1), hi = Math.min(logB.length - 1, i), top = -Infinity;
      for (k = lo; k <= hi; k++) top = Math.max(top, logA[i - k] + logB[k]);
      if (!isFinite(top)) { out[i] = -Infinity; continue; }
      var s = 0;
      if (top - ma - mb > FACTOR_FLOOR + 40) {
        for (k = lo; k <= hi; k++) s += ea[i - k] * eb[k];
        out[i] = ma + mb + Math.log(s);
      } else {
        for (k = lo; k <= hi; k++) s += Math.exp(logA[i - k] + logB[k] - top);
        out[i] = top + Math.log(s);
      }
    }
    return out;
  }

  function closedProductForm(cfg, inst) {
    var top = cfg.top, K = cfg.K, N = cfg.N, n, m;
    var logF = new Float64Array(top + 1), acc = 0;
    for (n = 1; n <= top; n++) {
      acc += -Math.log(inst.x[Math.min(n, cfg.T)]) - Math.log(N);
      logF[n] = acc;
    }
    var others = new Float64Array([0]);
    for (var i = 0; i < N - 1; i++) others = logConvolve(others, logF, K);
    var logThink = new Float64Array(K + 1), lz = Math.log(cfg.Z);
    for (var s = 0; s <= K; s++) logThink[s] = (K - s) * lz - gammaln(K - s + 1);
    var best = -Infinity, joint = [];
    for (n = 0; n <= top; n++) {
      var row = new Float64Array(others.length);
      for (m = 0; m < others.length; m++) {
        row[m] = n + m <= K ? logF[n] + others[m] + logThink[n + m] : -Infinity;
        if (row[m] > best) best = row[m];
      }
      joint.push(row);
    }
    var levels = new Float64Array(top + 1), thinking = new Float64Array(top + 1), total = 0;
    for (n = 0; n <= top; n++) {
      var lv = 0, th = 0;
      for (m = 0; m < others.length; m++) {
        var wgt = Math.exp(joint[n][m] - best);
        lv += wgt; th += wgt * m;
      }
      levels[n] = lv;
      thinking[n] = lv > 0 ? K - n - th / lv : 0;
      total += lv;
    }
    for (n = 0; n <= top; n++) levels[n] /= total;
    return [levels, thinking];
  }

  // ------------------------------------------------------------ _connection_station
  function connectionStation(cfg, db, meanHeld) {
    var Cc = Math.min(cfg.C, cfg.holders), j, inv = new Float64Array(Cc + 1);
    if (db === null) {
      for (j = 0; j <= Cc; j++) inv[j] = cfg.wait / Math.max(j, 1);
      return [inv, new Float64Array(Cc + 1), new Float64Array(Cc + 1)];
    }
    var others = (cfg.N - 1) * meanHeld, t = db.around(others, Cc);
    for (j = 0; j <= Cc; j++) inv[j] = j > 0 ? (j + others) / (j * t[0][j]) : 0;
    return [inv, t[1], t[2]];
  }

  // ----------------------------------------------------------------------- _solve_fes
  function solveFes(cfg) {
    var Cc = Math.min(cfg.C, cfg.holders);
    var db = cfg.hasDb ? new Database(cfg, cfg.N * Cc + 1) : null;
    function solve(meanHeld) {
      var st = connectionStation(cfg, db, meanHeld);
      var inst = instance(cfg, st[0], st[1], st[2]);
      var lv = levelsOf(cfg, inst), held = 0;
      for (var n = 0; n <= cfg.top; n++) held += lv[0][n] * inst.conn[Math.min(n, cfg.T)];
      return [inst, lv, held];
    }
    var got;
    if (db === null || cfg.N === 1) {
      got = solve(0);
    } else {
      var gap = function (h) { return solve(h)[2] - h; };
      var high = Cc;
      var meanHeld = gap(high) >= 0 ? high : brentq(gap, 0, high, 1e-13, FIXED_POINT_RTOL);
      got = solve(meanHeld);
    }
    return fesMetrics(cfg, got[0], got[1][0], got[1][1]);
  }

  function fesMetrics(cfg, inst, levels, thinking) {
    var N = cfg.N, top = cfg.top;
    var X = 0, L = 0, u = 0, busyConn = 0, connQ = 0, dbReq = 0, dbBusy = 0;
    for (var n = 0; n <= top; n++) {
      var m = Math.min(n, cfg.T), p = levels[n];
      X += p * inst.x[m]; L += p * n; u += p * inst.u[m];
      busyConn += p * inst.conn[m]; connQ += p * inst.connQueue[m];
      dbReq += p * inst.dbRequests[m]; dbBusy += p * inst.dbBusy[m];
    }
    X *= N;
    var error;
    if (cfg.open) error = levels[cfg.B];
    else error = cfg.B <= top ? levels[cfg.B] : 0;
    return { throughput: X, response_time: N * L / X, utilization: Math.min(u, 1),
             busy_connections: N * busyConn, connection_wait: N * connQ / X,
             database_requests: cfg.hasDb ? dbReq : 0,
             database_utilization: cfg.hasDb && cfg.limited ? Math.min(dbBusy, 1) : 0,
             error_rate: error };
  }

  // ------------------------------------------------------------- fleet_sizing: _Model
  function Model(o) { for (var k in o) this[k] = o[k]; }

  Model.prototype.solve = function (C, T, B, rate, open) {
    var isOpen = open || this.rate !== null;
    return solveFes(config({
      open: isOpen, lam: isOpen ? (rate !== undefined && rate !== null ? rate : this.rate) : 0,
      K: isOpen ? null : this.K, Z: isOpen ? null : this.Z, B: B, T: T, C: C, N: this.N,
      p: this.p, cpu: this.s_c, wait: this.s_w, db: this.s_db, pdb: this.p_db,
      sigma: this.sigma }));
  };

  Model.prototype.row = function (C, T, B, limit) {
    var f = this.solve(C, T, B), X = f.throughput;
    var row = { connections: C, total_connections: this.N * C, threads: T, capacity: B,
                throughput: X, response_time: f.response_time,
                connection_wait: f.connection_wait,
                database_time: X > 0 ? f.database_requests / X : NaN,
                utilization: f.utilization, database_utilization: f.database_utilization,
                refused: f.error_rate };
    if (limit !== undefined) {
      row.within_limit = C <= limit;
      row.ceiling = this.ceiling(C, T, B)[0];
    }
    return row;
  };

  Model.prototype.ceiling = function (C, T, B) {
    var bounds = [this.N * this.p / this.s_c, this.N * C / (this.s_db + this.s_w)];
    if (this.p_db !== null) bounds.push(this.p_db / this.s_db);
    var f = this.solve(C, T, B, OVERLOAD * Math.min.apply(null, bounds), true);
    return [f.throughput, { "instance processors": f.utilization,
                            "database processors": this.p_db !== null
                              ? f.database_utilization : 0,
                            pools: f.busy_connections / (this.N * C) }];
  };

  function geomspace(start, stop, num) {  // numpy.geomspace: 10 ** linspace of the logs
    var a = Math.log10(start), b = Math.log10(stop), out = [];
    if (num === 1) return [start];
    var step = (b - a) / (num - 1);
    for (var i = 0; i < num; i++) out.push(Math.pow(10, i * step + a));
    out[0] = start; out[num - 1] = stop;
    return out;
  }

  function choosePool(model, top, T, B, contention, slack, carry, share) {
    var cache = {};
    function tc(c) {
      if (!(c in cache)) {
        var R = model.row(c, Math.max(T, c), Math.max(B, c)).response_time;
        cache[c] = [isFinite(R) ? R : Infinity,
                    model.ceiling(c, Math.max(T, c), Math.max(B, c))[0]];
      }
      return cache[c];
    }
    var lo, hi, need;
    if (!contention) {
      var bm = tc(top), best = bm[0], most = bm[1];
      need = Math.min(carry, share * most) * (1 - 1e-9);
      var good = function (c) { var v = tc(c); return v[1] >= need && v[0] <= best + slack; };
      lo = 1; hi = top;
      while (lo < hi) {
        var mid = Math.floor((lo + hi) / 2);
        if (good(mid)) hi = mid; else lo = mid + 1;
      }
      return hi;
    }
    var seen = {}, pools = [];
    geomspace(1, top, Math.min(top, POOL_GRID)).forEach(function (c) {
      var r = roundHalfEven(c);
      if (!seen[r]) { seen[r] = true; pools.push(r); }
    });
    pools.sort(function (a, b) { return a - b; });
    var values = pools.map(tc);
    need = Math.min(carry, share * Math.max.apply(null, values.map(function (v) {
      return v[1]; }))) * (1 - 1e-9);
    var i = 0;
    for (var k = 1; k < values.length; k++) {
      var rk = values[k][1] >= need ? values[k][0] : Infinity;
      var ri = values[i][1] >= need ? values[i][0] : Infinity;
      if (rk < ri) i = k;
    }
    lo = pools[Math.max(i - 1, 0)]; hi = pools[Math.min(i + 1, pools.length - 1)];
    while (hi - lo > 2) {
      var a = lo + Math.floor((hi - lo) / 3), b = hi - Math.floor((hi - lo) / 3);
      var ra = tc(a)[1] >= need ? tc(a)[0] : Infinity;
      var rb = tc(b)[1] >= need ? tc(b)[0] : Infinity;
      if (ra <= rb) hi = b; else lo = a;
    }
    var near = [];
    for (var c = lo; c <= hi; c++) if (tc(c)[1] >= need) near.push(c);
    if (!near.length) near.push(pools[i]);
    near.push(pools[i]);
    var chosen = near[0];
    near.forEach(function (c) {
      var rc = tc(c)[0], rb = tc(chosen)[0];
      if (rc < rb || (rc === rb && c < chosen)) chosen = c;
    });
    return chosen;
  }

  function limiting(busy, share, cut) {
    var first = busy["database processors"] > busy["instance processors"]
      ? "database processors" : "instance processors";
    if (busy[first] >= share * (1 - 1e-9)) return first;
    if (busy.pools >= share * (1 - 1e-9)) return cut ? "connection limit" : "pools";
    return "threads";
  }

  function tablePools(chosen, single, limit) {
    var top = Math.max(chosen, single, limit), set = {};
    set[chosen] = true; set[single] = true; set[limit] = true;
    for (var c = 1; c <= 2 * top && c <= 1e5; c *= 2) {
      if (c >= Math.max(1, Math.floor(chosen / 8))) set[c] = true;
    }
    return Object.keys(set).map(Number).sort(function (a, b) { return a - b; });
  }

  function instancesFor(p, sc, S_, load, tol) {
    var N = Math.max(1, Math.ceil(load * sc / p));
    while (N <= FLEET_MAX_INSTANCES) {
      if (S.erlangCServers(load * sc / N, tol * S_ / sc, "processors") <= p) return N;
      N += 1;
    }
    throw new SizingError("the load needs more than FLEET_MAX_INSTANCES = " +
      FLEET_MAX_INSTANCES + " instances of " + p + " processors: give more processors " +
      "per instance");
  }

  // Python's format(x, ".Ng") and format(x, ".1%"), for the warnings' text.
  function pyG(x, digits) {
    digits = digits || 6;
    if (x === 0) return "0";
    if (!isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
    var e = Number(x.toExponential(digits - 1).split("e")[1]);
    var text;
    if (e < -4 || e >= digits) {
      var parts = x.toExponential(digits - 1).split("e");
      var mant = parts[0].indexOf(".") >= 0 ? parts[0].replace(/\.?0+$/, "") : parts[0];
      var ex = Number(parts[1]);
      text = mant + "e" + (ex < 0 ? "-" : "+") + (Math.abs(ex) < 10 ? "0" : "") + Math.abs(ex);
    } else {
      text = x.toFixed(Math.max(0, digits - 1 - e));
      if (text.indexOf(".") >= 0) text = text.replace(/\.?0+$/, "");
    }
    return text;
  }
  function pct(x) { return (100 * x).toFixed(1) + "%"; }

  function opt(x) { return x === undefined ? null : x; }

  // size_fleet: inputs in SI units, checked by the page (the fields' ranges); returns the
  // JSON of the Python's FleetSizing.as_dict() but its inputs' echo of defaults.
  function sizeFleet(inp) {
    var p = inp.processors, s_c = inp.cpu_time, s_w = inp.wait_time, s_db = inp.db_time;
    var p_db = opt(inp.db_processors), rate = opt(inp.arrival_rate), K = opt(inp.clients);
    var Z = opt(inp.think_time), given = opt(inp.instances);
    var M = opt(inp.db_max_connections) === null ? DB_MAX_CONNECTIONS : inp.db_max_connections;
    var r = opt(inp.db_reserved_connections) === null ? DB_RESERVED_CONNECTIONS
      : inp.db_reserved_connections;
    var sigma = opt(inp.db_contention) === null ? 0 : inp.db_contention;
    var h = opt(inp.headroom) === null ? S.HEADROOM : inp.headroom;
    var share = inp.busy_share || 0.95, tol = inp.tolerance || 0.1;
    if (M < r + 1) {
      throw new SizingError("db_max_connections must be an integer in [" + (r + 1) +
        ", 100000], got " + M);
    }
    var S_ = s_c + s_db + s_w;
    var peak = rate !== null ? rate : K / (Z + S_);
    var N = given === null ? instancesFor(p, s_c, S_, h * peak, tol) : given;
    var limit = M - r, C_lim = Math.floor(limit / N);
    if (C_lim < 1) {
      throw new SizingError("db_max_connections must leave at least one connection per " +
        "instance: " + M + " less " + r + " reserved is " + limit + ", fewer than instances=" +
        N);
    }
    var one = S.size({ processors: p, cpu_time: s_c, wait_time: s_db + s_w,
                       arrival_rate: rate === null ? undefined : rate / N,
                       clients: K === null ? undefined : Math.ceil(K / N),
                       think_time: Z === null ? undefined : Z, headroom: h,
                       max_response_time: inp.max_response_time,
                       read_timeout: inp.read_timeout, busy_share: share, tolerance: tol });
    var C_1 = one.connections, T_1 = one.threads, B_1 = one.capacity;
    var model = new Model({ p: p, s_c: s_c, s_w: s_w, s_db: s_db, p_db: p_db, sigma: sigma,
                            N: N, rate: rate, K: K, Z: Z });
    var queues = sigma > 0 || (p_db !== null && p_db < N * Math.min(C_1, T_1));
    var C = queues ? choosePool(model, Math.min(C_1, C_lim), T_1, B_1, sigma > 0, tol * S_,
                                h * peak, share)
                   : Math.min(C_1, C_lim);
    var T = Math.max(T_1, C);
    var ceil = model.ceiling(C, T, Math.max(B_1, T)), ceiling = ceil[0];
    var B = (queues || C < C_1)
      ? Math.max(T, Math.ceil(one.max_response_time * ceiling / N - 1e-9)) : B_1;
    var atPeak = model.row(C, T, B);
    var resource = limiting(ceil[1], share, C_1 > C_lim && C === C_lim);
    var pools = tablePools(C, C_1, C_lim).map(function (c) {
      return model.row(c, Math.max(T, c), Math.max(B, c), C_lim);
    });
    var warnings = [];
    if (C_1 > C_lim) {
      warnings.push("one instance alone would take a pool of " + C_1 + " (" + C_1 * N +
        " for " + N + " instances), more than the " + limit + " connections the database " +
        "allows ordinary roles (" + M + " less " + r + " reserved): the pool is at most " +
        C_lim + " per instance");
    }
    if (one.processors_needed > p) {
      warnings.push("each instance needs " + one.processors_needed + " processors for " +
        pyG(h) + "× its share of the peak, more than its " + p + ": add instances");
    }
    if (peak <= ceiling && ceiling < h * peak * (1 - 1e-9)) {
      warnings.push("the fleet saturates at " + pyG(ceiling / peak, 3) + "× the peak, short " +
        "of the headroom of " + pyG(h) + "×: the " + resource + " limit it");
    }
    if (atPeak.refused > 1e-3 || ceiling < peak) {
      warnings.push("the fleet cannot carry the peak: it refuses " + pct(atPeak.refused) +
        " of it and completes at most " + pyG(ceiling, 4) + " requests/s (" + resource +
        " limit it)");
    }
    return {
      inputs: { processors: p, cpu_time: s_c, wait_time: s_w, db_time: s_db,
                db_processors: p_db, arrival_rate: rate, clients: K, think_time: Z,
                instances: given, db_max_connections: M, db_reserved_connections: r,
                db_contention: sigma, headroom: h },
      headroom: h, instances: N, connections: C, total_connections: N * C,
      connection_limit: limit, threads: T, capacity: B, peak: peak,
      throughput: atPeak.throughput, response_time: atPeak.response_time,
      connection_wait: atPeak.connection_wait, database_time: atPeak.database_time,
      utilization: atPeak.utilization, database_utilization: atPeak.database_utilization,
      refused: atPeak.refused, ceiling: ceiling, saturation_multiple: ceiling / peak,
      limiting_resource: resource,
      single_server: { connections: C_1, threads: T_1, capacity: B_1,
                       total_connections: N * C_1, processors_needed: one.processors_needed },
      pools: pools, warnings: warnings, max_response_time: one.max_response_time
    };
  }

  var api = { sizeFleet: sizeFleet, solveFes: solveFes, config: config, pyG: pyG,
              DB_MAX_CONNECTIONS: DB_MAX_CONNECTIONS,
              DB_RESERVED_CONNECTIONS: DB_RESERVED_CONNECTIONS };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.QueuetuneFleet = api;
})(this);
