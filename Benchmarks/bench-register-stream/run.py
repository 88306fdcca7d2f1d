#!/usr/bin/env python3
"""bench-register-stream: connection-oriented load (astra-register --storm / --fleet) against the
project's Kamailio on 127.0.0.1, both on the same cores (issue 20, decisions D41, D48).

Prints ONE JSON object on stdout:
  * storm over WSS and over TLS: STORM_LINES lines (default 5000, at most 10000; 0 skips the
    storms), each on a fresh connection (TCP connect, full TLS handshake, WebSocket upgrade for
    WSS), REGISTER with digest, unregister, close; registrations/s, failures, handshake and
    register percentiles, and the CPU astra-register spent per registration beside the CPU
    Kamailio spent (all its processes, /proc, same run) — the ratio must stay <= 0.5 so the load
    generator is never the bottleneck. Beside them, for each key, `tls_client_floor`: OpenSSL's own
    client (`openssl s_time -new`, full handshakes and nothing else) against the same listener,
    FLOOR_S seconds (default 10): its CPU per handshake over Kamailio's CPU per WSS registration
    is the lowest ratio a client making a full handshake per line with this OpenSSL can reach. Measured with an ECDSA P-256 server certificate
    (storm_wss, storm_tls) and, unless STORM_RSA=0, again with RSA-2048 (storm_wss_rsa2048,
    storm_tls_rsa2048) on a second Kamailio: the key type moves the handshake's cost between
    client and server, so both are reported side by side (D48);
  * fleet over WSS (ECDSA): FLEET_LINES lines (default 10000; 0 skips it) ramped at FLEET_RATE
    lines/s (default 100) and held HOLD_S seconds (default 60) with --expires FLEET_EXPIRES
    (default 30: a refresh every 20 s, every line refreshes twice or more), keep-alive every
    30 s: drops, refreshes late, RSS per line.
Kamailio runs with KAMAILIO_TCP_MAX=FLEET_LINES+2000, 3 GiB of shared memory (~150 KiB per TLS
connection) and KAMAILIO_TCP_CHILDREN (default 1: with two workers Kamailio 5.6.3 + OpenSSL 3
corrupts its shared memory under TLS load, D48). Each Kamailio's run dir (its log) is named on
stderr. The machine load (os.getloadavg) is printed beside each figure. Diagnostics go to
stderr. Usage: run.py BIN_DIR
"""
import json, os, resource, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from kamailio_peer import KamailioPeer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release")
STORM_LINES = int(os.environ.get("STORM_LINES", "5000"))
STORM_CONCURRENCY = int(os.environ.get("STORM_CONCURRENCY", "100"))
FLEET_LINES = int(os.environ.get("FLEET_LINES", "10000"))
FLEET_CONCURRENCY = int(os.environ.get("FLEET_CONCURRENCY", "200"))
HOLD_S = float(os.environ.get("HOLD_S", "60"))
FLEET_RATE = os.environ.get("FLEET_RATE", "100")
# One TCP worker: with two, Kamailio 5.6.3 + OpenSSL 3 corrupts its shared memory under TLS load
# (q_malloc "freeing already freed pointer" from tls_init.c, then a crash; decision D48).
TCP_CHILDREN = os.environ.get("KAMAILIO_TCP_CHILDREN", "1")
FLEET_EXPIRES = os.environ.get("FLEET_EXPIRES", "30")
STORM_RSA = os.environ.get("STORM_RSA", "1") != "0"


def log(*args):
    print("bench-register-stream:", *args, file=sys.stderr, flush=True)


def lines_file(first, count, port, transport, ca):
    f = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    for user in range(first, first + count):
        f.write(json.dumps({"v": 1, "user": str(user), "password": f"astra{user}", "domain": "127.0.0.1",
                            "server": f"127.0.0.1:{port}", "transport": transport, "ca_file": ca}) + "\n")
    f.close()
    return f.name


def run_tool(args, kamailio):
    """Runs astra-register; returns its load_summary (with `process_cpu_ms`: the whole process,
    start-up and file reading included, from RUSAGE_CHILDREN) and Kamailio's CPU, seconds."""
    kam_before = kamailio.cpu_seconds()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([os.path.join(BIN, "astra-register")] + args + ["--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    out, err = proc.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    kam = kamailio.cpu_seconds() - kam_before
    summary = next((json.loads(l) for l in out.splitlines() if '"event":"load_summary"' in l), None)
    if summary is None:
        raise RuntimeError(f"astra-register exited {proc.returncode} without a summary: {err.strip()[-400:]}")
    if proc.returncode != 0:
        log(f"astra-register exited {proc.returncode}: {err.strip()[-300:]}")
    summary["exit"] = proc.returncode
    summary["process_cpu_ms"] = round(1000 * (after.ru_utime - children.ru_utime + after.ru_stime - children.ru_stime), 1)
    return summary, kam


def storm(kamailio, transport, port, first, key):
    path = lines_file(first, STORM_LINES, port, transport, kamailio.ca)
    try:
        load = os.getloadavg()[0]
        summary, kam = run_tool(["--load", path, "--storm", "--concurrency", str(STORM_CONCURRENCY)], kamailio)
    finally:
        os.unlink(path)
    registered = summary["registered"]
    ours = summary["process_cpu_ms"] / max(1, registered)
    theirs = kam * 1000 / max(1, registered)
    result = {
        "server_key": key, "lines": STORM_LINES, "concurrency": STORM_CONCURRENCY, "registered": registered,
        "failed": summary["failed"], "failures": summary["failures"],
        "registrations_per_s": round(summary["rate_per_s"], 1),
        "connections_per_s": summary["connections_per_s"],
        "handshake_ms": summary["handshake_ms"], "register_ms": summary["register_ms"],
        "tls_ms": summary.get("tls_ms"), "websocket_ms": summary.get("websocket_ms"),
        "cpu_ms_per_registration": {"astra_register": round(ours, 3), "kamailio": round(theirs, 3),
                                    "ratio": round(ours / theirs, 3) if theirs else None},
        "load_average_before": round(load, 2), "load_average_after": round(os.getloadavg()[0], 2),
        "exit": summary["exit"],
    }
    log(transport, key, "storm:", json.dumps(result))
    return result


FLOOR_S = float(os.environ.get("FLOOR_S", "10"))


def tls_client_floor(kamailio, port, key, wss):
    """The reference for the CPU ratio: OpenSSL's own client (`openssl s_time -new`) making full
    TLS handshakes, and nothing else (no SIP, no WebSocket, no certificate chain verification),
    against the same Kamailio listener for FLOOR_S seconds. Its CPU per handshake beside
    Kamailio's CPU per handshake, and beside Kamailio's CPU per whole registration in the WSS
    storm just run: `floor_ratio` is the lowest CPU ratio any client that makes a full
    handshake per line with this OpenSSL can reach against this server (decision D48)."""
    load = os.getloadavg()[0]
    kam_before = kamailio.cpu_seconds()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(["openssl", "s_time", "-connect", f"127.0.0.1:{port}", "-new", "-time", str(int(FLOOR_S))],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    kam = kamailio.cpu_seconds() - kam_before
    count = next((int(l.split()[0]) for l in proc.stdout.splitlines() if "connections in" in l and "real" in l), 0)
    if proc.returncode != 0 or count == 0:
        log(f"openssl s_time exited {proc.returncode} with {count} handshakes: {proc.stdout.strip()[-300:]}")
        return None
    client = 1000 * (after.ru_utime - children.ru_utime + after.ru_stime - children.ru_stime) / count
    server = kam * 1000 / count
    per_registration = wss["cpu_ms_per_registration"]["kamailio"]
    result = {
        "client": "openssl s_time -new (full handshakes only)", "server_key": key, "handshakes": count,
        "cpu_ms_per_handshake": {"openssl_client": round(client, 3), "kamailio": round(server, 3)},
        "kamailio_cpu_ms_per_wss_registration": per_registration,
        "floor_ratio": round(client / per_registration, 3) if per_registration else None,
        "load_average_before": round(load, 2), "load_average_after": round(os.getloadavg()[0], 2),
    }
    log(key, "TLS client floor:", json.dumps(result))
    return result


def fleet(kamailio, port, first):
    path = lines_file(first, FLEET_LINES, port, "wss", kamailio.ca)
    try:
        load = os.getloadavg()[0]
        args = ["--load", path, "--fleet", "--duration", str(HOLD_S), "--expires", FLEET_EXPIRES,
                "--keep-alive", "30", "--concurrency", str(FLEET_CONCURRENCY), "--timeout", "30"]
        if FLEET_RATE:
            args += ["--rate", FLEET_RATE]
        summary, kam = run_tool(args, kamailio)
    finally:
        os.unlink(path)
    keys = ["registered", "failed", "failures", "held_at_end", "most_held", "drops", "drop_causes", "reconnects",
            "refreshes", "refreshes_late", "refresh_failures", "refresh_ms", "refresh_lateness_ms",
            "keep_alive_pings", "keep_alive_pongs", "rss_kib", "rss_kib_per_line", "peak_rss_kib", "hold_ms",
            "wall_ms", "rate_per_s", "handshake_ms", "register_ms", "cpu_ms", "process_cpu_ms", "exit"]
    result = {"lines": FLEET_LINES, "hold_s": HOLD_S, "expires_s": int(FLEET_EXPIRES), "keep_alive_s": 30,
              "ramp_rate_limit": float(FLEET_RATE) if FLEET_RATE else None}
    result.update({k: summary.get(k) for k in keys})
    result["kamailio_cpu_ms"] = round(kam * 1000, 1)
    result["load_average_before"] = round(load, 2)
    result["load_average_after"] = round(os.getloadavg()[0], 2)
    log("fleet:", json.dumps(result))
    return result


# The server certificate's key type changes who pays for the handshake: with ECDSA P-256 the
# client's two verifies cost several times the server's one sign; with RSA-2048 the server's sign
# is the expensive step and the client's verifies are cheap. Both are measured (decision D48).
KEYS = {"ecdsa": "ecdsa-p256", "rsa": "rsa-2048"}


def start_kamailio(key):
    kamailio = KamailioPeer("astra-bench-stream-", KAMAILIO_TCP_MAX=str(FLEET_LINES + 2000), KAMAILIO_SHM_MB="3072",
                            KAMAILIO_CERT_KEY=key, KAMAILIO_TCP_CHILDREN=TCP_CHILDREN).__enter__()
    log(f"kamailio ({key} certificate): run dir {kamailio.run_dir}")
    return kamailio


def storms(kamailio, key, warm_up, first):
    """One untimed warm-up storm (a fresh Kamailio's first load is slower, D13), then WSS and TLS."""
    global STORM_LINES
    storm_lines = STORM_LINES
    STORM_LINES = min(500, storm_lines)
    storm(kamailio, "wss", kamailio.base + 3, warm_up, KEYS[key])
    STORM_LINES = storm_lines
    wss = storm(kamailio, "wss", kamailio.base + 3, first, KEYS[key])
    tls = storm(kamailio, "tls", kamailio.base + 1, first + 10000, KEYS[key])
    return wss, tls, tls_client_floor(kamailio, kamailio.base + 1, KEYS[key], wss)


def main():
    result = {"benchmark": "register-stream",
              "kamailio": f"127.0.0.1 (scripts/kamailio.sh, {TCP_CHILDREN} TCP worker(s))",
              "cpus": os.cpu_count()}
    # ECDSA P-256 (the default test certificate): storms and the fleet.
    try:
        kamailio = start_kamailio("ecdsa")
    except RuntimeError as error:
        log(error)
        return 1
    try:
        if STORM_LINES > 0:
            result["storm_wss"], result["storm_tls"], result["tls_client_floor"] = storms(kamailio, "ecdsa", 190000, 100000)
        if FLEET_LINES > 0:
            result["fleet_wss"] = fleet(kamailio, kamailio.base + 3, 120000)
    finally:
        kamailio.__exit__(None, None, None)
    # RSA-2048, as many field PBX certificates are: the same storms, reported beside the others.
    if STORM_RSA and STORM_LINES > 0:
        try:
            kamailio = start_kamailio("rsa")
        except RuntimeError as error:
            log(error)
            return 1
        try:
            (result["storm_wss_rsa2048"], result["storm_tls_rsa2048"],
             result["tls_client_floor_rsa2048"]) = storms(kamailio, "rsa", 195000, 140000)
        finally:
            kamailio.__exit__(None, None, None)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
