#!/usr/bin/env python3
# Usage: pip install websockets; python3 Benchmarks/peer-memory.py .build/debug/luna examples/books.lua 2000
# Measures luna serve's resident memory before and after N device hellos with new node ids,
# and N page `open` requests with 40 KB ids (issue #43 item 5). Loopback only, bounded.
import asyncio, json, re, subprocess, sys, time, uuid, os
import websockets

luna, script, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
proc = subprocess.Popen([luna, "serve", script, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
url = None
start = time.time()
while time.time() - start < 30:
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)", line)
    if m: url = m; break
port, token = url.group(1), url.group(2)
def rss():
    for l in open(f"/proc/{proc.pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1]) // 1024
async def main():
    before = rss()
    for i in range(n):
        ids = [f"peer-{uuid.uuid4()}" for _ in range(20)]
        state = json.dumps({"v": 1, "r": "books", "p": ["k", ids[0], [["s", x] for x in ids[1:]]]})
        async with websockets.connect(f"ws://127.0.0.1:{port}/device?token={token}", max_size=2**26) as ws:
            await ws.send(json.dumps({"type": "hello", "idiom": "phone", "holds": ids, "state": state}))
            await asyncio.wait_for(ws.recv(), 10)
    after_hellos = rss()
    async with websockets.connect(f"ws://127.0.0.1:{port}/socket?token={token}", max_size=2**26, origin=f"http://127.0.0.1:{port}") as ws:
        await asyncio.wait_for(ws.recv(), 10)
        for i in range(n):
            node = "x" * 40000 + str(uuid.uuid4())
            await ws.send(json.dumps({"id": i, "op": "open", "node": node}))
            while True:
                m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if m.get("type") == "reply" and m.get("id") == i: break
    after_opens = rss()
    print(f"rss MB: start {before}, after {n} hellos {after_hellos}, after {n} 40 KB opens {after_opens}")
try:
    asyncio.run(main())
finally:
    proc.kill()
