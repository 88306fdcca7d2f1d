#!/usr/bin/env python3
"""bench-register-sipsak: one-shot astra-register over UDP against sipsak's one-shot REGISTER.

Same user (1001), same Kamailio (started here on random ports, scripts/kamailio.sh), runs
alternating one by one (who goes first flips every pair), after an untimed warm-up. Per run:
CPU = user + system time of the process from wait4(2) rusage, wall = spawn to exit. Targets
CPU <= 1.5x sipsak's, wall <= 1.0x sipsak's, on the medians; the JSON breaks each side's CPU
down (user, system, page faults, context switches).

astra-register's one-shot does more than sipsak's: REGISTER, 401, REGISTER with digest, 200,
then it unregisters (REGISTER expires=0 with digest, 200): 6 messages to sipsak's 4.
The machine's load average is printed beside the figures (other builds share the cores).
Diagnostics go to stderr; stdout is ONE JSON object. Usage: run.py BIN_DIR
"""
import json, os, statistics, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from kamailio_peer import KamailioPeer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release")
PAIRS = int(os.environ.get("BENCH_PAIRS", "40"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "3"))
USER, PASSWORD = "1001", "astra1001"


def log(*args):
    print("bench-register-sipsak:", *args, file=sys.stderr)


def measure(args):
    """(wall ms, CPU ms, breakdown) of one process; raises when it fails. The breakdown is what
    the CPU went to: user and system ms, minor and major page faults, context switches."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    stderr = proc.stderr.read().decode(errors="replace").strip()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args[0]} failed ({os.waitstatus_to_exitcode(status)}): {stderr[-300:]}")
    breakdown = {"user_ms": usage.ru_utime * 1000, "sys_ms": usage.ru_stime * 1000,
                 "minor_faults": usage.ru_minflt, "major_faults": usage.ru_majflt,
                 "context_switches": usage.ru_nvcsw + usage.ru_nivcsw}
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, breakdown


def stats(values):
    values = sorted(values)
    return {"median": round(statistics.median(values), 2),
            "p90": round(values[min(len(values) - 1, int(0.9 * len(values)))], 2),
            "min": round(values[0], 2), "runs": len(values)}


def main():
    if subprocess.run(["which", "sipsak"], stdout=subprocess.DEVNULL).returncode != 0:
        log("sipsak is not installed (scripts/debian-packages.txt)")
        return 1
    try:
        peer = KamailioPeer("astra-bench-sipsak-").__enter__()
    except RuntimeError as error:
        log(error)
        return 1
    base = peer.base
    try:
        astra = [os.path.join(BIN, "astra-register"), "--password", PASSWORD, "--server", f"127.0.0.1:{base}",
                 f"sip:{USER}@127.0.0.1"]
        sipsak = ["sipsak", "-U", "-C", f"sip:{USER}@127.0.0.1:{base + 200}", "-s", f"sip:{USER}@127.0.0.1:{base}",
                  "-a", PASSWORD, "-x", "60"]
        load_before = os.getloadavg()
        for _ in range(WARMUP):
            measure(astra)
            measure(sipsak)
        ours, theirs = [], []
        for i in range(PAIRS):
            order = ((astra, ours), (sipsak, theirs)) if i % 2 == 0 else ((sipsak, theirs), (astra, ours))
            for args, into in order:
                into.append(measure(args))
        load_after = os.getloadavg()
        # Untimed: remove sipsak's binding (astra-register removes its own).
        subprocess.run(sipsak[:-1] + ["0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu_ratio = statistics.median(c for _, c, _ in ours) / statistics.median(c for _, c, _ in theirs)
        wall_ratio = statistics.median(w for w, _, _ in ours) / statistics.median(w for w, _, _ in theirs)

        def breakdown(runs):
            keys = runs[0][2].keys()
            return {key: stats([b[key] for _, _, b in runs]) for key in keys}
        result = {
            "benchmark": "register-oneshot-vs-sipsak", "transport": "udp", "user": USER,
            "kamailio": "127.0.0.1 (scripts/kamailio.sh)", "pairs": PAIRS, "warmup": WARMUP,
            "astra_register": {"cpu_ms": stats([c for _, c, _ in ours]), "wall_ms": stats([w for w, _, _ in ours]),
                               "breakdown": breakdown(ours), "messages": 6},
            "sipsak": {"cpu_ms": stats([c for _, c, _ in theirs]), "wall_ms": stats([w for w, _, _ in theirs]),
                       "breakdown": breakdown(theirs), "messages": 4},
            "cpu_ratio": round(cpu_ratio, 3), "wall_ratio": round(wall_ratio, 3),
            "targets": {"cpu_ratio_max": 1.5, "wall_ratio_max": 1.0,
                        "met": cpu_ratio <= 1.5 and wall_ratio <= 1.0},
            "load_average": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in load_after]},
            "note": "CPU = rusage user+system of the whole process; medians of alternating runs; astra-register "
                    "also unregisters (6 messages to sipsak's 4); release build, static Swift runtime, OpenSSL "
                    "and libstdc++ (decisions D7)",
        }
        log(f"astra-register cpu {result['astra_register']['cpu_ms']['median']} ms wall "
            f"{result['astra_register']['wall_ms']['median']} ms; sipsak cpu {result['sipsak']['cpu_ms']['median']} "
            f"ms wall {result['sipsak']['wall_ms']['median']} ms; ratios cpu {result['cpu_ratio']} wall "
            f"{result['wall_ratio']}; load {load_before[0]:.2f}")
        print(json.dumps(result))
        return 0 if result["targets"]["met"] else 1
    finally:
        peer.__exit__(None, None, None)


if __name__ == "__main__":
    sys.exit(main())
