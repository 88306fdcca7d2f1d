"""The client side of astra-pushsim's client protocol (astra-pushsim-client/1), for Python.

astra-pushsim starts your program and writes one JSON line per callback on its stdin; your
program answers each with one JSON line on its stdout: {"ops": [...]} in the order your app
would do them. The protocol is documented in docs/pushkit-emulator.md ("Bring your own client").

Subclass App, override the callbacks your app handles, return a list of ops (use the helpers
below), and call run(MyApp). Anything you print for yourself must go to stderr: stdout is the
protocol.
"""

import base64
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


def show_caller(uuid):
    """The CXCallUpdate of `uuid` shows the caller's name/number (only for a sealed push that opened)."""
    return {"op": "show_caller", "uuid": uuid}


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


def stop_grants():
    """DELETE /api/v1/users/voip-push-grant on every gateway joined: iOS took the token back."""
    return {"op": "stop_grants"}


def renew_grant(lifetime_s=14 * 86400):
    """POST /api/v1/users/voip-push-grant to every gateway joined: a new call grant (ask 14 days;
    a gateway refuses more than 15). Send it at launch once less than 7 days remain, never within
    15 minutes of the last."""
    return {"op": "renew_grant", "lifetime_s": lifetime_s}


DAY_MS = 86_400_000


def fetch():
    return {"op": "fetch"}


def start_timer(name, after_ms):
    return {"op": "start_timer", "timer": name, "after_ms": after_ms}


def b64url(text):
    """Base64url without padding (how blobs and call keys travel) to bytes."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def open_sealed(sealed, keys, now):
    """The caller of a sealed push as a dict (uri, user, name, end_ms), or None when the phone must
    not trust it: the gateway hash is not one it holds a key for, the blob does not open under
    that key with the push's call ID as associated data (AES-256-GCM, nonce 12 ‖ ciphertext ‖
    tag 16, plaintext padded with 0x80 0x00…), or the earlier end time has passed.

    `keys` is {gateway_hash: key bytes} from the call_keys callback. Needs the `cryptography`
    package (pip install cryptography) for AES-GCM."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key = keys.get(sealed["gateway_hash"])
    if key is None:
        return None
    blob = b64url(sealed["blob"])
    try:
        padded = AESGCM(key).decrypt(blob[:12], blob[12:], sealed["call_id"].encode())
    except (InvalidTag, ValueError):
        return None
    body = padded.rstrip(b"\x00")
    if not body.endswith(b"\x80"):
        return None
    try:
        caller = json.loads(body[:-1])
    except ValueError:
        return None
    if not isinstance(caller, dict) or not isinstance(caller.get("end_ms"), int):
        return None
    if now >= min(caller["end_ms"], sealed["end_ms"]):
        return None
    return caller


class App:
    """One app process. `settings` are the thresholds the scenario is judged by; `device` the
    facts of the current callback (t, app_state, locked, online)."""

    name = "python-client"

    def __init__(self, settings):
        self.settings = settings
        self.device = {}
        self.call_keys = {}  # gateway_hash -> key bytes, from call_keys
        self.grant_expires = {}  # gateway_hash -> the gateway's call grant expiry (device ms)

    # Callbacks: each returns a list of ops (default: nothing).
    def launched(self): return []
    def push(self, push): return []

    def keys(self, keys):
        """call_keys: the call keys the app read from its keychain at launch (sealed pushes)."""
        self.call_keys = {k["gateway_hash"]: b64url(k["key"]) for k in keys}
        self.grant_expires = {k["gateway_hash"]: k["grant_expires_ms"] for k in keys if "grant_expires_ms" in k}
        return []

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
                "call_keys": lambda: (msg["keys"],),
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
            method = "keys" if kind == "call_keys" else kind
            answer = {"ops": getattr(app, method)(*args)}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
