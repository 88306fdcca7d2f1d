#!/usr/bin/env python3
"""bench-monitor: the cost of `astra-register --monitor` holding many WSS lines in one process
(docs/monitoring.md, docs/bench/monitor-1000-wss.md).

Starts the project's Kamailio on 127.0.0.1 with HAProxy ending TLS in front of its WebSocket
listener (KAMAILIO_TLS_FRONT=haproxy, 4 Kamailio TCP workers: one Kamailio 5.6 TCP worker doing
TLS itself saturates at a few hundred connections), writes a lines file of MONITOR_LINES WSS lines
(default 1000), runs the release `astra-register --monitor FILE --ping-interval 30` with its
metrics on a free loopback port, waits until every line has `sip_line_registered 1` on /metrics,
then measures over a steady window of BENCH_MONITOR_SECONDS (default 120: four 30 s ping rounds):

  * RSS of the monitor process (/proc/PID/status VmRSS) at the end of the window; per line both
    raw (RSS / lines) and marginal ((RSS - baseline) / (lines - 1)), where the baseline is the
    RSS of the same monitor holding 1 line, measured first against the same Kamailio;
  * CPU: utime + stime (/proc/PID/stat) over the window, as % of one core; during the window
    /metrics is scraped every SCRAPE_EVERY_S seconds (default 15, Prometheus's usual interval), so
    the figure includes serving the scrapes;
  * scrape latency: GET /metrics on a fresh connection, time to the whole body; the window's
    scrapes plus SCRAPES back-to-back ones after it (default 30); p50/p99/max, body size.

Beside them: OPTIONS pings and registrations the monitor made in the window (from its own
histogram counts), failures counted, the load average. Targets: RSS <= 64 KiB per line, CPU <= 2 %
of one core, a scrape <= 20 ms. Prints ONE JSON object on stdout; diagnostics on stderr.
Usage: run.py BIN_DIR
"""
import json, os, re, subprocess, sys, tempfile, threading, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from kamailio_peer import KamailioPeer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release")
LINES = int(os.environ.get("MONITOR_LINES", "1000"))
WINDOW_S = float(os.environ.get("BENCH_MONITOR_SECONDS", "120"))
PING_S = 30
SCRAPE_EVERY_S = float(os.environ.get("SCRAPE_EVERY_S", "15"))
SCRAPES = int(os.environ.get("SCRAPES", "30"))
# The registrar grants at most 300 s (config/kamailio/kamailio.cfg); 120 s (its default) makes
# every line refresh in a window of 120 s, so refreshes are part of the CPU figure.
EXPIRES = int(os.environ.get("MONITOR_EXPIRES", "120"))
TARGETS = {"rss_kib_per_line": 64, "cpu_percent_of_one_core": 2.0, "scrape_ms": 20.0}
TICKS = os.sysconf("SC_CLK_TCK")


def log(*args):
    print("bench-monitor:", *args, file=sys.stderr, flush=True)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))]


def lines_file(count, port, ca, first):
    f = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    for user in range(first, first + count):
        f.write(json.dumps({"name": f"wss-{user}", "v": 1, "user": str(user), "password": f"astra{user}",
                            "domain": "127.0.0.1", "server": f"127.0.0.1:{port}", "transport": "wss",
                            "ca_file": ca, "expires": EXPIRES}) + "\n")
    f.close()
    return f.name


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for row in f:
            if row.startswith("VmRSS:"):
                return int(row.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


SAMPLE = re.compile(r'^(\w+)\{([^}]*)\} (\S+)$')


def samples(text, name):
    """Every sample of metric `name` (labels text -> value)."""
    out = {}
    for row in text.splitlines():
        m = SAMPLE.match(row)
        if m and m.group(1) == name:
            out[m.group(2)] = float(m.group(3))
    return out


def total(text, name):
    return sum(samples(text, name).values())


class Monitor:
    """The release monitor as a child process; its stdout (JSON Lines events) drained by a thread."""

    def __init__(self, path):
        self.err = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(
            [os.path.join(BIN, "astra-register"), "--monitor", path, "--metrics", "127.0.0.1:0", "--ping-interval",
             str(PING_S), "--timeout", "5", "--json"],
            stdout=subprocess.PIPE, stderr=self.err, stdin=subprocess.DEVNULL, text=True)
        self.address = None
        self.ready = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()
        if not self.ready.wait(20) or self.address is None:
            raise RuntimeError(f"monitor did not report its metrics address: {self.stderr()}")
        self.url = f"http://{self.address}/metrics"

    def _drain(self):
        for row in self.proc.stdout:
            if self.address is None and '"event":"monitoring"' in row:
                self.address = json.loads(row).get("metrics")
                self.ready.set()
        self.ready.set()

    def stderr(self):
        self.err.seek(0)
        return self.err.read().strip()[-600:]

    def scrape(self):
        """GET /metrics on a fresh connection: (ms to the whole body, body)."""
        start = time.perf_counter()
        with urllib.request.urlopen(self.url, timeout=10) as response:
            body = response.read()
        return (time.perf_counter() - start) * 1000, body.decode()

    def wait_registered(self, count, timeout):
        deadline = time.monotonic() + timeout
        registered = 0
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"monitor exited {self.proc.returncode}: {self.stderr()}")
            _, text = self.scrape()
            registered = sum(1 for v in samples(text, "sip_line_registered").values() if v == 1)
            if registered == count:
                return
            time.sleep(1)
        raise RuntimeError(f"only {registered} of {count} lines registered after {timeout} s: {self.stderr()}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def baseline(kamailio, port):
    """RSS of the monitor holding 1 line (the process, its runtime, the metrics server)."""
    path = lines_file(1, port, kamailio.ca, 150999)
    monitor = Monitor(path)
    try:
        monitor.wait_registered(1, 60)
        time.sleep(2)
        return rss_kib(monitor.proc.pid)
    finally:
        monitor.stop()
        os.unlink(path)


def main():
    kamailio = KamailioPeer("astra-bench-monitor-", KAMAILIO_TLS_FRONT="haproxy",
                            KAMAILIO_TCP_MAX=str(LINES + 2000), KAMAILIO_SHM_MB="1024")
    try:
        kamailio.__enter__()
    except RuntimeError as error:
        log(error)
        return 1
    log(f"kamailio + haproxy: run dir {kamailio.run_dir}")
    port = kamailio.base + 3
    path = lines_file(LINES, port, kamailio.ca, 150000)
    try:
        base_kib = baseline(kamailio, port)
        log(f"baseline (1 line): {base_kib} KiB")
        monitor = Monitor(path)
        try:
            started = time.monotonic()
            monitor.wait_registered(LINES, 60 + LINES * 0.1)
            ramp_s = time.monotonic() - started
            log(f"{LINES} lines registered in {ramp_s:.1f} s; settling 10 s, then a {WINDOW_S:.0f} s window")
            time.sleep(10)
            pid = monitor.proc.pid
            _, before = monitor.scrape()
            load_before = os.getloadavg()
            kam_before = kamailio.cpu_seconds()
            cpu_before, window_start = cpu_s(pid), time.monotonic()
            scrape_ms, body_bytes, next_scrape = [], 0, window_start + SCRAPE_EVERY_S
            load_samples = []
            while time.monotonic() - window_start < WINDOW_S:
                time.sleep(max(0.0, min(next_scrape, window_start + WINDOW_S) - time.monotonic()))
                if time.monotonic() >= next_scrape and time.monotonic() - window_start < WINDOW_S:
                    ms, text = monitor.scrape()
                    scrape_ms.append(ms)
                    body_bytes = len(text.encode())
                    load_samples.append(os.getloadavg()[0])
                    next_scrape += SCRAPE_EVERY_S
            window = time.monotonic() - window_start
            cpu = cpu_s(pid) - cpu_before
            kam = kamailio.cpu_seconds() - kam_before
            rss = rss_kib(pid)
            load_after = os.getloadavg()
            _, after = monitor.scrape()
            for _ in range(SCRAPES):
                ms, text = monitor.scrape()
                scrape_ms.append(ms)
                body_bytes = len(text.encode())
                time.sleep(0.1)
            registered = sum(1 for v in samples(after, "sip_line_registered").values() if v == 1)
            up = sum(1 for v in samples(after, "sip_line_up").values() if v == 1)
            monitor_threads = threads(pid)
        finally:
            monitor.stop()
    finally:
        os.unlink(path)
        kamailio.__exit__(None, None, None)

    per_line_raw = rss / LINES
    per_line = (rss - base_kib) / max(1, LINES - 1)
    cpu_percent = 100 * cpu / window
    p99 = percentile(scrape_ms, 99)
    result = {
        "benchmark": "monitor",
        "kamailio": "127.0.0.1 (scripts/kamailio.sh, KAMAILIO_TLS_FRONT=haproxy: HAProxy ends TLS, 4 Kamailio TCP workers)",
        "cpus": os.cpu_count(), "lines": LINES, "transport": "wss", "ping_interval_s": PING_S,
        "expires_s": EXPIRES, "ramp_s": round(ramp_s, 1), "window_s": round(window, 1),
        "ping_rounds_in_window": round(window / PING_S, 1),
        "options_in_window": int(total(after, "sip_options_duration_seconds_count")
                                 - total(before, "sip_options_duration_seconds_count")),
        "registrations_in_window": int(total(after, "sip_register_duration_seconds_count")
                                       - total(before, "sip_register_duration_seconds_count")),
        "failures_in_window": int(total(after, "sip_line_failures_total") - total(before, "sip_line_failures_total")),
        "registered_at_end": registered, "up_at_end": up, "threads": monitor_threads,
        "rss_kib": rss, "rss_kib_baseline_1_line": base_kib,
        "rss_kib_per_line": round(per_line, 1), "rss_kib_per_line_raw": round(per_line_raw, 1),
        "cpu_s": round(cpu, 2), "cpu_percent_of_one_core": round(cpu_percent, 3),
        "kamailio_cpu_percent_of_one_core": round(100 * kam / window, 2),
        "scrape_ms": {"p50": round(percentile(scrape_ms, 50), 2), "p99": round(p99, 2),
                      "max": round(max(scrape_ms), 2), "scrapes": len(scrape_ms)},
        "scrape_body_bytes": body_bytes, "scrape_every_s_in_window": SCRAPE_EVERY_S,
        "targets": {"rss_kib_per_line": f"<= {TARGETS['rss_kib_per_line']}",
                    "cpu_percent_of_one_core": f"<= {TARGETS['cpu_percent_of_one_core']}",
                    "scrape_ms_p99": f"<= {TARGETS['scrape_ms']}"},
        "pass": {"rss": per_line_raw <= TARGETS["rss_kib_per_line"],
                 "cpu": cpu_percent <= TARGETS["cpu_percent_of_one_core"],
                 "scrape": p99 <= TARGETS["scrape_ms"],
                 "all_registered": registered == LINES},
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "load_average_1m_max_in_window": round(max(load_samples or [load_after[0]]), 2),
    }
    print(json.dumps(result))
    return 0 if all(result["pass"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
