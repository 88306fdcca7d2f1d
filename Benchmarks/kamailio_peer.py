"""The project's Kamailio for the benchmarks that drive real processes (Benchmarks/bench-*/run.py).

    with KamailioPeer("astra-bench-x-") as kamailio:
        kamailio.base   # UDP/TCP port; TLS base+1, WS base+2, WSS base+3
        kamailio.ca     # the throw-away CA of its TLS listeners

Starts scripts/kamailio.sh on random ports below the ephemeral range in its own run dir and stops
it on exit; raises when it does not start.
"""
import os, random, subprocess, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


class KamailioPeer:
    def __init__(self, prefix, **settings):
        """`settings`: extra scripts/kamailio.sh variables, e.g. KAMAILIO_TCP_MAX="12000"."""
        self.base = random.randrange(20000, 31000) // 4 * 4
        self.run_dir = tempfile.mkdtemp(prefix=prefix)
        self.env = dict(os.environ, KAMAILIO_SIP_PORT=str(self.base), KAMAILIO_TLS_PORT=str(self.base + 1),
                        KAMAILIO_WS_PORT=str(self.base + 2), KAMAILIO_WSS_PORT=str(self.base + 3),
                        KAMAILIO_RUN_DIR=self.run_dir, **settings)
        self.ca = os.path.join(self.run_dir, "ca.crt")

    def command(self, name):
        return subprocess.run(["bash", os.path.join(ROOT, "scripts", "kamailio.sh"), name], env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)

    def __enter__(self):
        started = self.command("start")
        if started.returncode != 0:
            raise RuntimeError(f"kamailio did not start: {started.stdout.strip()[-500:]}")
        return self

    def cpu_seconds(self):
        """User + system CPU of every process of the Kamailio (its process group), from /proc."""
        with open(os.path.join(self.run_dir, "kamailio.pid")) as f:
            group = int(f.read().strip())
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # After the command: state ppid pgrp … utime (14th field of the line) stime (15th).
            if int(fields[2]) == group:
                total += int(fields[11]) + int(fields[12])
        return total / ticks

    def __exit__(self, *exc):
        self.command("stop")
        return False
