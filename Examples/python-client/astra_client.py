"""The client side of astra-pushsim's client protocol (astra-pushsim-client/1), for Python.

astra-pushsim starts your program and writes one JSON line per callback on its stdin; your
program answers each with one JSON line on its stdout: {"ops": [...]} in the order your app
would do them. The protocol is documented in docs/pushkit-emulator.md ("Bring your own client").

Subclass App, override the callbacks your app handles, return a list of ops (use the helpers
below), and call run(MyApp). Anything you print for yourself must go to stderr: stdout is the
protocol.
"""

import json
import sys

PROTOCOL = "astra-pushsim-client"
VERSION = 1


# Ops, in the wire form (one dict each).
def ack(push_id):
    """POST /voip-push-ack: the one request allowed before the CallKit report."""
    return {"op": "ack", "push_id": push_id}


def report(uuid, push_id=None, invite=None):
    """CXProvider.reportNewIncomingCall for a push (push_id) or an INVITE (invite = its call)."""
    op = {"op": "report", "uuid": uuid}
    if push_id is not None:
        op["push_id"] = push_id
    if invite is not None:
        op["invite"] = invite
    return op


def update(uuid):
    return {"op": "update", "uuid": uuid}


def end(uuid, reason):
    """reason: failed, remoteEnded, unanswered, answeredElsewhere, declinedElsewhere."""
    return {"op": "end", "uuid": uuid, "reason": reason}


def fulfill(uuid):
    return {"op": "fulfill", "uuid": uuid}


def fail(uuid):
    return {"op": "fail", "uuid": uuid}


def claim(call, uuid):
    """Bind the INVITE of server call `call` to the CallKit call `uuid` (and alert: 180)."""
    return {"op": "claim", "call": call, "uuid": uuid}


def ok(call):
    return {"op": "ok", "call": call}


def decline(call):
    return {"op": "decline", "call": call}


def register(keychain="afterFirstUnlock"):
    return {"op": "register", "keychain": keychain}


def upload_token():
    return {"op": "upload_token"}


def delete_token():
    return {"op": "delete_token"}


def fetch():
    return {"op": "fetch"}


def start_timer(name, after_ms):
    return {"op": "start_timer", "timer": name, "after_ms": after_ms}


class App:
    """One app process. `settings` are the thresholds the scenario is judged by; `device` the
    facts of the current callback (t, app_state, locked, online)."""

    name = "python-client"

    def __init__(self, settings):
        self.settings = settings
        self.device = {}

    # Callbacks: each returns a list of ops (default: nothing).
    def launched(self): return []
    def push(self, push): return []
    def ack_response(self, push_id, call_active): return []
    def call_gone(self, push_id): return []
    def token_updated(self): return []
    def token_invalidated(self): return []
    def registration_finished(self, success): return []
    def invite(self, call, push_id): return []
    def cancel(self, call): return []
    def answer_action(self, uuid): return []
    def end_action(self, uuid): return []
    def timer(self, name): return []
    def connectivity(self, online): return []


def run(app_class):
    """Serves `app_class` on stdin/stdout until astra-pushsim closes stdin."""
    settings = {}
    app = app_class(settings)
    for raw in sys.stdin:
        if not raw.strip():
            continue
        msg = json.loads(raw)
        kind = msg["callback"]
        if kind == "hello":
            answer = {"hello": PROTOCOL, "version": VERSION, "name": app_class.name}
        elif kind == "reset":
            settings = msg.get("settings", {})
            app = app_class(settings)
            answer = {"ops": []}
        else:
            if kind == "launched":
                app = app_class(settings)  # a launched process has fresh memory
            app.device = {k: msg.get(k) for k in ("t", "app_state", "locked", "online")}
            args = {
                "push": lambda: (msg["push"],),
                "ack_response": lambda: (msg["push_id"], msg["call_active"]),
                "call_gone": lambda: (msg["push_id"],),
                "registration_finished": lambda: (msg["success"],),
                "invite": lambda: (msg["call"], msg["push_id"]),
                "cancel": lambda: (msg["call"],),
                "answer_action": lambda: (msg["uuid"],),
                "end_action": lambda: (msg["uuid"],),
                "timer": lambda: (msg["timer"],),
                "connectivity": lambda: (msg["online"],),
            }.get(kind, lambda: ())()
            answer = {"ops": getattr(app, kind)(*args)}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
