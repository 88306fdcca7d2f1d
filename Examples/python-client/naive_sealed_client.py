#!/usr/bin/env python3
"""The correct handler with one sealed-push bug: it decrypts the caller with the AES keystream
alone (AES-CTR from the GCM nonce) and never verifies the tag, the call ID or the end time, so a
tampered blob, another call's blob or a late push still rings with a caller shown. PushKitEmu
flags it as R5 sealed_caller_shown and sealed_push_trusted. It also never renews its call grants,
so they run out and the gateway stops pushing: GRANT grant_not_renewed.

    astra-pushsim check --client-cmd 'python3 Examples/python-client/naive_sealed_client.py'   # exit 1, R5, GRANT
"""

import json

import astra_client as a
from correct_client import CorrectApp


class TrustingApp(CorrectApp):
    name = "python-naive-sealed"

    def keys(self, keys):
        a.App.keys(self, keys)  # reads the keys, never renews a grant
        return []

    def open_sealed(self, sealed):
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

        key = self.call_keys.get(sealed["gateway_hash"]) or next(iter(self.call_keys.values()), None)
        if key is None:
            return {"name": "unknown"}  # shows something anyway
        blob = a.b64url(sealed["blob"])
        # GCM's keystream starts at counter 2 for a 96-bit nonce: CTR mode, no tag, no AAD.
        ctr = Cipher(algorithms.AES(key), modes.CTR(blob[:12] + b"\x00\x00\x00\x02")).decryptor()
        body = ctr.update(blob[12:-16]).rstrip(b"\x00")[:-1]
        try:
            return json.loads(body)
        except ValueError:
            return {"name": body[:20].decode("latin-1")}


if __name__ == "__main__":
    a.run(TrustingApp)
