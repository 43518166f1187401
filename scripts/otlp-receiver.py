#!/usr/bin/env python3
"""A real OTLP/HTTP trace receiver for tests and demos: decodes each ExportTraceServiceRequest with the
opentelemetry-proto package and appends every span to a JSON-lines file.

    otlp-receiver.py --port-file P --out spans.jsonl      listen on a free loopback port (written to P)
                     [--host 0.0.0.0]                     ... or on every address (a namespace's collector)
    otlp-receiver.py --html spans.jsonl > night.html      a waterfall of the received spans, one row per span

Each line: {"trace": hex, "span": hex, "parent": hex or "", "name", "kind", "start": ns, "end": ns,
"attributes": {...}, "events": [{"name", "time", "attributes"}], "links": [{"trace", "span"}], "resource": {...},
"status": code, "message": status message, "flags": span flags}.
"""
import argparse
import html
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def attributes(pairs):
    return {kv.key: value(kv.value) for kv in pairs}


def spans(body):
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    request = trace_service_pb2.ExportTraceServiceRequest()
    request.ParseFromString(body)
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace": span.trace_id.hex(), "span": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                    "name": span.name, "kind": span.kind, "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano, "attributes": attributes(span.attributes),
                    "events": [{"name": e.name, "time": e.time_unix_nano, "attributes": attributes(e.attributes)}
                               for e in span.events],
                    "links": [{"trace": link.trace_id.hex(), "span": link.span_id.hex()} for link in span.links],
                    "resource": resource, "status": span.status.code, "message": span.status.message,
                    "flags": span.flags, "scope": scope_spans.scope.name,
                }


def serve(out, port_file, host):
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path != "/v1/traces":
                self.send_response(404)
                self.end_headers()
                return
            try:
                rows = list(spans(body))
            except Exception as error:  # a request that does not decode is the sender's bug: say so, keep serving
                self.send_response(400)
                self.end_headers()
                self.wfile.write(str(error).encode())
                return
            with lock, open(out, "a", encoding="utf-8") as handle:
                for row in rows:
                    handle.write(json.dumps(row, sort_keys=True) + "\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    with open(port_file + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(str(server.server_address[1]))
    import os
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


def waterfall(path):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    if not rows:
        return "<p>no spans</p>"
    children = {}
    for row in rows:
        children.setdefault(row["parent"], []).append(row)
    known = {row["span"] for row in rows}
    ordered = []

    def visit(row, depth):
        ordered.append((row, depth))
        for child in sorted(children.get(row["span"], []), key=lambda r: r["start"]):
            visit(child, depth + 1)

    for root in sorted((r for r in rows if r["parent"] not in known), key=lambda r: r["start"]):
        visit(root, 0)
    start = min(r["start"] for r in rows)
    end = max(r["end"] for r in rows)
    scale = 100.0 / max(1, end - start)
    lines = []
    for row, depth in ordered:
        left = (row["start"] - start) * scale
        width = max(0.2, (row["end"] - row["start"]) * scale)
        role = row["resource"].get("driftfix.role", "")
        who = row["resource"].get("service.instance.id") or f"pid {row['resource'].get('process.pid', '?')}"
        label = html.escape(f"{row['name']} ({role} {who}, {(row['end'] - row['start']) / 1e6:.1f} ms)")
        kind = "error" if row.get("status") == 2 else html.escape(role)
        lines.append(f'<div class="row"><span class="name" style="padding-left:{depth * 14}px">{label}</span>'
                     f'<span class="lane"><span class="bar {kind}" style="left:{left:.3f}%;'
                     f'width:{width:.3f}%"></span></span></div>')
    traces = sorted({row["trace"] for row in rows})
    head = (f'<h1>driftfix night: {len(rows)} spans, {(end - start) / 1e9:.2f} s</h1><p>trace '
            f'{html.escape(", ".join(traces))} &middot; <span class="key coordinator"></span> coordinator '
            f'<span class="key worker"></span> worker <span class="key error"></span> error</p>')
    return ("<!doctype html><meta charset=utf-8><title>driftfix night trace</title><style>"
            "body{font:12px sans-serif}.row{display:flex;align-items:center;height:18px}"
            ".name{width:420px;white-space:nowrap;overflow:hidden}.lane{position:relative;flex:1;height:12px;"
            "background:#f3f3f3}.bar{position:absolute;top:0;bottom:0;background:#4a7fd0}"
            ".bar.worker{background:#d07a4a}.bar.error{background:#c33}h1{font-size:15px;margin:4px 0}"
            "p{margin:2px 0 8px}.key{display:inline-block;width:10px;height:10px;background:#4a7fd0}"
            ".key.worker{background:#d07a4a}.key.error{background:#c33}</style>" + head + "".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out")
    parser.add_argument("--port-file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--html", metavar="SPANS")
    args = parser.parse_args()
    if args.html:
        sys.stdout.write(waterfall(args.html))
        return 0
    if not args.out or not args.port_file:
        parser.error("--out and --port-file, or --html")
    serve(args.out, args.port_file, args.host)
    return 0


if __name__ == "__main__":
    sys.exit(main())
