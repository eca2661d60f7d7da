<%--
  The test page of today's server: some arithmetic on the processor, then a wait phase (a
  database call, say) that holds one of C permits of a pool, as a connection of HikariCP is
  held: a fair java.util.concurrent.Semaphore of C permits, written into the page when it is
  deployed (C = 0: no pool, the wait phase holds nothing).

    GET /today.jsp?work=ITERATIONS&sleep_us=MICROSECONDS&bytes=SIZE&dist=NAME&cv_pct=CV

  work      iterations of the arithmetic loop (the runner calibrates iterations per millisecond);
            with a distribution, their mean
  sleep_us  the wait phase, in microseconds, spent holding a permit (after waiting for one);
            with a distribution, its mean
  bytes     size of the answer
  dist      constant (the default: work and sleep_us as given), exponential or lognormal: the
            page draws the request's iterations and its wait, independently, as the given
            mean times a factor of mean 1 from that distribution (lognormal: coefficient of
            variation cv_pct / 100, 1 to 1000 %, default 150)

  The draws use a java.util.SplittableRandom seeded with the header X-Queuetune-Draw-Seed (the
  generator sends one per request, derived from the campaign's seed, the run, the client and
  the request's number, so that a run's draws can be drawn again; SplittableRandom mixes its
  seed, so that close seeds give unrelated draws, which java.util.Random's first draws are
  not), else ThreadLocalRandom (Java 17+: both are RandomGenerators). A drawn
  value is capped by the page's bounds: the iterations by the work parameter's bound, the wait
  by MAX_WAIT_MS, and the arithmetic of a drawn request by MAX_CPU_MS of processor time (it
  then ends and the request is answered, not stopped); the header X-Queuetune-Capped counts
  the capped draws (0, 1 or 2). X-Queuetune-Drawn-Work and X-Queuetune-Drawn-Wait-Us give the
  drawn values.

  Bounds (queuetune.lab.tomcat: MAX_CPU_MS, MAX_WAIT_MS, MAX_HOLD_MS, written in when the page
  is made): a larger sleep_us is refused; the arithmetic stops once the thread has used
  MAX_CPU_MS of processor time (where the JVM measures it: not on a virtual thread, which
  only the deadline bounds); the request, the wait for a permit included, stops at its
  deadline, the client's timeout (header X-Queuetune-Deadline-Ms, in ms: the client has left
  by then) or MAX_HOLD_MS. A stopped request gets 503 and the header X-Queuetune-Stopped
  (processor-time or deadline).

  Headers of the answer (besides the drawn values): X-Queuetune-Cpu-Us (processor time of the request's thread, -1 when
  the JVM cannot measure it, as for a virtual thread), X-Queuetune-Permit-Wait-Us (time spent
  waiting for a permit, measured apart from the rest), X-Queuetune-Virtual (1 when the request
  ran on a virtual thread).

  SAFE TO DEPLOY ONLY WHILE YOU MEASURE. The page does work only for a request that carries
  the secret written into it when it was made (header X-Queuetune-Secret; the runner makes a
  new one for each deployment and sends it): any other request gets 403 at once, without
  reading a parameter or taking a permit. Remove the page from your server when you have
  measured.
--%><%@ page session="false" contentType="text/html; charset=UTF-8" trimDirectiveWhitespaces="true"
    import="java.lang.management.ManagementFactory, java.lang.management.ThreadMXBean, java.util.concurrent.Semaphore" %><%!
    private static final long MAX_WORK = 100_000_000_000L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final byte[] SECRET =
        "@QUEUETUNE_SECRET@".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int PERMITS = @QUEUETUNE_POOL@;
    // fair: permits go to the waiting requests in the order they asked (as HikariCP's
    // handoff queue serves waiting borrowers)
    private static final Semaphore POOL = PERMITS > 0 ? new Semaphore(PERMITS, true) : null;

    private static final long MAX_CPU_NS = @QUEUETUNE_MAX_CPU_MS@L * 1_000_000L;
    private static final long MAX_WAIT_US = @QUEUETUNE_MAX_WAIT_MS@L * 1_000L;
    private static final long MAX_HOLD_MS = @QUEUETUNE_MAX_HOLD_MS@L;

    // When the request must stop: its client's timeout (header X-Queuetune-Deadline-Ms, the
    // client has left by then) or MAX_HOLD_MS, whichever is sooner, from ``started``.
    private static long deadline(jakarta.servlet.http.HttpServletRequest request, long started) {
        long holdMs = MAX_HOLD_MS;
        String given = request.getHeader("X-Queuetune-Deadline-Ms");
        if (given != null) {
            holdMs = Math.max(0L, Math.min(MAX_HOLD_MS, Long.parseLong(given.trim())));
        }
        return started + holdMs * 1_000_000L;
    }

    // Sleeps sleepUs microseconds, or until the deadline if that comes first (then false).
    private static boolean sleepUntil(long sleepUs, long deadline) throws InterruptedException {
        long wake = System.nanoTime() + sleepUs * 1000L;
        if (wake - deadline <= 0) {
            Thread.sleep(sleepUs / 1000, (int) (sleepUs % 1000) * 1000);
            return true;
        }
        long ns = deadline - System.nanoTime();
        if (ns > 0) {
            Thread.sleep(ns / 1_000_000L, (int) (ns % 1_000_000L));
        }
        return false;
    }

    // A factor of mean 1: 1 (constant), Exp(1), or lognormal with coefficient of variation cv
    // (sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2, so that its mean is 1).
    private static double factor(String dist, double cv,
                                 java.util.random.RandomGenerator random) {
        if ("exponential".equals(dist)) {
            return -Math.log(1.0 - random.nextDouble());
        }
        if ("lognormal".equals(dist)) {
            double sigma2 = Math.log1p(cv * cv);
            return Math.exp(-sigma2 / 2 + Math.sqrt(sigma2) * random.nextGaussian());
        }
        return 1.0;
    }

    private static String distribution(jakarta.servlet.http.HttpServletRequest request) {
        String dist = request.getParameter("dist");
        if (dist == null || dist.equals("constant")) {
            return "constant";
        }
        if (!dist.equals("exponential") && !dist.equals("lognormal")) {
            throw new IllegalArgumentException("dist must be constant, exponential or lognormal");
        }
        return dist;
    }

    private static java.util.random.RandomGenerator generator(
            jakarta.servlet.http.HttpServletRequest request) {
        String seed = request.getHeader("X-Queuetune-Draw-Seed");
        return seed != null ? new java.util.SplittableRandom(Long.parseLong(seed.trim()))
                            : java.util.concurrent.ThreadLocalRandom.current();
    }

    private static boolean allowed(jakarta.servlet.http.HttpServletRequest request) {
        String given = request.getHeader("X-Queuetune-Secret");
        return given != null && java.security.MessageDigest.isEqual(
            SECRET, given.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static long parameter(jakarta.servlet.http.HttpServletRequest request, String name,
                                  long fallback, long max) {
        String value = request.getParameter(name);
        if (value == null) {
            return fallback;
        }
        long parsed = Long.parseLong(value);
        if (parsed < 0 || parsed > max) {
            throw new IllegalArgumentException(name + " must be in [0, " + max + "]");
        }
        return parsed;
    }

    // Thread.isVirtual() exists from Java 21 on: asked by reflection, so that the page also
    // compiles and runs on Java 17 (platform threads only).
    private static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
%><%
    if (!allowed(request)) {
        response.sendError(403, "this test page needs its secret; remove it after measuring");
        return;
    }
    long started = System.nanoTime();
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long iterations = parameter(request, "work", 0L, MAX_WORK);
    long sleepUs = parameter(request, "sleep_us", 0L, MAX_WAIT_US);
    long deadline = deadline(request, started);
    long size = parameter(request, "bytes", 2048L, 10_000_000L);
    String dist = distribution(request);
    double cv = parameter(request, "cv_pct", 150L, 1000L) / 100.0;
    if (cv <= 0) {
        throw new IllegalArgumentException("cv_pct must be in [1, 1000]");
    }
    boolean drawn = !dist.equals("constant");
    boolean workCapped = false;
    boolean waitCapped = false;
    if (drawn) {
        java.util.random.RandomGenerator random = generator(request);
        double work = iterations * factor(dist, cv, random);
        double wait = sleepUs * factor(dist, cv, random);
        iterations = work < MAX_WORK ? Math.round(work) : MAX_WORK;
        sleepUs = wait < MAX_WAIT_US ? Math.round(wait) : MAX_WAIT_US;
        workCapped = work >= MAX_WORK;
        waitCapped = wait >= MAX_WAIT_US;
    }

    // A dependent chain of square roots: it cannot be vectorized or skipped, and its result
    // goes into the answer so that the JIT cannot drop it.
    // Every 65,536 iterations (about half a millisecond) it checks its bounds: the deadline,
    // and the processor time its thread has used (where the JVM measures it).
    String stopped = null;
    double x = 1.0;
    for (long i = 0; i < iterations; i++) {
        x = Math.sqrt(x + i) * 1.0000001;
        if ((i & 0xFFFF) == 0xFFFF) {
            if (System.nanoTime() - deadline > 0) {
                stopped = "deadline";
                break;
            }
            long cpuNow = cpuStart >= 0 ? THREADS.getCurrentThreadCpuTime() : -1;
            if (cpuNow >= 0 && cpuNow - cpuStart > MAX_CPU_NS) {
                if (drawn) {  // a drawn value past the bound: capped, counted, answered
                    workCapped = true;
                } else {
                    stopped = "processor-time";
                }
                break;
            }
        }
    }
    long cpuEnd = THREADS.getCurrentThreadCpuTime();
    long waitNs = 0;
    boolean held = false;
    if (stopped == null && POOL != null) {
        long asked = System.nanoTime();
        held = POOL.tryAcquire(Math.max(0L, deadline - asked),
                               java.util.concurrent.TimeUnit.NANOSECONDS);
        waitNs = System.nanoTime() - asked;
        if (!held) {
            stopped = "deadline";
        }
    }
    try {
        if (stopped == null && sleepUs > 0 && !sleepUntil(sleepUs, deadline)) {
            stopped = "deadline";
        }
    } finally {
        if (held) {
            POOL.release();
        }
    }
    if (stopped != null) {
        response.setHeader("X-Queuetune-Stopped", stopped);
        response.sendError(503, "stopped at the page's bound: " + stopped);
        return;
    }
    boolean measurable = cpuStart >= 0 && cpuEnd >= 0;
    response.setHeader("X-Queuetune-Cpu-Us", Long.toString(measurable ? (cpuEnd - cpuStart) / 1000 : -1));
    response.setHeader("X-Queuetune-Permit-Wait-Us", Long.toString(waitNs / 1000));
    response.setHeader("X-Queuetune-Drawn-Work", Long.toString(iterations));
    response.setHeader("X-Queuetune-Drawn-Wait-Us", Long.toString(sleepUs));
    response.setHeader("X-Queuetune-Capped", Integer.toString(
        (workCapped ? 1 : 0) + (waitCapped ? 1 : 0)));
    response.setHeader("X-Queuetune-Virtual", isVirtual(Thread.currentThread()) ? "1" : "0");

    StringBuilder answer = new StringBuilder((int) size + 64);
    answer.append("<!DOCTYPE html><html><head><title>queuetune</title></head><body><p>")
        .append(x).append("</p>\n");
    String line = "<p>The quick brown fox jumps over the lazy dog 0123456789.</p>\n";
    while (answer.length() + line.length() + 15 <= size) {
        answer.append(line);
    }
    answer.append("</body></html>");
    out.print(answer);
%>
