#!/usr/bin/python3
"""An independent agentcall-webrtc-0.1 client on Debian's python3-aiortc.

It checks acbridge's reference agent (acbridge agent --transport webrtc)
against a WebRTC stack that shares no code with pion:

  1. discovery: the card offers transport webrtc, voice.owner "agent" and
     the exact agentcall-webrtc-0.1 profile;
  2. the public walkthrough (physical-conformance.json) over the data
     channel: the client side sent verbatim (interaction ids replaced by the
     agent's), every server envelope checked for sequence, type, text,
     interaction kind/outcome and failure code;
  3. an explicit audio turn: about a second of a 480 Hz tone from aiortc's
     Opus encoder, committed; the agent must say it heard at least 45
     packets and play a reply that aiortc's decoder turns into ~600 ms.

Usage: aiortc_client.py --agent http://127.0.0.1:PORT [--fixtures FILE]
Exit status 0 when every check passed, 1 otherwise.
"""

import argparse
import array
import asyncio
import fractions
import json
import math
import re
import sys
import time
import urllib.parse
import urllib.request

import aioice.ice
import av
from aiortc import MediaStreamTrack, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError

PROFILE = {
    "profile": "agentcall-webrtc-0.1",
    "audio": {"codec": "opus", "clockRateHz": 48000, "channels": 1, "direction": "sendrecv"},
    "events": {"transport": "datachannel", "label": "agentcall.events", "protocol": "agentcall-agui-dc-0.1", "ordered": True},
}
EXT = "https://agentcall.smartycode.com/ext/agentcall-agui/0.1"
TIMEOUT = 10
RATE = 48000
FRAME = 960  # 20 ms


class Failure(Exception):
    pass


class Tone(MediaStreamTrack):
    """A 480 Hz tone while talking, silence otherwise, paced in real time."""

    kind = "audio"

    def __init__(self):
        super().__init__()
        self.talking = False
        self._period = array.array("h", (int(8000 * math.sin(2 * math.pi * i / 100)) for i in range(100)))
        self._pts = 0
        self._start = None

    async def recv(self):
        if self._start is None:
            self._start = time.monotonic()
        else:
            wait = self._start + self._pts / RATE - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        if self.talking:
            samples = array.array("h", (self._period[(self._pts + i) % 100] for i in range(FRAME)))
        else:
            samples = array.array("h", bytes(2 * FRAME))
        frame = av.AudioFrame(format="s16", layout="mono", samples=FRAME)
        frame.planes[0].update(samples.tobytes())
        frame.pts, frame.sample_rate, frame.time_base = self._pts, RATE, fractions.Fraction(1, RATE)
        self._pts += FRAME
        return frame


def http(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read(256 * 1024 + 1)
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read(1024)


def discover(base):
    status, ctype, body = http("GET", base.rstrip("/") + "/.well-known/agent-card.json")
    if status != 200 or not ctype.startswith("application/json"):
        raise Failure(f"card: HTTP {status} {ctype}")
    card = json.loads(body)
    exts = [e for e in card["capabilities"]["extensions"] if e["uri"] == EXT]
    if len(exts) != 1:
        raise Failure("card: no AgentCall extension")
    params = exts[0]["params"]
    agui = params["agui"]
    webrtc = dict(agui.get("webrtc") or {})
    explicit = webrtc.pop("supportsExplicitTurns", False)
    if agui["transport"] != "webrtc" or params["voice"]["owner"] != "agent" or webrtc != PROFILE or not explicit:
        raise Failure(f"card: not the exact webrtc profile with explicit turns: {agui}")
    return agui["url"]


class Session:
    """One peer connection with the profile's track and channel."""

    def __init__(self, url, sid):
        self.url, self.sid = url, sid
        self.pc = RTCPeerConnection()
        self.tone = Tone()
        self.pc.addTrack(self.tone)
        self.channel = self.pc.createDataChannel("agentcall.events", ordered=True, protocol="agentcall-agui-dc-0.1")
        self.inbox = asyncio.Queue()
        self.opened = asyncio.Event()
        self.closed = asyncio.Event()
        self.heard = 0  # samples of the agent's voice, at 48 kHz
        self.seq = 0
        self.turn = 0
        self.tasks = []
        self.channel.on("open", self.opened.set)
        self.channel.on("message", self._message)
        self.channel.on("close", self.closed.set)
        self.pc.on("track", self._track)

    def _message(self, msg):
        if not isinstance(msg, str):
            self.inbox.put_nowait(Failure("the agent sent a binary message"))
        else:
            self.inbox.put_nowait(msg)

    def _track(self, track):
        async def listen():
            try:
                while True:
                    frame = await track.recv()
                    self.heard += frame.samples * RATE // frame.sample_rate
            except MediaStreamError:
                pass

        self.tasks.append(asyncio.ensure_future(listen()))

    async def connect(self):
        await self.pc.setLocalDescription(await self.pc.createOffer())  # gathers every candidate
        headers = {"Content-Type": "application/sdp", "Accept": "application/sdp", "AgentCall-Session-ID": self.sid}
        loop = asyncio.get_running_loop()
        status, ctype, body = await loop.run_in_executor(
            None, http, "POST", self.url, self.pc.localDescription.sdp.encode(), headers)
        if status != 201 or ctype.split(";")[0].strip() != "application/sdp":
            raise Failure(f"offer: HTTP {status} {ctype}: {body[:200]!r}")
        if len(body) > 128 * 1024:
            raise Failure("answer over 128 KiB")
        answer = body.decode()
        if not re.search(r"a=rtpmap:\d+ opus/48000/2", answer, re.I) or "a=sendrecv" not in answer:
            raise Failure("answer: not a sendrecv Opus track")
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        await asyncio.wait_for(self.opened.wait(), TIMEOUT)

    def send(self, msg):
        self.channel.send(json.dumps(msg, separators=(",", ":")))

    async def next(self):
        item = await asyncio.wait_for(self.inbox.get(), TIMEOUT)
        if isinstance(item, Exception):
            raise item
        env = json.loads(item)
        if env.get("sequence") != self.seq + 1:
            raise Failure(f"sequence {env.get('sequence')} after {self.seq}")
        self.seq = env["sequence"]
        return env["event"]

    async def expect(self, *types):
        events = []
        for t in types:
            ev = await self.next()
            if ev["type"] != t:
                raise Failure(f"got {ev}, want {t}")
            events.append(ev)
        return events

    async def close(self):
        await self.pc.close()
        for t in self.tasks:
            await t


def named_proposal(want, got):
    """The reference agent names the label of every proposal ("show what
    will be remembered"), where the public trace's later ones do not."""
    staged = "Proposal staged, not stored."
    return want == staged and isinstance(got, str) and got.startswith(staged[:-1] + ": ")


async def walkthrough(url, steps):
    s = Session(url, "aiortc-walkthrough")
    try:
        await s.connect()
        ids = {}
        for i, step in enumerate(steps, 1):
            msg = step["message"]
            if step["direction"] == "client":
                msg = dict(msg)
                if msg.get("interactionId") in ids:
                    msg["interactionId"] = ids[msg["interactionId"]]
                s.send(msg)
                continue
            want, got = msg["event"], await s.next()
            if msg["sequence"] != s.seq or got["type"] != want["type"]:
                raise Failure(f"step {i}: got #{s.seq} {got}, want {msg}")
            if want["type"] == "interaction.requested":
                if got["kind"] != want["kind"]:
                    raise Failure(f"step {i}: kind {got['kind']}")
                ids[want["interactionId"]] = got["interactionId"]
            for k in ("text", "outcome", "code"):
                if k == "text" and named_proposal(want.get(k), got.get(k)):
                    continue
                if k in want and got.get(k) != want[k]:
                    raise Failure(f"step {i}: {k} {got.get(k)!r}, want {want[k]!r}")
            if want["type"] == "interaction.resolved" and got["interactionId"] != ids.get(want["interactionId"]):
                raise Failure(f"step {i}: resolved another interaction")
        # The walkthrough ends with session.end: the agent closes.
        await asyncio.wait_for(s.closed.wait(), TIMEOUT)
        print(f"interop: walkthrough: {len(steps)} steps matched over the data channel")
    finally:
        await s.close()


async def audio_turn(url):
    s = Session(url, "aiortc-audio")
    try:
        await s.connect()
        s.send({"type": "session.start", "sessionId": "aiortc-audio",
                "clientCapabilities": {"audioTurnControl": {"mode": "explicit"}}})
        await s.expect("session.established")
        s.send({"type": "audio.turn.start", "turn": 1})
        s.tone.talking = True
        await asyncio.sleep(1.0)
        s.tone.talking = False
        await asyncio.sleep(0.1)  # aiortc has no drain: let the last talking frames out
        s.send({"type": "audio.turn.commit", "turn": 1})
        _, text, _ = await s.expect("run.started", "text.delta", "run.completed")
        m = re.fullmatch(r"Heard (\d+) packets\.", text["text"])
        if not m or int(m.group(1)) < 45:
            raise Failure(f"agent said {text['text']!r}; a 1 s turn is 50 packets")
        # The reply is 600 ms. aiortc's audio jitter buffer (prefetch=4)
        # releases a packet only when later ones arrive, and the agent sends
        # nothing after a reply, so aiortc renders its first 520 ms.
        deadline = time.monotonic() + TIMEOUT
        while s.heard < 0.52 * RATE and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
        heard = s.heard / RATE
        if not 0.52 <= heard <= 0.6:
            raise Failure(f"decoded {heard:.3f} s of the agent's reply, want 0.52 to 0.6 s")
        s.send({"type": "session.end"})
        await asyncio.wait_for(s.closed.wait(), TIMEOUT)
        print(f"interop: audio turn: {text['text']} reply decoded by aiortc: {heard:.3f} s")
    finally:
        await s.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agent", required=True)
    ap.add_argument("--fixtures", default="conformance/fixtures/physical-conformance.json")
    args = ap.parse_args()
    host = urllib.parse.urlparse(args.agent).hostname
    if host in ("127.0.0.1", "localhost"):
        # aioice leaves loopback out of host candidates; the agent under
        # --insecure-local is reachable only there.
        aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]
    with open(args.fixtures) as f:
        steps = json.load(f)["walkthrough"]
    url = discover(args.agent)
    await walkthrough(url, steps)
    await audio_turn(url)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except (Failure, asyncio.TimeoutError, OSError) as e:
        print(f"interop: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
