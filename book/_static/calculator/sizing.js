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

  // ------------------------------------------------------------ percentiles (def. 4)
  // The fast method of src/queuetune/models/passage.py (fast_quantiles), step by step:
  // Abate and Whitt's Euler inversion (M = 15) of the response time's Laplace transform, and
  // SciPy's brentq for each quantile. Complex numbers are [re, im].
  var EULER_M = 15, NEGLIGIBLE = 1e-16, GEOMETRIC_RTOL = 1e-9;
  function cmul(a, b) { return [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]; }
  function cdiv(a, b) {
    var d = b[0] * b[0] + b[1] * b[1];
    return [(a[0] * b[0] + a[1] * b[1]) / d, (a[1] * b[0] - a[0] * b[1]) / d];
  }
  function cscale(a, x) { return [a[0] * x, a[1] * x]; }
  function cexp(a) { var e = Math.exp(a[0]); return [e * Math.cos(a[1]), e * Math.sin(a[1])]; }
  function clog(a) { return [Math.log(Math.hypot(a[0], a[1])), Math.atan2(a[1], a[0])]; }
  function clog1p(a) { return clog([1 + a[0], a[1]]); }
  function cexpm1(a) {  // as NumPy: expm1(re) cos(im) - 2 sin(im/2)^2, exp(re) sin(im)
    var h = Math.sin(a[1] / 2);
    return [Math.expm1(a[0]) * Math.cos(a[1]) - 2 * h * h, Math.exp(a[0]) * Math.sin(a[1])];
  }
  function comb(n, k) { var c = 1; for (var i = 1; i <= k; i++) c = c * (n - k + i) / i; return Math.round(c); }
  var EULER = (function () {
    var M = EULER_M, beta = [], eta = [], xi = [], k;
    for (k = 0; k <= 2 * M; k++) { beta.push([M * Math.log(10) / 3, Math.PI * k]); xi.push(1); }
    xi[0] = 0.5;
    xi[2 * M] = Math.pow(2, -M);
    for (var j = 1; j < M; j++) xi[2 * M - j] = xi[2 * M - j + 1] + Math.pow(2, -M) * comb(M, j);
    for (k = 0; k <= 2 * M; k++) eta.push(Math.pow(10, M / 3) * (k % 2 ? -1 : 1) * xi[k]);
    return { beta: beta, eta: eta };
  })();

  function sakasegawa(x, service, servers, holders) {
    if (holders <= servers || service === 0) return 0;
    var u = Math.min(x * service / servers, 1), idle = Math.max(1 - u, 1e-300);
    return service * Math.pow(u, Math.sqrt(2 * (servers + 1)) - 1) / (servers * idle);
  }

  function holdingPhases(x, sc, sw, p, C) {  // [r_c(m), k(m)], m = 0..x.length-1
    var rc = new Float64Array(x.length), rel = new Float64Array(x.length);
    var noPool = C === null || sw === 0;
    for (var m = 1; m < x.length; m++) {
      var holding = m / x[m], delay = Math.max(holding - sc - sw, 0);
      var dc = sakasegawa(x[m], sc, p, m), dw = noPool ? 0 : sakasegawa(x[m], sw, C, m);
      var total = dc + dw;
      var share = total > 0 ? dc / total : (sc > 0 ? 1 : 0);
      share = noPool ? 1 : (sc === 0 ? 0 : share);
      rc[m] = sc + delay * share;
      rel[m] = noPool ? 0 : Math.max(holding - rc[m] - sw, 0) * C / sw;
    }
    return [rc, rel];
  }

  function holdingTransform(s, rc, k, sw, release) {
    var out = cdiv([1, 0], cmul([1 + s[0] * rc, s[1] * rc], [1 + s[0] * sw, s[1] * sw]));
    if (release > 0 && k > 0) {
      var z = cdiv([1, 0], [1 + s[0] * release, s[1] * release]);
      var whole = Math.floor(k), part = k - whole;
      var pool = cmul(cexp(cscale(clog(z), whole)), [1 - part + part * z[0], part * z[1]]);
      out = cmul(out, pool);
    }
    return out;
  }

  function releaseShape(rc, k, sw, release, T) {
    var whole = Math.floor(k), part = k - whole, mean = rc + sw + k * release;
    var variance = rc * rc + sw * sw + (k + part * (1 - part)) * release * release;
    return 1 / (1 + (variance / (mean * mean) - 1) / T);
  }

  function geometricTail(w) {
    var none = { start: w.length, ratio: 0 }, i;
    if (w.length < 3) return none;
    for (i = 0; i < w.length; i++) if (!(w[i] > 0)) return none;
    var last = w[w.length - 1] / w[w.length - 2], start = 0;
    for (i = 0; i < w.length - 1; i++) {
      if (!(Math.abs((w[i + 1] / w[i]) / last - 1) <= GEOMETRIC_RTOL)) start = i + 1;
    }
    if (w.length - start < 3 || !(last < 1 + GEOMETRIC_RTOL)) return none;
    return { start: start, ratio: last };
  }

  function Mixture(a, x, T, sc, sw, p, C, tailRatio, tailLength) {
    var i, n = a.length, block = null, total = 0, largest = 0;
    if (tailRatio !== null && tailLength && a[n - 1] > 0) {
      var logS0 = geometric(Math.log(tailRatio), tailLength)[0];
      var logBlock = Math.log(a[n - 1]) + logS0, head = 0;
      for (i = 0; i < n - 1; i++) head += a[i];
      var logTotal = head === 0 ? logBlock : logaddexp(Math.log(head), logBlock);
      var logFirst = Math.log(a[n - 1]) - logTotal;
      var top = logFirst + (tailRatio <= 1 ? 0 : tailLength * Math.log(tailRatio));
      var out = new Float64Array(n - 1), scale = Math.exp(-logTotal);
      for (i = 0; i < n - 1; i++) { out[i] = a[i] * scale; largest = Math.max(largest, out[i]); }
      largest = Math.max(largest, Math.exp(top));
      for (i = 0; i < n - 1; i++) if (!(out[i] >= NEGLIGIBLE * largest)) out[i] = 0;
      a = out;
      block = { logFirst: logFirst, ratio: tailRatio, length: tailLength + 1 };
    } else {
      var b = new Float64Array(n);
      for (i = 0; i < n; i++) total += a[i];
      for (i = 0; i < n; i++) { b[i] = a[i] / total; largest = Math.max(largest, b[i]); }
      var lastNz = 0;
      for (i = 0; i < n; i++) {
        if (!(b[i] >= NEGLIGIBLE * largest)) b[i] = 0; else lastNz = i;
      }
      var sum = 0;
      for (i = 0; i <= lastNz; i++) sum += b[i];
      a = new Float64Array(lastNz + 1);
      for (i = 0; i <= lastNz; i++) a[i] = b[i] / sum;
    }
    var top2 = Math.min(T, a.length), xs = new Float64Array(top2 + 1);
    for (i = 0; i <= top2; i++) xs[i] = x[Math.min(i, x.length - 1)];
    var ph = holdingPhases(xs, sc, sw, p, C), free = Math.min(T, a.length);
    this.weight = a.subarray(0, free);
    this.rc = ph[0].subarray(1, free + 1);
    this.rel = ph[1].subarray(1, free + 1);
    this.wait = T < a.length ? a.subarray(T) : new Float64Array(0);
    var full = top2;
    this.release = C === null ? 0 : sw / C;
    this.rate = xs[full];
    this.shape = releaseShape(ph[0][full], ph[1][full], sw, this.release, full);
    this.waitRc = ph[0][full]; this.waitRel = ph[1][full]; this.sw = sw;
    if (block === null) {
      var g = geometricTail(this.wait);
      this.tailStart = g.start; this.tailRatio = g.ratio; this.block = null;
    } else {
      this.tailStart = this.wait.length; this.tailRatio = 0; this.block = block;
    }
  }

  function logaddexp(a, b) {
    var m = Math.max(a, b);
    return m + Math.log1p(Math.exp(-Math.abs(a - b)));
  }

  Mixture.prototype.mean = function () {
    var w = this.wait, waiting = 0, queue = 0, j, held = 0;
    for (j = 0; j < w.length; j++) { waiting += w[j]; queue += w[j] * (j + 1); }
    queue = waiting ? queue / this.rate : 0;
    if (this.block !== null) {
      var g = geometric(Math.log(this.block.ratio), this.block.length - 1);
      var count = Math.exp(this.block.logFirst + g[0]);
      waiting += count;
      queue += count * (w.length + 1 + g[1]) / this.rate;
    }
    for (j = 0; j < this.weight.length; j++) {
      held += this.weight[j] * (this.rc[j] + this.sw + this.rel[j] * this.release);
    }
    return held + queue + waiting * (this.waitRc + this.sw + this.waitRel * this.release);
  };

  // E[exp(-s R)] at one complex s, in scalars (no array per operation: the page answers
  // within 100 ms on a slow phone): the same terms as passage.py's _Mixture.transform
  Mixture.prototype.transform = function (s) {
    var sr = s[0], si = s[1], w = this.wait, j, a, b, d, re, im, t1, t2;
    var rel = this.release, ar = 1 + sr * rel, ai = si * rel;
    d = ar * ar + ai * ai;
    var zr = ar / d, zi = -ai / d;  // z = 1 / (1 + s s_w / C)
    var lzr = Math.log(Math.hypot(zr, zi)), lzi = Math.atan2(zi, zr);
    var hr = 0, hi = 0;  // sum_j w_j / (1 + s r_c(j)) * pool factor
    for (j = 0; j < this.weight.length; j++) {
      var wj = this.weight[j];
      if (wj === 0) continue;
      a = 1 + sr * this.rc[j]; b = si * this.rc[j]; d = a * a + b * b;
      re = a / d; im = -b / d;
      var k = this.rel[j];
      if (rel > 0 && k > 0) {
        var whole = Math.floor(k), part = k - whole, e = Math.exp(whole * lzr);
        var pr = e * Math.cos(whole * lzi), pi = e * Math.sin(whole * lzi);
        var fr = 1 - part + part * zr, fi = part * zi;
        t1 = pr * fr - pi * fi; t2 = pr * fi + pi * fr;
        a = re * t1 - im * t2; im = re * t2 + im * t1; re = a;
      }
      hr += wj * re; hi += wj * im;
    }
    a = 1 + sr * this.sw; b = si * this.sw; d = a * a + b * b;
    var qr = a / d, qi = -b / d;  // 1 / (1 + s s_w)
    var held = [hr * qr - hi * qi, hr * qi + hi * qr];
    if (w.length === 0 && this.block === null) return held;
    var logZ = cscale(clog1p(cscale(s, 1 / (this.rate * this.shape))), -this.shape);
    var z = cexp(logZ), pwr = z[0], pwi = z[1], polr = 0, poli = 0;  // z^(j+1), j = 0
    for (j = 0; j < this.tailStart; j++) {
      if (w[j] !== 0) { polr += w[j] * pwr; poli += w[j] * pwi; }
      t1 = pwr * z[0] - pwi * z[1]; pwi = pwr * z[1] + pwi * z[0]; pwr = t1;
    }
    var poly = [polr, poli];
    var length = w.length - this.tailStart;
    if (length) {
      var rz = cscale(z, this.tailRatio);
      var first = cscale(cexp(cscale(logZ, this.tailStart + 1)), w[this.tailStart]);
      var sum = cdiv(cscale(cexpm1(cscale(clog(rz), length)), -1), [1 - rz[0], -rz[1]]);
      var tt = cmul(first, sum);
      poly[0] += tt[0]; poly[1] += tt[1];
    }
    if (this.block !== null) {
      var bl = this.block, ww = [Math.log(bl.ratio) + logZ[0], logZ[1]];
      var lead = [bl.logFirst + (w.length + 1) * logZ[0], (w.length + 1) * logZ[1]], tb;
      if (bl.length === Infinity) {
        tb = cmul(cexp(lead), cdiv([-1, 0], cexpm1(ww)));
      } else {
        var lw = cscale(ww, bl.length);
        if (lw[0] > 0) {
          tb = cdiv(cmul(cexp([lead[0] + lw[0], lead[1] + lw[1]]),
                         cscale(cexpm1(cscale(lw, -1)), -1)), cexpm1(ww));
        } else {
          tb = cdiv(cmul(cexp(lead), cexpm1(lw)), cexpm1(ww));
        }
      }
      poly[0] += tb[0]; poly[1] += tb[1];
    }
    var hw = holdingTransform(s, this.waitRc, this.waitRel, this.sw, this.release);
    var pw = cmul(poly, hw);
    return [held[0] + pw[0], held[1] + pw[1]];
  };

  // The narrow waits (passage.py's _Mixture.first_narrow, _narrow_chunks, _gamma_cdf): the
  // levels whose W_j + H(T) is narrower than a gamma of shape FAST_SHAPE_LIMIT leave the
  // transform and are evaluated in the time domain, in chunks of levels, each a shifted gamma
  // of their mean, variance and third central moment.
  var FAST_SHAPE_LIMIT = 100, NARROW_CHUNKS = 256, BLOCK_SPAN = 40, CUBE_ROOT_SHAPE = 100;
  var GAMMA_TERMS = 2000;
  Mixture.prototype.holdingMoments = function () {
    var whole = Math.floor(this.waitRel), part = this.waitRel - whole;
    var m = this.waitRc + this.sw + this.waitRel * this.release;
    var v = this.waitRc * this.waitRc + this.sw * this.sw +
      (this.waitRel + part * (1 - part)) * this.release * this.release;
    return [m, v];
  };
  Mixture.prototype.holdingSkew = function () {
    var whole = Math.floor(this.waitRel), f = this.waitRel - whole;
    return 2 * Math.pow(this.waitRc, 3) + 2 * Math.pow(this.sw, 3) +
      (2 * whole + 6 * f - 6 * f * f + 2 * Math.pow(f, 3)) * Math.pow(this.release, 3);
  };
  Mixture.prototype.firstNarrow = function () {
    var mv = this.holdingMoments(), m = mv[0], v = mv[1], first;
    var b = 2 * m - FAST_SHAPE_LIMIT / (this.rate * this.shape);
    var c = m * m - FAST_SHAPE_LIMIT * v;
    if (c >= 0) first = 0;
    else first = Math.floor(this.rate * (-b + Math.sqrt(b * b - 4 * c)) / 2);
    return Math.min(first, this.wait.length + (this.block === null ? 0 : this.block.length));
  };

  function geometricMoments(x, n) {  // passage.py's geometric_moments: [log S0, mean, var]
    if (n === 1) return [0, 0, 0];
    if (n === Infinity) {
      var sh = Math.sinh(-x / 2);
      return [-Math.log(-Math.expm1(x)), 1 / Math.expm1(-x), 0.25 / (sh * sh)];
    }
    if (Math.abs(x) * n < 1e-3) {
      return [Math.log(n) + x * (n - 1) / 2 + x * x * (n * n - 1) / 24,
              (n - 1) / 2 + x * (n * n - 1) / 12, (n * n - 1) / 12];
    }
    if (x > 0) {
      var g = geometricMoments(-x, n);
      return [(n - 1) * x + g[0], n - 1 - g[1], g[2]];
    }
    var u = -x, far = n * u > 700;
    var logS0 = Math.log(-Math.expm1(n * x)) - Math.log(-Math.expm1(x));
    var mean = 1 / Math.expm1(u) - (far ? 0 : n / Math.expm1(n * u));
    var s1 = Math.sinh(u / 2), s2 = far ? 0 : Math.sinh(n * u / 2);
    var variance = 0.25 / (s1 * s1) - (far ? 0 : 0.25 * n * n / (s2 * s2));
    return [logS0, mean, variance];
  }

  function chunkBounds(lo, hi, spread, fromTop) {  // passage.py's _chunk_bounds
    var n = hi - lo, step = spread, out = [], c;
    while (n / step > NARROW_CHUNKS) step *= 2;
    var count = Math.ceil(n / step);
    for (c = 0; c < count; c++) {
      out.push(fromTop ? [Math.max(lo, hi - (c + 1) * step), hi - c * step]
                       : [lo + c * step, Math.min(hi, lo + (c + 1) * step)]);
    }
    return out;
  }

  function narrowChunks(mix, first) {  // passage.py's _narrow_chunks
    var mh = mix.holdingMoments(), g = mix.shape, X = mix.rate;
    var spread = Math.max(1, Math.floor(Math.sqrt((first + 1) / g)));
    var weights = [], level = [], variance = [], explicit = mix.wait.length, i, j, k;
    if (first < explicit) {
      var a = mix.wait, f0 = first, top = 0;
      for (j = f0; j < explicit; j++) if (a[j] > top) top = a[j];
      var limit = Math.exp(-BLOCK_SPAN) * top, lo = -1, hi = -1;
      for (j = f0; j < explicit; j++) if (a[j] >= limit) { if (lo < 0) lo = j; hi = j + 1; }
      var bounds = chunkBounds(lo, hi, spread, a[hi - 1] >= a[lo]);
      for (k = 0; k < bounds.length; k++) {
        var w = 0, s1 = 0;
        for (j = bounds[k][0]; j < bounds[k][1]; j++) { w += a[j]; s1 += a[j] * (j + 1); }
        if (w > 0) {
          var mean = s1 / w, dev = 0;
          for (j = bounds[k][0]; j < bounds[k][1]; j++) dev += a[j] * (j + 1 - mean) * (j + 1 - mean);
          weights.push(w); level.push(mean); variance.push(dev / w);
        }
      }
    }
    if (mix.block !== null) {
      var i0 = Math.max(0, first - explicit), end = mix.block.length;
      var logR = Math.log(mix.block.ratio);
      if (logR > 0 && (end - i0) * logR > BLOCK_SPAN) i0 = end - Math.ceil(BLOCK_SPAN / logR);
      else if (logR < 0 && (end - i0) * -logR > BLOCK_SPAN) end = i0 + Math.ceil(BLOCK_SPAN / -logR);
      var bb = chunkBounds(i0, end, spread, logR >= 0);
      for (k = 0; k < bb.length; k++) {
        var gm = geometricMoments(logR, bb[k][1] - bb[k][0]);
        var wb = Math.exp(mix.block.logFirst + bb[k][0] * logR + gm[0]);
        if (wb > 0) { weights.push(wb); level.push(explicit + bb[k][0] + gm[1] + 1); variance.push(gm[2]); }
      }
    }
    var skew = mix.holdingSkew(), out = { weight: [], shift: [], shape: [], mean: [] };
    for (i = 0; i < weights.length; i++) {
      var m = level[i] / X + mh[0];
      var v = (level[i] / g + variance[i]) / (X * X) + mh[1];
      var third = (2 * level[i] / (g * g) + 3 * variance[i] / g) / (X * X * X) + skew;
      var gmean = 2 * v * v / third;
      out.weight.push(weights[i]); out.shift.push(m - gmean);
      out.shape.push(4 * v * v * v / (third * third)); out.mean.push(gmean);
    }
    return out;
  }

  // erfc and log-gamma by hand: JavaScript's Math has neither. erfc is Cephes' ndtr.c (as in
  // SciPy: rational approximations, 1e-14 relative); lgamma Stirling's series from 10 on
  // (its sixth term below 2e-14) after the recurrence.
  var ERFC_P = [2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
    4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
    9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2];
  var ERFC_Q = [1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
    9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
    1.65666309194161350182E3, 5.57535340817727675546E2];
  var ERFC_R = [5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
    6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0];
  var ERFC_S = [2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
    1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0];
  var ERF_T = [9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
    7.00332514112805075473E3, 5.55923013010394962768E4];
  var ERF_U = [3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
    2.26290000613890934246E4, 4.92673942608635921086E4];
  function polevl(x, c) { var a = c[0]; for (var i = 1; i < c.length; i++) a = a * x + c[i]; return a; }
  function p1evl(x, c) { var a = x + c[0]; for (var i = 1; i < c.length; i++) a = a * x + c[i]; return a; }
  function erf(x) {
    if (x < 0) return -erf(-x);
    if (x > 1) return 1 - erfc(x);
    var z = x * x;
    return x * polevl(z, ERF_T) / p1evl(z, ERF_U);
  }
  function erfc(a) {
    var x = Math.abs(a);
    if (x < 1) return 1 - erf(a);
    var z = -a * a;
    if (z < -7.09782712893383996732E2) return a < 0 ? 2 : 0;
    z = Math.exp(z);
    var y = x < 8 ? z * polevl(x, ERFC_P) / p1evl(x, ERFC_Q)
                  : z * polevl(x, ERFC_R) / p1evl(x, ERFC_S);
    return a < 0 ? 2 - y : y;
  }
  function lgamma(a) {  // a > 0
    var shift = 0;
    while (a < 10) { shift -= Math.log(a); a += 1; }
    var z = 1 / (a * a);
    var series = (1 / 12 - z * (1 / 360 - z * (1 / 1260 - z * (1 / 1680 - z / 1188)))) / a;
    return shift + (a - 0.5) * Math.log(a) - a + 0.5 * Math.log(2 * Math.PI) + series;
  }

  function gammaCdf(k, x) {  // passage.py's _gamma_cdf, step by step
    if (x <= 0) return 0;
    if (k > CUBE_ROOT_SHAPE) {
      var zz = 3 * Math.sqrt(k) * (Math.cbrt(x / k) - 1 + 1 / (9 * k));
      return 0.5 * erfc(-zz / Math.sqrt(2));
    }
    var logFront = k * Math.log(x) - x - lgamma(k), i;
    if (x < k + 1) {
      var ap = k, term = 1 / k, total = term;
      for (i = 0; i < GAMMA_TERMS; i++) {
        ap += 1; term *= x / ap; total += term;
        if (Math.abs(term) < Math.abs(total) * 1e-16) break;
      }
      return Math.min(total * Math.exp(logFront), 1);
    }
    var b = x + 1 - k, c = 1e300, d = 1 / b, h = d;
    for (i = 1; i < GAMMA_TERMS; i++) {
      var an = -i * (i - k);
      b += 2;
      d = an * d + b; if (!(Math.abs(d) > 1e-300)) d = 1e-300;
      c = b + an / c; if (!(Math.abs(c) > 1e-300)) c = 1e-300;
      d = 1 / d;
      var delta = d * c;
      h *= delta;
      if (Math.abs(delta - 1) < 1e-16) break;
    }
    return Math.max(1 - Math.exp(logFront) * h, 0);
  }

  Mixture.prototype.split = function () {  // passage.py's _Mixture._split
    if (this.splitCache) return this.splitCache;
    var first = this.firstNarrow(), explicit = this.wait.length;
    var end = explicit + (this.block === null ? 0 : this.block.length);
    var resolved = this, chunks = { weight: [], shift: [], shape: [], mean: [] };
    if (first < end) {
      resolved = Object.create(Mixture.prototype);
      for (var key in this) if (Object.prototype.hasOwnProperty.call(this, key)) resolved[key] = this[key];
      if (first < explicit) {
        resolved.wait = this.wait.subarray(0, first);
        resolved.tailStart = Math.min(this.tailStart, first);
        resolved.block = null;
      } else if (first - explicit > 0) {
        resolved.block = { logFirst: this.block.logFirst, ratio: this.block.ratio,
                           length: first - explicit };
      } else {
        resolved.block = null;
      }
      chunks = narrowChunks(this, first);
    }
    this.splitCache = { resolved: resolved, chunks: chunks };
    return this.splitCache;
  };

  Mixture.prototype.euler = function (t) {
    var value = 0;
    for (var k = 0; k < EULER.beta.length; k++) {  // Re(eta_k L(s_k) / s_k)
      var sr = EULER.beta[k][0] / t, si = EULER.beta[k][1] / t, L = this.transform([sr, si]);
      value += EULER.eta[k] * (L[0] * sr + L[1] * si) / (sr * sr + si * si);
    }
    return value / t;
  };

  Mixture.prototype.cdf = function (t) {
    if (t <= 0) return 0;
    var sp = this.split(), ch = sp.chunks, value = sp.resolved.euler(t);
    for (var i = 0; i < ch.weight.length; i++) {
      if (t > ch.shift[i]) value += ch.weight[i] * gammaCdf(ch.shape[i], (t - ch.shift[i]) * ch.shape[i] / ch.mean[i]);
    }
    return Math.min(Math.max(value, 0), 1);
  };

  function brentq(f, xa, xb, xtol, rtol, maxiter) {  // SciPy's brentq.c, step by step
    var xpre = xa, xcur = xb, xblk = 0, fblk = 0, spre = 0, scur = 0, t;
    var fpre = f(xpre), fcur = f(xcur);
    if (fpre === 0) return xpre;
    if (fcur === 0) return xcur;
    for (var i = 0; i < maxiter; i++) {
      if (fpre !== 0 && fcur !== 0 && ((fpre < 0) !== (fcur < 0))) {
        xblk = xpre; fblk = fpre; spre = scur = xcur - xpre;
      }
      if (Math.abs(fblk) < Math.abs(fcur)) {
        xpre = xcur; xcur = xblk; xblk = xpre;
        fpre = fcur; fcur = fblk; fblk = fpre;
      }
      var delta = (xtol + rtol * Math.abs(xcur)) / 2, sbis = (xblk - xcur) / 2;
      if (fcur === 0 || Math.abs(sbis) < delta) return xcur;
      if (Math.abs(spre) > delta && Math.abs(fcur) < Math.abs(fpre)) {
        var stry;
        if (xpre === xblk) {
          stry = -fcur * (xcur - xpre) / (fcur - fpre);
        } else {
          var dpre = (fpre - fcur) / (xpre - xcur), dblk = (fblk - fcur) / (xblk - xcur);
          stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre));
        }
        if (2 * Math.abs(stry) < Math.min(Math.abs(spre), 3 * Math.abs(sbis) - delta)) {
          spre = scur; scur = stry;
        } else { spre = sbis; scur = sbis; }
      } else { spre = sbis; scur = sbis; }
      xpre = xcur; fpre = fcur;
      xcur += Math.abs(scur) > delta ? scur : (sbis > 0 ? delta : -delta);
      fcur = f(xcur);
    }
    t = xcur;
    return t;
  }

  function fastQuantiles(mix, probabilities) {
    var cache = new Map();
    function cdf(t) {
      var v = cache.get(t);
      if (v === undefined) { v = mix.cdf(t); cache.set(t, v); }
      return v;
    }
    var mean = mix.mean();
    return probabilities.map(function (q) {
      var high = mean;
      while (cdf(high) < q) high *= 2;
      return brentq(function (t) { return cdf(t) - q; }, 0, high, 1e-300, 1e-10, 200);
    });
  }

  function weights(lw) {
    var top = -Infinity, i, out = new Float64Array(lw.length);
    for (i = 0; i < lw.length; i++) if (lw[i] > top) top = lw[i];
    for (i = 0; i < lw.length; i++) out[i] = weight(lw[i] - top);
    return out;
  }

  // p50, p95 and p99 (s) of admitted requests: sizing.py's percentiles()
  function percentiles(h, T, B, rate, K, Z, probabilities) {
    probabilities = probabilities || [0.5, 0.95, 0.99];
    var ratio = null, length = 0, arrivals, n, lw;
    if (rate !== null) {
      if (T === null) T = openCut(h, rate, B);
      var n0 = B === null ? T : Math.min(T, B), topRate = h.at(T);
      if (B === null && rate >= topRate) return probabilities.map(function () { return Infinity; });
      lw = new Float64Array(n0 + 1);
      for (n = 1; n <= n0; n++) lw[n] = lw[n - 1] + Math.log(rate / h.at(n));
      if (B !== null && B <= T) {
        arrivals = weights(lw.subarray(0, n0));
      } else {
        arrivals = weights(lw);
        ratio = rate / topRate;
        length = B === null ? Infinity : B - 1 - T;
      }
    } else {
      B = B === null ? K : Math.min(B, K);
      if (T === null) T = Math.min(h.untilConverged(B), B);
      if (Z === 0) {
        arrivals = new Float64Array(B);
        arrivals[B - 1] = 1;
      } else {
        h.at(Math.min(T, B));
        lw = new Float64Array(B + 1);
        for (n = 1; n <= B; n++) {
          lw[n] = lw[n - 1] + (Math.log((K - (n - 1)) / Z) - Math.log(h.at(Math.min(n, T))));
        }
        var la = new Float64Array(B);
        for (n = 0; n < B; n++) la[n] = lw[n] + Math.log(K - n);
        arrivals = weights(la);
      }
    }
    var holders = B !== null ? Math.min(T, B) : T, x = new Float64Array(holders + 1);
    for (n = 1; n <= holders; n++) x[n] = h.at(n);
    var C = (h.C !== null && h.sw > 0 && h.C < holders) ? h.C : null;
    var mix = new Mixture(arrivals, x, T, h.sc, h.sw, h.p, C, length ? ratio : null, length);
    return fastQuantiles(mix, probabilities);
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
             capacity: B, sized_pool: sizedPool };
  }

  // the p99 objective at the peak: sizing.py's _meet, step by step
  function meet(plan, p, sc, sw, rate, K, Z, rMax, goal) {
    var T0 = plan.threads, C0 = plan.connections, THREADS = LIMITS.threads[1];
    function trial(T, freePool) {
      var C = freePool ? null : (!plan.sized_pool ? C0 : Math.min(T, Math.ceil(C0 * T / T0)));
      var h = new Holders(p, sc, sw, C), B = Math.max(T, ceil9(rMax * h.at(T)));
      return [percentiles(h, T, B, rate, K, Z, [0.99])[0], h, C, B];
    }
    var first = trial(T0, false), got = first;
    var out = { p99: first[0], met: first[0] <= goal, prevented_by: null, plan: plan };
    if (out.met) return out;
    var lo = T0, hi = T0, best = null, last = first[0];
    while (hi < THREADS) {
      lo = hi; hi = Math.min(2 * hi, THREADS);
      got = trial(hi, false);
      if (got[0] <= goal) { best = got; break; }
      if (Math.abs(got[0] - last) <= 1e-6 * last) break;
      last = got[0];
    }
    if (best === null) {
      var blocked = (C0 !== null && !plan.sized_pool && trial(hi, true)[0] <= goal)
        ? "the pool" : "the processors";
      out.p99 = Math.min(last, got[0]); out.prevented_by = blocked;
      return out;
    }
    while (hi - lo > 1) {
      var mid = Math.floor((lo + hi) / 2), g = trial(mid, false);
      if (g[0] <= goal) { hi = mid; best = g; } else { lo = mid; }
    }
    var grown = {};
    for (var key in plan) grown[key] = plan[key];
    grown.threads = hi; grown.connections = best[2]; grown.holders = best[1];
    grown.capacity = best[3];
    return { p99: best[0], met: true, prevented_by: null, plan: grown };
  }

  function row(h, T, B, rate, K, Z, multiple) {
    var load = scaled(rate, K, multiple), st = measure(h, T, B, load[0], load[1], Z);
    var q = percentiles(h, T, B, load[0], load[1], Z);
    return { multiple: multiple, arrival_rate: load[0], clients: load[1],
             throughput: st.throughput, response_time: st.response_time,
             response_time_p50: q[0], response_time_p95: q[1], response_time_p99: q[2],
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
             prevented_by: fails ? "the service time itself" : null, p99_at_peak: null,
             threads_before: null, connections_before: null };
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
      if (objective.prevented_by === "the service time itself") {
        notes.push("the p99 objective of " + ms(objective.p99_objective) + " cannot be met: " +
                   "the service alone takes " + ms(objective.service_p99) + " at p99, with " +
                   "no queueing");
      } else if (objective.prevented_by === "the pool") {
        notes.push("the p99 objective of " + ms(objective.p99_objective) + " is not met " +
                   "at the peak (" + ms(objective.p99_at_peak) + "): your pool of " +
                   plan.connections + " connections prevents it (more threads do not help; " +
                   "a larger pool would)");
      } else {
        notes.push("the p99 objective of " + ms(objective.p99_objective) + " is not met " +
                   "at the peak (" + ms(objective.p99_at_peak) + "): the " + p + " " +
                   (p > 1 ? "processors" : "processor") + " given prevent it (more threads " +
                   "do not help; more processors would)");
      }
    } else if (objective !== null && objective.threads_before !== plan.threads) {
      notes.push("threads grown from " + objective.threads_before + " to " + plan.threads +
                 (objective.connections_before !== plan.connections
                   ? " and the pool from " + objective.connections_before + " to " +
                     plan.connections : "") +
                 " to meet the p99 objective of " + ms(objective.p99_objective) +
                 " at the peak");
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
    var objective = bound[2].p99_objective === null ? null
      : objectiveOf(sc, sw, bound[2].p99_objective);
    if (objective !== null && objective.met === null) {
      var reached = meet(plan, p, sc, sw, rate, K, Z, rMax, bound[2].p99_objective);
      objective.met = reached.met; objective.prevented_by = reached.prevented_by;
      objective.threads_before = plan.threads; objective.connections_before = plan.connections;
      plan = reached.plan;
    }
    plan.origin = bound[1];
    var h = plan.holders;
    var loads = rows(h, plan.threads, plan.capacity, rate, K, Z), atPeak = loads[0];
    var sat = saturation(h, plan.threads, plan.peak, share);
    var yours = Tu === null ? null : yoursOf(p, sc, sw, C, plan, Tu, Bu, rate, K, Z, share);
    if (objective !== null) objective.p99_at_peak = atPeak.response_time_p99;
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
      response_time_p50: atPeak.response_time_p50,
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
              geometric: geometric, percentiles: percentiles, MULTIPLES: MULTIPLES, HEADROOM: HEADROOM,
              ORIGINS: ORIGINS, brentq: brentq };  // brentq: also fleet.js's
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.QueuetuneSizing = api;
})(this);
