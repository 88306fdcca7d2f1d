#!/usr/bin/env python3
"""Contract server for the platform API client (docs/provisioning.md "Platform API contract").

Implements exactly the three endpoints AstraSIP uses, on 127.0.0.1, with fixture data:
  POST /api/v1/auth/user-login  {"firebase_token": T} -> {"token": JWT, "user": {...}, "expires_at": ISO-8601}
  GET  /api/v1/users                    (Bearer JWT)  -> [user, ...]
  GET  /api/v1/users/<id>/sip-credentials (Bearer JWT) -> credentials object
plus GET /__stats -> {"logins": N, "requests": N} for the tests.

Firebase tokens choose behaviours: fb-good (whole seconds), fb-fraction (dates with .000Z),
fb-unauthorized (401), fb-500 (login 500), fb-badjson (login body is not JSON), fb-slow (login
answers after 3 s), fb-users-500 (users list 500), fb-users-shape (users wrapped in {"users": []}),
fb-bad-date (one user's created_at is not a date), fb-hostile (users list 500 whose error text
carries ESC/BEL/CR/LF and a bearer token), fb-insecure (u1's credentials are a line that turns TLS
verification off and names a CA file), fb-duplicate (u1's credentials name "domain" twice).
Usage: platform_contract_server.py [PORTFILE] -> prints "PORT <n>" (and writes n to PORTFILE), serves until killed.
"""
import base64
import json
import os
import signal
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATS = {"logins": 0, "requests": 0}
TOKENS = {}  # JWT -> firebase token that obtained it
LOCK = threading.Lock()

USERS = [
    {"id": "u1", "name": "Alice", "email": "alice@example.com", "sip_port": "wss", "asterisk_endpoint": "1001",
     "created_at": "2024-03-01T05:30:00Z"},
    {"id": "u2", "name": "Bob", "email": "bob@example.com", "sip_port": "udp", "asterisk_endpoint": "1002",
     "created_at": "2024-03-01T05:30:00.000Z"},
    {"id": "u3", "name": "Carol", "email": "carol@example.com", "sip_port": "wss", "asterisk_endpoint": None,
     "created_at": "2024-03-01T05:30:00.123Z"},
    {"id": 4, "name": "Dave", "email": "dave@example.com", "sip_port": "wss", "asterisk_endpoint": "1004",
     "created_at": "2024-03-02T10:00:00+02:00"},
    {"id": "u5", "name": "Erin", "email": "erin@example.com", "sip_port": "wss", "asterisk_endpoint": "",
     "created_at": "2024-03-02T10:00:00Z"},
]
CREDENTIALS = {
    "u1": {"username": "1001", "password": "alice-secret", "domain": "pbx.example.com",
           "server": "pbx.example.com:8089", "transport": "wss", "ws_path": "/ws",
           "updated_at": "2024-05-01T05:30:00.000Z"},
    "4": {"username": "1004", "auth_username": "dave4", "password": "dave-secret", "domain": "pbx.example.com",
          "host": "edge.example.com", "port": 443, "transport": "wss", "updated_at": "2024-05-01T05:30:00Z"},
}


def b64(data):
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def iso(dt, fraction):
    text = dt.strftime("%Y-%m-%dT%H:%M:%S")
    return text + (".000Z" if fraction else "Z")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_json(self, status, body, raw=None):
        data = raw if raw is not None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def bearer(self):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return None
        with LOCK:
            return TOKENS.get(auth[7:])

    def do_POST(self):
        with LOCK:
            STATS["requests"] += 1
        if self.path != "/api/v1/auth/user-login":
            return self.send_json(404, {"error": "not found"})
        length = int(self.headers.get("Content-Length", "0"))
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            firebase = body["firebase_token"]
        except (ValueError, KeyError, TypeError):
            return self.send_json(400, {"error": "firebase_token required"})
        if self.headers.get("Content-Type", "").split(";")[0] != "application/json":
            return self.send_json(415, {"error": "content type must be application/json"})
        with LOCK:
            STATS["logins"] += 1
        if firebase == "fb-unauthorized":
            return self.send_json(401, {"error": "invalid firebase token"})
        if firebase == "fb-500":
            return self.send_json(500, {"error": "internal"})
        if firebase == "fb-badjson":
            return self.send_json(200, None, raw=b"<html>not json")
        if firebase == "fb-slow":
            time.sleep(3)  # the point: a slow platform for the client timeout
        if not firebase.startswith("fb-"):
            return self.send_json(401, {"error": "invalid firebase token"})
        now = datetime.now(timezone.utc).replace(microsecond=0)
        expires = now + timedelta(hours=24)
        user = {"id": "u1", "email": "alice@example.com", "org_id": "org-1",
                "created_at": iso(now - timedelta(days=30), firebase == "fb-fraction")}
        jwt = "%s.%s.sig" % (b64({"alg": "HS256", "typ": "JWT"}),
                             b64({"sub": "u1", "org_id": "org-1", "exp": int(expires.timestamp()),
                                  "n": STATS["logins"]}))
        with LOCK:
            TOKENS[jwt] = firebase
        self.send_json(200, {"token": jwt, "user": user, "expires_at": iso(expires, firebase == "fb-fraction")})

    def do_GET(self):
        with LOCK:
            STATS["requests"] += 1
        if self.path == "/__stats":
            with LOCK:
                return self.send_json(200, dict(STATS))
        firebase = self.bearer()
        if firebase is None:
            return self.send_json(401, {"error": "missing or invalid token"})
        if self.path == "/api/v1/users":
            if firebase == "fb-users-500":
                return self.send_json(503, {"error": "maintenance"})
            if firebase == "fb-users-shape":
                return self.send_json(200, {"users": USERS})
            if firebase == "fb-bad-date":
                users = [dict(u) for u in USERS]
                users[0]["created_at"] = "yesterday"
                return self.send_json(200, users)
            if firebase == "fb-hostile":
                return self.send_json(500, {"error": "\x1b[2J\x07down\r\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"})
            return self.send_json(200, USERS)
        parts = self.path.split("/")
        if len(parts) == 6 and parts[1:4] == ["api", "v1", "users"] and parts[5] == "sip-credentials":
            if parts[4] == "u1" and firebase == "fb-insecure":
                return self.send_json(200, {"v": 1, "user": "1001", "password": "alice-secret",
                                            "domain": "pbx.example.com", "server": "pbx.example.com:8089",
                                            "transport": "wss", "ca_file": "/etc/shadow", "tls_verify": False})
            if parts[4] == "u1" and firebase == "fb-duplicate":
                return self.send_json(200, None, raw=b'{"username":"1001","password":"alice-secret",'
                                      b'"domain":"pbx.example.com","domain":"evil.example","transport":"wss"}')
            creds = CREDENTIALS.get(parts[4])
            if creds is None:
                return self.send_json(404, {"error": "no credentials"})
            return self.send_json(200, creds)
        self.send_json(404, {"error": "not found"})


if __name__ == "__main__":
    # A parent may start us with signals blocked; let SIGTERM/SIGINT stop the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    if len(sys.argv) > 1:  # the tests read the port from this file
        with open(sys.argv[1] + ".tmp", "w") as f:
            f.write("%d\n" % server.server_address[1])
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.serve_forever()
