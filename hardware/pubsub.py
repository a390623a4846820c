"""Publishing a table's changes: the subscriptions of SSE clients and log printers, and a stored event as
they are sent it. Shared by the table service, a mirrored table (hardware/replication.py) and the hall's feed
(hardware/hall.py)."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

import engine
from engine.describe import describe
from hardware import store


def event_row(row: store.EventRow) -> dict[str, Any]:
    """The stored event as the API and the stream show it."""
    try:
        text = describe(engine.event_from_json(row.payload))
    except (engine.TablesideError, KeyError, TypeError, ValueError):
        text = None  # an event type this build does not know; the payload is still there
    return {"seq": row.seq, "type": row.type, "payload": row.payload, "source": row.source,
            "time": store.iso(row.created_at), "text": text}


class Subscription:
    """A thread-safe queue of messages for one subscriber (an SSE client, a log printer).

    A subscriber that stops reading never blocks the table: when its queue is full the oldest message is
    dropped (every message carries the whole state, so the newest one is enough to catch up)."""

    def __init__(self, on_close: Callable[[Subscription], None], maxsize: int = 256) -> None:
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue(maxsize)
        self._on_close = on_close
        self.closed = False
        self.dropped = 0

    def put(self, message: dict[str, Any]) -> None:
        while True:
            try:
                self._queue.put_nowait(message)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()
                    self.dropped += 1

    def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message, or None after `timeout` or once the subscription is closed."""
        try:
            message = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        return None if message is _WAKE else message

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._on_close(self)
            # A reader blocked in get() (an event stream between pings) returns now rather than at its
            # timeout, so a stopping table or server is not held up to SSE_PING_S by every open page.
            self.put(_WAKE)


_WAKE: dict[str, Any] = {}  # queued by close(); compared by identity, never handed to a reader


class Subscribers:
    """The open subscriptions of one publisher (a table, a mirrored table, the hall's feed)."""

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()

    def subscribe(self, maxsize: int) -> Subscription:
        sub = Subscription(self._drop, maxsize)
        with self._lock:
            self._subs.append(sub)
        return sub

    def _drop(self, sub: Subscription) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._subs.remove(sub)

    def __len__(self) -> int:
        with self._lock:
            return len(self._subs)

    def now(self) -> list[Subscription]:
        """The subscriptions open now (a copy: one may close while the caller goes through them)."""
        with self._lock:
            return list(self._subs)

    def close_all(self) -> None:
        """End every subscription now: their readers' get() returns at once (a server shutting down)."""
        for sub in self.now():
            sub.close()
