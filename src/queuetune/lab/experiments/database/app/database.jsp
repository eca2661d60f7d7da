<%--
  The test page of the database experiment: arithmetic on the request's thread, then a
  connection borrowed from a HikariCP pool of C connections to a real PostgreSQL (its driver,
  pgJDBC), a query whose processor time in the database is asked for, and a wait holding the
  connection (the application's work between its statements), after which the connection
  goes back to the pool. HikariCP's own queue of borrowers is the pool's queue.

    GET /database.jsp?work=N&db_work=N&sleep_us=US&dist=D&bytes=SIZE
    GET /database.jsp?stats=1      the pool's counters, one "name value" line each

  work      mean iterations of the arithmetic loop on the request's thread
  db_work   mean iterations of qt_work(), the database's processor time (calibrated apart)
  sleep_us  mean wait holding the connection, in microseconds
  dist      constant, exponential or lognormal (coefficient of variation @QUEUETUNE_CV@):
            each of the three is the mean times a factor drawn for the request, independently,
            with mean 1, cut at @QUEUETUNE_MAX_FACTOR@ (a draw above is taken as that)
  bytes     size of the answer

  Bounds (queuetune.lab.tomcat: MAX_CPU_MS, MAX_WAIT_MS, MAX_HOLD_MS, written in when the page
  is made): a mean wait over MAX_WAIT_MS is refused and a drawn one cut there; the arithmetic
  stops once the thread has used MAX_CPU_MS of processor time; every statement of the pool's
  connections stops after MAX_CPU_MS (statement_timeout); the request stops at its deadline
  (header X-Queuetune-Deadline-Ms, the client's timeout) or MAX_HOLD_MS. A stopped request gets
  503 and X-Queuetune-Stopped: processor-time, deadline, pool-timeout (no connection within
  HikariCP's connectionTimeout, @QUEUETUNE_POOL_TIMEOUT_MS@ ms) or database (the query failed).

  Headers of the answer: X-Queuetune-Cpu-Us (processor time of the request's thread, the
  whole request), X-Queuetune-Permit-Wait-Us (time in getConnection: the pool wait),
  X-Queuetune-Db-Us (time in the query, the database's work and the round trip),
  X-Queuetune-Hold-Us (time the connection was held), X-Queuetune-Work, X-Queuetune-Db-Work,
  X-Queuetune-Sleep-Us (what was drawn), X-Queuetune-Virtual (0: platform threads).

  SAFE TO DEPLOY ONLY WHILE YOU MEASURE. The page does work only for a request that carries
  the secret written into it when it was made (header X-Queuetune-Secret): any other request
  gets 403 at once, without reading a parameter or touching the pool.
--%><%@ page session="false" contentType="text/html; charset=UTF-8" trimDirectiveWhitespaces="true"
    import="java.lang.management.ManagementFactory, java.lang.management.ThreadMXBean, java.util.concurrent.ThreadLocalRandom, java.util.concurrent.atomic.AtomicLong, java.sql.Connection, java.sql.PreparedStatement, java.sql.ResultSet, java.sql.SQLException, java.sql.SQLTransientConnectionException, com.zaxxer.hikari.HikariConfig, com.zaxxer.hikari.HikariDataSource, com.zaxxer.hikari.HikariPoolMXBean" %><%!
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final byte[] SECRET =
        "@QUEUETUNE_SECRET@".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final long MAX_CPU_NS = @QUEUETUNE_MAX_CPU_MS@L * 1_000_000L;
    private static final long MAX_WAIT_US = @QUEUETUNE_MAX_WAIT_MS@L * 1_000L;
    private static final long MAX_HOLD_MS = @QUEUETUNE_MAX_HOLD_MS@L;
    private static final double MAX_FACTOR = @QUEUETUNE_MAX_FACTOR@;
    private static final double CV = @QUEUETUNE_CV@;
    private static final AtomicLong TIMEOUTS = new AtomicLong();
    private static final AtomicLong FAILURES = new AtomicLong();
    private static final String QUERY = "@QUEUETUNE_QUERY@";
    private static final int ROWS = @QUEUETUNE_ROWS@;
    private static final HikariDataSource POOL = pool();

    // C connections, all opened at once and kept (minimumIdle = maximumPoolSize, HikariCP's
    // advice for a fixed pool); a borrower waits at most connectionTimeout.
    private static HikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setPoolName("queuetune");
        config.setDriverClassName("org.postgresql.Driver");
        config.setJdbcUrl("@QUEUETUNE_JDBC_URL@");
        config.setMaximumPoolSize(@QUEUETUNE_POOL@);
        config.setMinimumIdle(@QUEUETUNE_POOL@);
        config.setConnectionTimeout(@QUEUETUNE_POOL_TIMEOUT_MS@L);
        config.setConnectionInitSql("SET statement_timeout = " + @QUEUETUNE_MAX_CPU_MS@);
        config.setRegisterMbeans(true);
        return new HikariDataSource(config);
    }

    private static long deadline(jakarta.servlet.http.HttpServletRequest request, long started) {
        long holdMs = MAX_HOLD_MS;
        String given = request.getHeader("X-Queuetune-Deadline-Ms");
        if (given != null) {
            holdMs = Math.max(0L, Math.min(MAX_HOLD_MS, Long.parseLong(given.trim())));
        }
        return started + holdMs * 1_000_000L;
    }

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

    // A factor of mean 1 drawn from the distribution, cut at MAX_FACTOR.
    private static double factor(String dist) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        double drawn;
        switch (dist) {
            case "constant":
                return 1.0;
            case "exponential":
                drawn = -Math.log(1.0 - random.nextDouble());
                break;
            case "lognormal":
                double sigma2 = Math.log(1.0 + CV * CV);
                drawn = Math.exp(-sigma2 / 2.0 + Math.sqrt(sigma2) * random.nextGaussian());
                break;
            default:
                throw new IllegalArgumentException("dist must be constant, exponential or lognormal");
        }
        return Math.min(drawn, MAX_FACTOR);
    }

    private static long drawn(long mean, double factor, long max) {
        return Math.min(max, Math.round(mean * factor));
    }
%><%
    if (!allowed(request)) {
        response.sendError(403, "this test page needs its secret; remove it after measuring");
        return;
    }
    if (request.getParameter("stats") != null) {
        HikariPoolMXBean bean = POOL.getHikariPoolMXBean();
        response.setContentType("text/plain; charset=UTF-8");
        out.print("timeouts " + TIMEOUTS.get() + "\nfailures " + FAILURES.get()
                  + "\nactive " + bean.getActiveConnections() + "\nidle "
                  + bean.getIdleConnections() + "\ntotal " + bean.getTotalConnections()
                  + "\nwaiting " + bean.getThreadsAwaitingConnection() + "\n");
        return;
    }
    long started = System.nanoTime();
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    String dist = request.getParameter("dist") == null ? "constant" : request.getParameter("dist");
    long work = drawn(parameter(request, "work", 0L, 100_000_000_000L), factor(dist), Long.MAX_VALUE);
    long dbWork = drawn(parameter(request, "db_work", 0L, 100_000_000_000L), factor(dist), Long.MAX_VALUE);
    long sleepUs = drawn(parameter(request, "sleep_us", 0L, MAX_WAIT_US), factor(dist), MAX_WAIT_US);
    long deadline = deadline(request, started);
    long size = parameter(request, "bytes", 2048L, 10_000_000L);

    String stopped = null;
    double x = 1.0;
    for (long i = 0; i < work; i++) {
        x = Math.sqrt(x + i) * 1.0000001;
        if ((i & 0xFFFF) == 0xFFFF) {
            if (System.nanoTime() - deadline > 0) {
                stopped = "deadline";
                break;
            }
            if (THREADS.getCurrentThreadCpuTime() - cpuStart > MAX_CPU_NS) {
                stopped = "processor-time";
                break;
            }
        }
    }
    long waitNs = 0, dbNs = 0, holdNs = 0;
    if (stopped == null) {
        long asked = System.nanoTime();
        Connection connection = null;
        try {
            connection = POOL.getConnection();
        } catch (SQLTransientConnectionException e) {
            TIMEOUTS.incrementAndGet();
            stopped = "pool-timeout";
        } catch (SQLException e) {
            FAILURES.incrementAndGet();
            stopped = "database";
        }
        long got = System.nanoTime();
        waitNs = got - asked;
        if (connection != null) {
            try {
                if (got - deadline > 0) {
                    stopped = "deadline";
                } else {
                    try (PreparedStatement statement = connection.prepareStatement(QUERY)) {
                        statement.setQueryTimeout((int) Math.max(1L, (deadline - got) / 1_000_000_000L));
                        statement.setLong(1, dbWork);
                        statement.setInt(2, 1 + ThreadLocalRandom.current().nextInt(ROWS));
                        try (ResultSet rows = statement.executeQuery()) {
                            rows.next();
                            x += rows.getDouble(1) + rows.getDouble(2);
                        }
                    } catch (SQLException e) {
                        FAILURES.incrementAndGet();
                        stopped = "database";
                    }
                    dbNs = System.nanoTime() - got;
                    if (stopped == null && sleepUs > 0 && !sleepUntil(sleepUs, deadline)) {
                        stopped = "deadline";
                    }
                }
            } finally {
                connection.close();
                holdNs = System.nanoTime() - got;
            }
        }
    }
    if (stopped != null) {
        response.setHeader("X-Queuetune-Stopped", stopped);
        response.setHeader("X-Queuetune-Permit-Wait-Us", Long.toString(waitNs / 1000));
        response.sendError(503, "stopped at the page's bound: " + stopped);
        return;
    }
    long cpuEnd = THREADS.getCurrentThreadCpuTime();
    response.setHeader("X-Queuetune-Cpu-Us", Long.toString((cpuEnd - cpuStart) / 1000));
    response.setHeader("X-Queuetune-Permit-Wait-Us", Long.toString(waitNs / 1000));
    response.setHeader("X-Queuetune-Db-Us", Long.toString(dbNs / 1000));
    response.setHeader("X-Queuetune-Hold-Us", Long.toString(holdNs / 1000));
    response.setHeader("X-Queuetune-Work", Long.toString(work));
    response.setHeader("X-Queuetune-Db-Work", Long.toString(dbWork));
    response.setHeader("X-Queuetune-Sleep-Us", Long.toString(sleepUs));
    response.setHeader("X-Queuetune-Virtual", "0");

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
