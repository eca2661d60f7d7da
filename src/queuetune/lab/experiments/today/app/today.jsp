<%--
  The test page of today's server: some arithmetic on the processor, then a wait phase (a
  database call, say) that holds one of C permits of a pool, as a connection of HikariCP is
  held: a fair java.util.concurrent.Semaphore of C permits, written into the page when it is
  deployed (C = 0: no pool, the wait phase holds nothing).

    GET /today.jsp?work=ITERATIONS&sleep_us=MICROSECONDS&bytes=SIZE

  work      iterations of the arithmetic loop (the runner calibrates iterations per millisecond)
  sleep_us  the wait phase, in microseconds, spent holding a permit (after waiting for one)
  bytes     size of the answer

  Headers of the answer: X-Queuetune-Cpu-Us (processor time of the request's thread, -1 when
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
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final byte[] SECRET =
        "@QUEUETUNE_SECRET@".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int PERMITS = @QUEUETUNE_POOL@;
    // fair: permits go to the waiting requests in the order they asked (as HikariCP's
    // handoff queue serves waiting borrowers)
    private static final Semaphore POOL = PERMITS > 0 ? new Semaphore(PERMITS, true) : null;

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
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long iterations = parameter(request, "work", 0L, 100_000_000_000L);
    long sleepUs = parameter(request, "sleep_us", 0L, 600_000_000L);
    long size = parameter(request, "bytes", 2048L, 10_000_000L);

    // A dependent chain of square roots: it cannot be vectorized or skipped, and its result
    // goes into the answer so that the JIT cannot drop it.
    double x = 1.0;
    for (long i = 0; i < iterations; i++) {
        x = Math.sqrt(x + i) * 1.0000001;
    }
    long cpuEnd = THREADS.getCurrentThreadCpuTime();
    long waitNs = 0;
    if (POOL != null) {
        long asked = System.nanoTime();
        POOL.acquire();
        waitNs = System.nanoTime() - asked;
    }
    try {
        if (sleepUs > 0) {
            Thread.sleep(sleepUs / 1000, (int) (sleepUs % 1000) * 1000);
        }
    } finally {
        if (POOL != null) {
            POOL.release();
        }
    }
    boolean measurable = cpuStart >= 0 && cpuEnd >= 0;
    response.setHeader("X-Queuetune-Cpu-Us", Long.toString(measurable ? (cpuEnd - cpuStart) / 1000 : -1));
    response.setHeader("X-Queuetune-Permit-Wait-Us", Long.toString(waitNs / 1000));
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
