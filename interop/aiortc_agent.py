#!/usr/bin/python3
"""A minimal agentcall-webrtc-0.1 agent on Debian's python3-aiortc.

It lets acbridge's WebRTC client be checked against a stack that shares no
code with pion, from the other side than aiortc_client.py: the card at
/.well-known/agent-card.json, the SDP offer POSTed to /agui, the profile's
sendrecv Opus track (silence) and the client's agentcall.events channel.
It answers session.start with session.established and prints one line

  aiortc agent: session.end received (session SID)

for every session.end, so that a run can count what reached it.

aiortc advertises max-message-size 65536 while its SCTP reassembly takes
messages of any size; the profile needs 131072, so that is what it
advertises here, unless --stock-max-message-size keeps aiortc's 65536 (to
check that acbridge refuses it and names the fix).

Usage: aiortc_agent.py [--listen 127.0.0.1:0] [--stock-max-message-size]
Prints "listening on http://HOST:PORT" once serving; stops on SIGTERM.
"""

import argparse
import asyncio
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import aioice.ice
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack
from aiortc.rtcsctptransport import RTCSctpCapabilities, RTCSctpTransport

EXT = "https://agentcall.smartycode.com/ext/agentcall-agui/0.1"
MAX_SDP = 128 * 1024


def card(base):
    return {
        "name": "aiortc interop agent",
        "description": "An agentcall-webrtc-0.1 agent on aiortc for acbridge's interop run.",
        "version": "0.1.0",
        "supportedInterfaces": [],
        "capabilities": {"streaming": False, "extensions": [{
            "uri": EXT,
            "description": "AgentCall AG-UI extension 0.1",
            "required": False,
            "params": {
                "schemaVersion": "0.1",
                "agui": {
                    "url": base + "/agui",
                    "transport": "webrtc",
                    "session": {"resume": False, "replay": False},
                    "webrtc": {
                        "profile": "agentcall-webrtc-0.1",
                        "audio": {"codec": "opus", "clockRateHz": 48000, "channels": 1, "direction": "sendrecv"},
                        "events": {"transport": "datachannel", "label": "agentcall.events",
                                   "protocol": "agentcall-agui-dc-0.1", "ordered": True},
                    },
                },
                "voice": {"owner": "agent"},
                "physicalObservations": {"accepted": ["nfc", "photo"], "agentRequests": []},
            },
        }]},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }


class Agent:
    def __init__(self, loop):
        self.loop = loop
        self.pcs = set()

    async def answer(self, offer, sid):
        pc = RTCPeerConnection()
        self.pcs.add(pc)

        async def close():
            await pc.close()
            self.pcs.discard(pc)

        @pc.on("datachannel")
        def on_channel(channel):
            seq = [0]

            def send(event):
                seq[0] += 1
                channel.send(json.dumps({"sequence": seq[0], "event": event}, separators=(",", ":")))

            @channel.on("message")
            def on_message(msg):
                try:
                    m = json.loads(msg)
                except (TypeError, ValueError):
                    return
                if m.get("type") == "session.start":
                    send({"type": "session.established", "resumed": False})
                elif m.get("type") == "session.end":
                    print(f"aiortc agent: session.end received (session {sid})", flush=True)

            @channel.on("close")
            def on_close():
                asyncio.ensure_future(close())

        @pc.on("connectionstatechange")
        async def on_state():
            if pc.connectionState in ("failed", "closed"):
                await close()

        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        pc.addTrack(AudioStreamTrack())
        await pc.setLocalDescription(await pc.createAnswer())  # gathers every candidate
        return pc.localDescription.sdp

    async def close(self):
        for pc in list(self.pcs):
            await pc.close()


def handler(agent, base):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, ctype, body):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path != "/.well-known/agent-card.json":
                return self.reply(404, "text/plain", b"not found")
            self.reply(200, "application/json", json.dumps(card(base)).encode())

        def do_POST(self):
            if self.path != "/agui":
                return self.reply(404, "text/plain", b"not found")
            if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/sdp":
                return self.reply(415, "text/plain", b"send application/sdp")
            sid = self.headers.get("AgentCall-Session-ID", "")
            length = int(self.headers.get("Content-Length", "0"))
            if not sid or length > MAX_SDP:
                return self.reply(400, "text/plain", b"bad offer")
            offer = self.rfile.read(length).decode()
            fut = asyncio.run_coroutine_threadsafe(agent.answer(offer, sid), agent.loop)
            try:
                answer = fut.result(timeout=10)
            except Exception as e:  # the client sees a refusal, the log why
                print(f"aiortc agent: no answer: {e!r}", file=sys.stderr, flush=True)
                return self.reply(500, "text/plain", b"no answer")
            self.reply(201, "application/sdp", answer.encode())

    return Handler


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", default="127.0.0.1:0")
    ap.add_argument("--stock-max-message-size", action="store_true")
    args = ap.parse_args()
    if not args.stock_max_message_size:
        RTCSctpTransport.getCapabilities = classmethod(lambda cls: RTCSctpCapabilities(maxMessageSize=131072))
    host, port = args.listen.rsplit(":", 1)
    if host == "127.0.0.1":
        # aioice leaves loopback out of host candidates; a client under the
        # local-development policy accepts only loopback ones.
        aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]
    loop = asyncio.get_running_loop()
    agent = Agent(loop)
    srv = ThreadingHTTPServer((host, int(port)), None)
    base = f"http://{host}:{srv.server_address[1]}"
    srv.RequestHandlerClass = handler(agent, base)
    serving = threading.Thread(target=srv.serve_forever, daemon=True)
    serving.start()
    print(f"listening on {base}", flush=True)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    await stop.wait()
    srv.shutdown()
    serving.join()
    await agent.close()


if __name__ == "__main__":
    asyncio.run(main())
