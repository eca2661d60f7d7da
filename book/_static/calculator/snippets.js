/* The settings to copy, written from a sizing's numbers: the JavaScript twin of
 * src/queuetune/snippets.py (its docstring gives the reasons and sources of every rule; a
 * browser test, tests/site/test_snippets.py, holds the two to the same text on random inputs).
 * Numbers: threads T, capacity B, connections C (null without a wait), connections_given,
 * max_response_time (s), keep_alive_s (default 20). */
(function () {
  "use strict";
  var KEYS = ["tomcat", "spring", "hikari", "sysctl", "nginx", "virtual_tomcat",
              "virtual_spring"];
  var MAX_CONNECTIONS = 8192, ACCEPT_COUNT = 100, JAVA_INT_MAX = 2147483647;

  function queue(n) { return Math.min(JAVA_INT_MAX, Math.max(1, n.capacity - n.threads)); }

  function maxConnections(n) {
    return Math.min(JAVA_INT_MAX, Math.max(MAX_CONNECTIONS, n.capacity));
  }

  function pool(n) {
    if (n.connections === null) return null;
    return n.connections_given ? n.connections : Math.min(n.connections, n.threads);
  }

  function proxyIdleSeconds(n) {
    if (n.keep_alive_s < 2) {
      throw new Error("keep_alive_s must be at least 2 s (the proxy's idle timeout must be " +
                      "shorter, in whole seconds), got " + n.keep_alive_s);
    }
    return Math.max(1, Math.floor((3 * n.keep_alive_s) / 4));
  }

  function readTimeout(n) { return Math.max(1, Math.ceil(3 * n.max_response_time)); }

  function queueNote(n) {
    if (n.capacity - n.threads > JAVA_INT_MAX) {
      return queue(n) + " may wait for a thread, the most Tomcat takes";
    }
    if (n.capacity > n.threads) return (n.capacity - n.threads) + " may wait for a thread";
    return "no queue is wanted, but maxQueueSize must be at least 1 (0 fails at start), so " +
      "B is " + (n.threads + 1);
  }

  function poolWarning(n) {
    var C = n.connections;
    if (C === null || C <= n.threads) return null;
    if (n.connections_given) {
      return "warning: your pool of " + C + " connections is larger than the " + n.threads +
        " threads; a thread holds one connection, so at most " + n.threads + " are ever used";
    }
    return "the sized pool of " + C + " is cut to the " + n.threads + " threads: a thread " +
      "holds one connection, so more are never used";
  }

  function tomcat(n) {
    return "<!-- T = " + n.threads + " threads, B = " + n.capacity + " admitted requests: " +
      queueNote(n) + " (Tomcat 9.0, 10.1, 11.0) -->\n" +
      "<Executor name=\"tomcatThreadPool\" namePrefix=\"http-exec-\"\n" +
      "          maxThreads=\"" + n.threads + "\" minSpareThreads=\"" +
      Math.min(n.threads, 25) + "\"\n" +
      "          maxQueueSize=\"" + queue(n) + "\"/>\n" +
      "<!-- maxConnections counts connections, idle keep-alive ones included, and refuses " +
      "none: keep it large; the Executor bounds B -->\n" +
      "<Connector port=\"8080\" protocol=\"HTTP/1.1\" executor=\"tomcatThreadPool\"\n" +
      "           maxConnections=\"" + maxConnections(n) + "\" " +
      "acceptCount=\"" + ACCEPT_COUNT + "\"\n" +
      "           connectionTimeout=\"20000\" keepAliveTimeout=\"" + 1000 * n.keep_alive_s +
      "\"\n" +
      "           maxKeepAliveRequests=\"1000\"/>";
  }

  function spring(n) {
    var C = pool(n);
    var lines = [
      "# Spring Boot 3.3.0 or later (the oldest property below is from 1.5)",
      "# T = " + n.threads + " threads (Spring Boot 2.3.0+)",
      "server.tomcat.threads.max=" + n.threads,
      "# B - T = " + queue(n) + " waiting for a thread, B = " + (n.threads + queue(n)) +
        " admitted (Spring Boot 3.3.0+; 0 would be ignored)",
      "server.tomcat.threads.max-queue-capacity=" + queue(n),
      "# connections, idle keep-alive ones included: keep it large (Spring Boot 1.5+)",
      "server.tomcat.max-connections=" + maxConnections(n),
      "# (Spring Boot 1.5+)",
      "server.tomcat.accept-count=" + ACCEPT_COUNT,
      "# longer than the proxy's idle timeout (Spring Boot 2.5.0+)",
      "server.tomcat.keep-alive-timeout=" + n.keep_alive_s + "s"
    ];
    if (C === null) lines.push("# no wait per request: no database pool to size");
    else {
      lines.push("# C = " + C + " connections (Spring Boot 2.0.0+, HikariCP)");
      lines.push("spring.datasource.hikari.maximum-pool-size=" + C);
    }
    var warning = poolWarning(n);
    if (warning) lines.push("# " + warning);
    return lines.join("\n");
  }

  function hikari(n) {
    var C = pool(n);
    if (C === null) return "# no wait per request: no database pool to size";
    var lines = ["# C = " + C + " connections, a fixed-size pool (minimumIdle defaults to it)",
                 "maximumPoolSize=" + C];
    var warning = poolWarning(n);
    if (warning) lines.push("# " + warning);
    return lines.join("\n");
  }

  function sysctl() {
    return "# the listen backlog: at least acceptCount (default 4096 since Linux 5.4)\n" +
      "net.core.somaxconn = 4096\n" +
      "net.ipv4.tcp_max_syn_backlog = 4096";
  }

  function nginx(n) {
    var read = readTimeout(n);
    return "upstream app {   # nginx 1.15.3 or later\n" +
      "    server 127.0.0.1:8080;\n" +
      "    keepalive " + Math.min(n.threads, 256) + ";   # idle connections to the app, " +
      "per worker\n" +
      "    keepalive_timeout " + proxyIdleSeconds(n) + "s;   # shorter than Tomcat's " +
      "keepAliveTimeout (" + n.keep_alive_s + "s)\n" +
      "}\n" +
      "server {\n" +
      "    location / {\n" +
      "        proxy_pass http://app;\n" +
      "        proxy_http_version 1.1;\n" +
      "        proxy_set_header Connection \"\";\n" +
      "        proxy_connect_timeout 5s;\n" +
      "        proxy_read_timeout " + read + "s;   # 3 x the longest acceptable response\n" +
      "        proxy_send_timeout " + read + "s;\n" +
      "    }\n" +
      "}";
  }

  function virtualTomcat(n) {
    var limit = pool(n) !== null
      ? "the database pool, not the threads, limits what runs at once"
      : "the processors, not the threads, limit what runs";
    return "<!-- Virtual threads (Java 21 or later; Tomcat 10.1, 11.0): maxThreads and\n" +
      "     maxQueueSize are not used, every request gets a thread:\n" +
      "     " + limit + ".\n" +
      "     maxConnections is the only bound left: it counts connections (idle keep-alive\n" +
      "     ones included), not requests, and refuses none: a connection over it waits in\n" +
      "     the kernel's backlog. At B = " + n.capacity + " it bounds the admitted requests " +
      "only\n" +
      "     while each connection carries one request at a time; to refuse, limit in front. " +
      "-->\n" +
      "<Connector port=\"8080\" protocol=\"HTTP/1.1\" useVirtualThreads=\"true\"\n" +
      "           maxConnections=\"" + Math.min(JAVA_INT_MAX, n.capacity) + "\" " +
      "acceptCount=\"" + ACCEPT_COUNT + "\"\n" +
      "           connectionTimeout=\"20000\" keepAliveTimeout=\"" + 1000 * n.keep_alive_s +
      "\"/>";
  }

  function virtualSpring(n) {
    return "# virtual threads: Spring Boot 3.2.0 or later, on Java 21 or later\n" +
      "spring.threads.virtual.enabled=true\n" +
      "# connections, not requests: the only bound left (Spring Boot 1.5+)\n" +
      "server.tomcat.max-connections=" + Math.min(JAVA_INT_MAX, n.capacity);
  }

  var WRITERS = { tomcat: tomcat, spring: spring, hikari: hikari, sysctl: sysctl,
                  nginx: nginx, virtual_tomcat: virtualTomcat, virtual_spring: virtualSpring };

  /* Every snippet, by KEYS; n as in snippets.py's Numbers (keep_alive_s defaults to 20). */
  function texts(numbers) {
    var n = {};
    for (var k in numbers) n[k] = numbers[k];
    if (n.keep_alive_s === undefined) n.keep_alive_s = 20;
    if (n.connections_given === undefined) n.connections_given = false;
    var out = {};
    KEYS.forEach(function (key) { out[key] = WRITERS[key](n); });
    return out;
  }

  /* The numbers of a sizing computed by sizing.js. */
  function fromSizing(r) {
    return { threads: r.threads, capacity: r.capacity, connections: r.connections,
             connections_given: r.inputs.connections !== null &&
               r.inputs.connections !== undefined,
             max_response_time: r.max_response_time };
  }

  window.QueuetuneSnippets = { KEYS: KEYS, texts: texts, fromSizing: fromSizing };
})();
