#!/usr/bin/env python3
"""The correct handler with one classic field bug: it registers (networking) before reporting the
push to CallKit — "just get the SIP connection going first". iOS kills such an app (R1).

    astra-pushsim check --client-cmd 'python3 Examples/python-client/buggy_client.py'   # exit 1, R1
"""

import astra_client as a
from correct_client import CorrectApp


class NetworkFirstApp(CorrectApp):
    name = "python-buggy"

    def push(self, push):
        return [a.register()] + super().push(push)


if __name__ == "__main__":
    a.run(NetworkFirstApp)
