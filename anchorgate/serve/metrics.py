"""Prometheus metrics of one service instance: requests, gate decisions by reason, tokens, latencies.

Each app has its own registry (two apps in one test process do not share counters). Routes are
labelled by their template (`/v1/threads/{thread_id}/history`), never by the raw path, so thread
ids do not become label values.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320)


class Metrics:
    """The counters and histograms of one app."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "anchorgate_requests", "HTTP requests by route, method and status", ["route", "method", "status"],
            registry=self.registry,
        )  # fmt: skip
        self.request_seconds = Histogram(
            "anchorgate_request_seconds", "HTTP request latency by route (a stream: until its last event)",
            ["route"], buckets=LATENCY_BUCKETS, registry=self.registry,
        )  # fmt: skip
        self.decisions = Counter(
            "anchorgate_gate_decisions", "Gate decisions by action and reason", ["action", "reason"],
            registry=self.registry,
        )  # fmt: skip
        self.outcomes = Counter(
            "anchorgate_outcomes", "Finished runs by final decision and reason", ["decision", "reason"],
            registry=self.registry,
        )  # fmt: skip
        self.tokens = Counter(
            "anchorgate_tokens", "LLM tokens spent by finished runs", ["kind"], registry=self.registry
        )
        self.run_seconds = Histogram(
            "anchorgate_run_seconds", "Time to answer one question", buckets=LATENCY_BUCKETS, registry=self.registry
        )

    def record_run(self, result: dict[str, Any], seconds: float | None = None) -> None:
        """Count a finished run: its gate decisions, outcome and tokens."""
        telemetry = result.get("telemetry") or {}
        for entry in telemetry.get("gate") or []:
            self.decisions.labels(str(entry.get("action")), str(entry.get("reason"))).inc()
        self.outcomes.labels(str(result.get("decision")), str(result.get("reason"))).inc()
        tokens = result.get("tokens") or {}
        for kind in ("prompt", "completion"):
            self.tokens.labels(kind).inc(int(tokens.get(kind) or 0))
        if seconds is not None:
            self.run_seconds.observe(seconds)

    def render(self) -> Response:
        """The Prometheus text exposition."""
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


class RequestMetrics:
    """Pure ASGI middleware: count each request and time it (a stream: until its last event), by route template."""

    def __init__(self, app: Any, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), ["500"]

        async def send_status(message: Any) -> None:
            if message["type"] == "http.response.start":
                status[0] = str(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            name = getattr(scope.get("route"), "path", None) or "unmatched"
            self.metrics.requests.labels(name, scope.get("method", ""), status[0]).inc()
            self.metrics.request_seconds.labels(name).observe(time.perf_counter() - started)
