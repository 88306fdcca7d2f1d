#!/usr/bin/env python3
"""bench-register: astra-register against the project's Kamailio on 127.0.0.1 (issue 4).

Prints ONE JSON object on stdout:
  * one-shot verify time over UDP and WSS: process start → `registered` event line, and → exit
    (release binary; median, p95, min over N runs);
  * load mode at concurrency 50 (digest REGISTERs/s) and sipp registering the same users
    against the same Kamailio in the same run (alternating who goes first, median of R rounds),
    and the ratio. Both rates are measured on the tool's own clock (sipp: -trace_stat), and each
    tool's round starts from an empty location table (sipp's bindings are removed, untimed). One untimed
    warm-up round of each tool first (BENCH_WARMUP, default 1): a fresh Kamailio's first load is slower.
Diagnostics go to stderr. Usage: run.py BIN_DIR
"""
import csv as csv_module, json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from kamailio_peer import KamailioPeer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release")
RUNS = int(os.environ.get("BENCH_RUNS", "20"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
LINES = int(os.environ.get("BENCH_LINES", "1000"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "1"))
CONCURRENCY = 50


def log(*args):
    print("bench-register:", *args, file=sys.stderr)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))]


def one_shot(transport, port, ca):
    """Wall time from spawn to the `registered` line, and to exit (ms)."""
    args = [os.path.join(BIN, "astra-register"), "--password", "astra1001", "--server", f"127.0.0.1:{port}",
            "--transport", transport, "--ca-file", ca, "sip:1001@127.0.0.1"]
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    registered = None
    for line in proc.stdout:
        if registered is None and '"event":"registered"' in line:
            registered = (time.perf_counter() - start) * 1000
    proc.wait()
    done = (time.perf_counter() - start) * 1000
    if proc.returncode != 0 or registered is None:
        raise RuntimeError(f"{transport} one-shot failed ({proc.returncode}): {proc.stderr.read().strip()}")
    return registered, done


def summary(values):
    return {"median": round(statistics.median(values), 2), "p95": round(percentile(values, 95), 2),
            "min": round(min(values), 2), "runs": len(values)}


def main():
    try:
        peer = KamailioPeer("astra-bench-kamailio-").__enter__()
    except RuntimeError as error:
        log(error)
        return 1
    base = peer.base
    try:
        ca = peer.ca
        result = {"benchmark": "register", "kamailio": "127.0.0.1 (scripts/kamailio.sh)"}
        for transport, port in (("udp", base), ("wss", base + 3)):
            one_shot(transport, port, ca)  # warm-up (page cache, Kamailio children)
            samples = [one_shot(transport, port, ca) for _ in range(RUNS)]
            result[f"oneshot_{transport}_to_registered_ms"] = summary([s[0] for s in samples])
            result[f"oneshot_{transport}_to_exit_ms"] = summary([s[1] for s in samples])
            log(transport, result[f"oneshot_{transport}_to_registered_ms"])

        users = [1001 + i % 99 for i in range(LINES)]
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as lines:
            for u in users:
                lines.write(json.dumps({"v": 1, "user": str(u), "password": f"astra{u}", "domain": "127.0.0.1",
                                        "server": f"127.0.0.1:{base}", "transport": "udp"}) + "\n")
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as csv:
            csv.write("SEQUENTIAL\n")
            for u in users:
                csv.write(f"{u};[authentication username={u} password=astra{u}];127.0.0.1\n")
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as distinct:
            distinct.write("SEQUENTIAL\n")
            for u in sorted(set(users)):
                distinct.write(f"{u};[authentication username={u} password=astra{u}];127.0.0.1\n")
        here = os.path.dirname(__file__)
        scenario = os.path.join(here, "sipp-register.xml")
        cleanup = os.path.join(here, "sipp-unregister.xml")

        def sipp(scenario_file, inf, calls, stat=None):
            args = ["sipp", f"127.0.0.1:{base}", "-sf", scenario_file, "-inf", inf, "-m", str(calls),
                    "-l", str(CONCURRENCY), "-r", "100000", "-rp", "1000", "-p", str(base + 100),
                    "-timeout", "60", "-nostdin"]
            if stat:
                if os.path.exists(stat):
                    os.unlink(stat)
                args += ["-trace_stat", "-stf", stat]
            start = time.perf_counter()
            done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wall = time.perf_counter() - start
            if done.returncode != 0:
                raise RuntimeError(f"sipp failed ({done.returncode}): {done.stderr.strip()[-300:]}")
            return wall

        def sipp_in_process_rate(stat):
            """Calls/s between sipp's first statistics dump (just before the first call) and the
            dump where the last call succeeded: the same span as astra-register's own clock."""
            rows = list(csv_module.reader(open(stat), delimiter=";"))
            head, rows = rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]
            stamp = lambda row: float(row["CurrentTime"].split("\t")[-1])
            done = [r for r in rows if int(r["SuccessfulCall(C)"]) >= LINES]
            return LINES / (stamp(done[0]) - stamp(rows[0]))

        def run_ours():
            out = subprocess.run([os.path.join(BIN, "astra-register"), "--load", lines.name, "--concurrency",
                                  str(CONCURRENCY)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 stdin=subprocess.DEVNULL)
            summary_line = [l for l in out.stdout.splitlines() if '"event":"load_summary"' in l]
            if out.returncode != 0 or not summary_line:
                raise RuntimeError(f"load mode failed ({out.returncode}): {out.stderr.strip()}")
            return json.loads(summary_line[-1])["rate_per_s"]

        def run_sipp():
            stat = csv.name + ".stat"
            wall = sipp(scenario, csv.name, LINES, stat)
            # Untimed: remove sipp's bindings, as astra-register removes its own (phase 2), so each
            # tool's round starts from an empty location table (200 OKs list one binding each).
            sipp(cleanup, distinct.name, len(set(users)))
            return sipp_in_process_rate(stat), LINES / wall

        # Untimed warm-up: the first load on a fresh Kamailio pays its cold start (children's
        # memory pools, usrloc records created rather than updated) — ~20-35 % slower whoever
        # runs it, so round 1 measured Kamailio, not the tools. Both tools run once, unrecorded.
        for _ in range(WARMUP):
            log(f"warm-up (untimed): astra-register {run_ours():.0f}/s, sipp {run_sipp()[0]:.0f}/s")
        ours, theirs, theirs_wall = [], [], []
        for round_ in range(ROUNDS):
            # Alternate who goes first (Kamailio warm-up, neighbours' load).
            for turn in ((run_ours, run_sipp) if round_ % 2 == 0 else (run_sipp, run_ours)):
                if turn is run_ours:
                    ours.append(run_ours())
                else:
                    rate, wall_rate = run_sipp()
                    theirs.append(rate)
                    theirs_wall.append(wall_rate)
            log(f"round {round_ + 1}: astra-register {ours[-1]:.0f}/s, sipp {theirs[-1]:.0f}/s "
                f"(whole process: {theirs_wall[-1]:.0f}/s)")
        result["load"] = {
            "lines": LINES, "concurrency": CONCURRENCY, "rounds": ROUNDS, "warmup_rounds": WARMUP, "transport": "udp", "digest": "MD5 qop=auth",
            "astra_register_per_s": round(statistics.median(ours), 1),
            "sipp_per_s": round(statistics.median(theirs), 1),
            "sipp_whole_process_per_s": round(statistics.median(theirs_wall), 1),
            "ratio_astra_to_sipp": round(statistics.median(ours) / statistics.median(theirs), 3),
            "ratio_per_round": [round(a / b, 3) for a, b in zip(ours, theirs)],
            "note": "both rates on the tool's own clock, first REGISTER to last 200 (sipp: its -trace_stat "
                    "dumps); same 1000 REGISTER+401+REGISTER+200 exchanges over UDP, same 99 users; each "
                    "tool's round starts from an empty location table and creates one binding per user",
        }
        print(json.dumps(result))
        return 0
    finally:
        peer.__exit__(None, None, None)


if __name__ == "__main__":
    sys.exit(main())
