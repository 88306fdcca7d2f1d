#!/usr/bin/env python3
"""aiortc as an independent WebRTC far end for AstraSIP's media tests (issue 9).

Usage: aiortc_peer.py answer|offer SECONDS. `answer`: reads an SDP offer (one JSON string
line) on stdin and prints aiortc's answer (one JSON string line). `offer`: prints aiortc's offer
and reads the answer. ICE is forced onto 127.0.0.1 with no STUN server (WEBRTC-NOTES). aiortc
sends a 1 kHz tone (PCMA/PCMU, 20 ms frames) and records what it receives; after SECONDS it
prints one JSON object: {"ice": state, "dtls": state, "frames": n, "tone_frames": n}.
"""
import array
import asyncio
import fractions
import json
import math
import sys

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
import av

# Independent stacks leave loopback out of their host candidates: force it (tests only).
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]


class Tone(MediaStreamTrack):
    kind = "audio"

    def __init__(self, frequency=1000.0, rate=8000, samples=160):
        super().__init__()
        self.frequency, self.rate, self.samples, self.pts = frequency, rate, samples, 0
        self.start = None

    async def recv(self):
        loop = asyncio.get_event_loop()
        if self.start is None:
            self.start = loop.time()
        wait = self.start + self.pts / self.rate - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        frame = av.AudioFrame(format="s16", layout="mono", samples=self.samples)
        data = bytearray()
        for n in range(self.samples):
            v = int(10000 * math.sin(2 * math.pi * self.frequency * (self.pts + n) / self.rate))
            data += v.to_bytes(2, "little", signed=True)
        frame.planes[0].update(bytes(data))
        frame.pts, frame.sample_rate = self.pts, self.rate
        frame.time_base = fractions.Fraction(1, self.rate)
        self.pts += self.samples
        return frame


def goertzel(samples, frequency, rate):
    k = 2 * math.cos(2 * math.pi * frequency / rate)
    s1 = s2 = 0.0
    for x in samples:
        s1, s2 = x + k * s1 - s2, s1
    return s1 * s1 + s2 * s2 - k * s1 * s2


async def main(mode, seconds):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    received = []

    @pc.on("track")
    def on_track(track):
        async def pull():
            while True:
                try:
                    frame = await track.recv()
                except Exception:
                    return
                channels = len(frame.layout.channels)
                pcm = array.array("h", bytes(frame.planes[0]))[: frame.samples * channels][::channels]
                received.append((frame.sample_rate, list(pcm)))
        asyncio.ensure_future(pull())

    pc.addTrack(Tone())
    if mode == "answer":
        offer = json.loads(sys.stdin.readline())
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        print(json.dumps(pc.localDescription.sdp), flush=True)
    else:
        await pc.setLocalDescription(await pc.createOffer())
        print(json.dumps(pc.localDescription.sdp), flush=True)
        answer = json.loads(sys.stdin.readline())
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    await asyncio.sleep(seconds)
    tone = 0
    for rate, pcm in received:
        # One channel; the 1 kHz share of the frame's energy (Goertzel, as the Swift side).
        if not pcm:
            continue
        total = sum(x * x for x in pcm) * len(pcm) / 2 or 1
        if goertzel(pcm, 1000, rate) / total > 0.3 and goertzel(pcm, 1000, rate) > 1e9:
            tone += 1
    transport = pc.getTransceivers()[0].receiver.transport
    result = {
        "ice": pc.iceConnectionState,
        "dtls": transport.state,
        "frames": len(received),
        "tone_frames": tone,
    }
    print(json.dumps(result), flush=True)
    await pc.close()


asyncio.run(main(sys.argv[1], float(sys.argv[2])))
