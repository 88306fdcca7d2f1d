#!/usr/bin/env python3
"""A correct incoming-call handler: CallKit report before anything else, INVITE claims the
push's call, answer waits for the 200 OK, stale or odd pushes end at once.

    astra-pushsim check --client-cmd 'python3 Examples/python-client/correct_client.py'   # exit 0
"""

import uuid as uuids

import astra_client as a


class CorrectApp(a.App):
    name = "python-correct"

    def __init__(self, settings):
        super().__init__(settings)
        self.calls = {}  # uuid -> {"push_id", "call", "invite", "answer_waits", "declined", "over"}

    def _new_uuid(self):
        return str(uuids.uuid4()).upper()

    def launched(self):
        return [a.register()] if self.device["app_state"] == "foreground" else []

    def push(self, push):
        uuid = self._new_uuid()
        ops = [a.report(uuid, push_id=push["push_id"])]  # CallKit first, always
        late = self.device["t"] - push["sent_at"] > self.settings.get("stale_after_ms", 2000)
        caller = None
        if "sealed" in push:
            # Never trust a sealed push on its own: known gateway, opens for this call, not late.
            caller = self.open_sealed(push["sealed"])
            if caller is None:
                return ops + [a.end(uuid, "failed")]  # shown as the app's name, ended at once
        if push["content"] != "call" or push["origin"] != "known" or late:
            return ops + [a.end(uuid, "failed")]
        if caller is not None:
            ops.append(a.show_caller(uuid))
        self.calls[uuid] = {"push_id": push["push_id"], "call": push["call"], "invite": None,
                            "answer_waits": False, "declined": False, "over": False}
        return ops + [a.ack(push["push_id"]),
                      a.start_timer("placeholder " + uuid, self.settings.get("placeholder_timeout_ms", 10000)),
                      a.register()]

    def open_sealed(self, sealed):
        return a.open_sealed(sealed, self.call_keys, self.device["t"])

    def _end(self, uuid, reason):
        c = self.calls[uuid]
        ops = [a.fail(uuid)] if c["answer_waits"] else []
        c["answer_waits"], c["over"] = False, True
        return ops + [a.end(uuid, reason)]

    def ack_response(self, push_id, call_active):
        if call_active:
            return []
        ops = []
        for uuid, c in self.calls.items():
            if c["push_id"] == push_id and not c["over"]:
                ops += self._end(uuid, "remoteEnded")
        return ops

    def call_gone(self, push_id):
        return self.ack_response(push_id, False)

    def keys(self, keys):
        # The launch is the check-in: renew the call grants once less than 7 days remain (a
        # relaunch right after sees 14 days and sends nothing: no grant storm).
        super().keys(keys)
        now = self.device["t"]
        due = any(expires - now < 7 * a.DAY_MS for expires in self.grant_expires.values())
        return [a.renew_grant()] if due else []

    def token_updated(self):
        return [a.upload_token()]

    def token_invalidated(self):
        # The token is gone: each sealing gateway must drop our grant and call key too.
        return [a.delete_token()] + ([a.stop_grants()] if self.call_keys else [])

    def invite(self, call, push_id):
        for uuid, c in self.calls.items():
            if push_id >= 0 and c["push_id"] == push_id and c["invite"] is None:
                c["invite"] = call
                if c["declined"]:
                    return [a.decline(call)]
                if c["over"]:
                    return []
                ops = [a.claim(call, uuid), a.update(uuid)]
                if c["answer_waits"]:
                    c["answer_waits"] = False
                    ops += [a.ok(call), a.fulfill(uuid)]
                return ops
        uuid = self._new_uuid()  # a direct ring: no push came first
        self.calls[uuid] = {"push_id": None, "call": call, "invite": call,
                            "answer_waits": False, "declined": False, "over": False}
        return [a.report(uuid, invite=call), a.claim(call, uuid)]

    def cancel(self, call):
        ops = []
        for uuid, c in self.calls.items():
            if not c["over"] and call in (c["invite"], c["call"]):
                ops += self._end(uuid, "remoteEnded")
        return ops

    def answer_action(self, uuid):
        c = self.calls.get(uuid)
        if c is None or c["over"]:
            return [a.fail(uuid)]
        if c["invite"] is not None:
            return [a.ok(c["invite"]), a.fulfill(uuid)]
        c["answer_waits"] = True  # fulfilled once the INVITE is in and the 200 OK sent
        return []

    def end_action(self, uuid):
        c = self.calls.get(uuid)
        if c is None or c["over"]:
            return []
        c["over"], c["declined"], c["answer_waits"] = True, True, False
        return [a.decline(c["invite"])] if c["invite"] is not None else []

    def timer(self, name):
        uuid = name.split(" ", 1)[1]
        c = self.calls.get(uuid)
        if c is None or c["over"] or c["invite"] is not None:
            return []
        return self._end(uuid, "failed")  # no INVITE came

    def connectivity(self, online):
        return [a.register()] if online and self.device["app_state"] == "foreground" else []


if __name__ == "__main__":
    a.run(CorrectApp)
