"""Push latency to the hall display: a command at one table -> every connected hall client.

Serves `--tables` tables (each with a started Monopoly clock, one SQLite store in a temporary directory, or
`--db URL`) with the real app on waitress at 127.0.0.1, connects `--clients` hall clients to the hall-wide
stream (/api/hall/stream) from a separate client process (asyncio, loopback only), then gives `--commands`
commands at one table through the JSON API (POST /api/tables/<id>/commands with the clerk PIN) and
measures, per command and client, the time from sending the command to that client receiving the
table's new row.

The peer, measured in the same run right after: the same number of clients polling the JSON hall
endpoint (/api/hall) once a second each (the hall page's fallback, and what a plain status page does);
its latency is the time from the command to the first poll that shows it.

Bounded: at most 200 clients, 200 tables and 500 commands; each phase stops after --phase-timeout s.

    .venv/bin/python bench/hall.py                      # 64 tables, 100 clients, 40 commands
    .venv/bin/python bench/hall.py --tables 16 --clients 20 --commands 10   # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PIN = "135790"


# ---- the client process ---------------------------------------------------------------------------------


async def _sse_client(port: int, target: str, arrivals: list[tuple[int, float]], ready: asyncio.Event,
                      counter: list[int], n: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /api/hall/stream HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    event = ""
    needle = f'"id":"{target}"'
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            now = time.monotonic()
            if line.startswith(b"event: "):
                event = line[7:].strip().decode()
            elif line.startswith(b"data: "):
                if event == "hall":
                    counter[0] += 1
                    if counter[0] == n:
                        ready.set()
                elif event == "table" and needle in line.decode():
                    msg = json.loads(line[6:])
                    arrivals.append((int(msg["row"]["seq"]), now))
    finally:
        writer.close()


async def _poll_client(port: int, target: str, arrivals: list[tuple[int, float]], stop: asyncio.Event) -> None:
    await asyncio.sleep(random.random())  # spread the pollers over the second
    while not stop.is_set():
        start = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /api/hall HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        body = await reader.read()
        writer.close()
        now = time.monotonic()
        data = json.loads(body.split(b"\r\n\r\n", 1)[1])
        for row in data["tables"]:
            if row["id"] == target:
                arrivals.append((int(row["seq"]), now))
        await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - start)))


async def _clients(mode: str, port: int, target: str, n: int) -> None:
    arrivals: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    ready, stop = asyncio.Event(), asyncio.Event()
    counter = [0]
    if mode == "sse":
        tasks = [asyncio.create_task(_sse_client(port, target, arrivals[i], ready, counter, n)) for i in range(n)]
        await asyncio.wait_for(ready.wait(), 60)
    else:
        tasks = [asyncio.create_task(_poll_client(port, target, arrivals[i], stop)) for i in range(n)]
        await asyncio.sleep(1.5)
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # the parent says when
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(arrivals), flush=True)


# ---- the server side ------------------------------------------------------------------------------------


def _serve(tables: int, db_url: str | None, threads: int) -> tuple[Any, Any, Any]:
    from engine.clock import monopoly_config
    from hardware import store
    from hardware.service import TableRegistry, TableService
    from tests.conftest import free_port
    from web import create_app

    tmp = Path(tempfile.mkdtemp(prefix="tableside-bench-hall-"))
    db = store.open_store(db_url or store.sqlite_url(tmp / "hall.sqlite"))
    reg = TableRegistry()
    for i in range(1, tables + 1):
        svc = TableService(db, table_id=f"t{i:02d}", name=f"Table {i}", clerk_pin=PIN, players=("A", "B", "C", "D"),
                           seed=1000 + i, clock=monopoly_config(90), round_label="R1", new_game=True)
        svc.clock_command({"type": "start"})
        reg.add(svc)
    reg.start()
    app = create_app({"TESTING": True, "SECRET_KEY": "bench"}, registry=reg)
    from waitress.server import create_server

    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=threads, channel_timeout=120,
                           connection_limit=max(100, threads * 2))
    threading.Thread(target=server.run, daemon=True).start()
    return reg, server, port


def _post(port: int, table: str, command: dict[str, Any]) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables/{table}/commands",
                                 data=json.dumps(command).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Clerk-Pin": PIN})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return int(json.loads(resp.read())["state"]["table"]["seq"])


def _phase(mode: str, port: int, reg: Any, target: str, clients: int, commands: int, timeout: float,
           seed: int) -> list[float]:
    from hardware.autoclerk import scripted_command

    child = subprocess.Popen([sys.executable, __file__, "--client-mode", mode, "--port", str(port), "--target",
                              target, "--clients", str(clients)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    assert child.stdin is not None and child.stdout is not None
    if child.stdout.readline().strip() != "ready":
        raise SystemExit(f"{mode} clients did not start")
    svc = reg.get(target)
    sent: list[tuple[int, float]] = []
    deadline = time.monotonic() + timeout
    rng = random.Random(seed)
    for _ in range(commands):
        if time.monotonic() > deadline:
            break
        cmd = scripted_command(svc.state(), seed)
        if cmd is None:
            svc.new_game()
            continue
        t0 = time.monotonic()
        seq = _post(port, target, cmd)
        sent.append((seq, t0))
        time.sleep(0.35 + rng.random() * 0.3 if mode == "sse" else 1.0 + rng.random() * 0.5)
    time.sleep(1.5 if mode == "sse" else 2.5)
    out, _ = child.communicate("stop\n", timeout=60)
    arrivals: list[list[tuple[int, float]]] = json.loads(out.strip().splitlines()[-1])
    latencies = []
    for seq, t0 in sent:
        for client in arrivals:
            seen = [t for s, t in client if s >= seq and t >= t0]
            if seen:
                latencies.append(min(seen) - t0)
    return latencies


def _stats(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    if not xs:
        return {"n": 0, "median_ms": float("nan"), "p95_ms": float("nan"), "max_ms": float("nan")}
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return {"n": len(xs), "median_ms": 1000 * statistics.median(xs), "p95_ms": 1000 * p95, "max_ms": 1000 * xs[-1]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=64)
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--commands", type=int, default=40)
    p.add_argument("--db", default=None, help="store URL (default: SQLite in a temporary directory)")
    p.add_argument("--phase-timeout", type=float, default=90.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-peer", action="store_true", help="skip the polling peer")
    p.add_argument("--client-mode", choices=("sse", "poll"), help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--target", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.client_mode:
        asyncio.run(_clients(args.client_mode, args.port, args.target, args.clients))
        return 0
    if not (1 <= args.clients <= 200 and 1 <= args.tables <= 200 and 1 <= args.commands <= 500):
        p.error("bounded: 1-200 clients, 1-200 tables, 1-500 commands")
    rerun = " ".join([".venv/bin/python", "bench/hall.py", *(shlex.quote(a) for a in (argv or sys.argv[1:]))])
    t0 = time.monotonic()
    reg, server, port = _serve(args.tables, args.db, threads=args.clients + 24)
    target = f"t{(args.tables + 1) // 2:02d}"
    print(f"hall bench: {args.tables} tables, {args.clients} clients on 127.0.0.1:{port}, "
          f"{args.commands} commands at table {target}", flush=True)
    push = _stats(_phase("sse", port, reg, target, args.clients, args.commands, args.phase_timeout, args.seed))
    print(f"  push (hall-wide SSE stream): n={push['n']} median {push['median_ms']:.1f} ms, "
          f"p95 {push['p95_ms']:.1f} ms, max {push['max_ms']:.1f} ms", flush=True)
    result: dict[str, Any] = {"tables": args.tables, "clients": args.clients, "push": push}
    if not args.no_peer:
        n_peer = max(1, args.commands // 2)
        peer = _stats(_phase("poll", port, reg, target, args.clients, n_peer, args.phase_timeout, args.seed + 1))
        result["peer"] = peer
        print(f"  peer (each client polls GET /api/hall once a second): n={peer['n']} median "
              f"{peer['median_ms']:.1f} ms, p95 {peer['p95_ms']:.1f} ms, max {peer['max_ms']:.1f} ms", flush=True)
        print(f"  ratio p95 peer/push: {peer['p95_ms'] / push['p95_ms']:.1f}x; median: "
              f"{peer['median_ms'] / push['median_ms']:.1f}x", flush=True)
    target_ok = push["p95_ms"] < 200
    print(f"  target p95 < 200 ms: {'met' if target_ok else 'NOT met'}", flush=True)
    print(f"  took {time.monotonic() - t0:.0f} s; rerun: {rerun}", flush=True)
    out = ROOT / "artifacts" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    (out / "hall.json").write_text(json.dumps(result | {"rerun": rerun}, indent=2))
    server.close()
    reg.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
