"""A stand-in for a vLLM/SGLang instance: OpenAI-compatible chat completions that name the instance that served them.

Python standard library only, so it runs in the plain python image. Environment: BACKEND_NAME (default: the host
name), PORT (default 8000). A request header x-fake-delay-ms holds the reply that long, to keep requests in flight.
GET /metrics reports vLLM's gauges with the requests being served, for the least_busy policy. The request's
x-request-id (set by the gateway) is sent back, so a client can find its request in the gateway's access log.
"""

import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAME = os.environ.get("BACKEND_NAME") or socket.gethostname()
PORT = int(os.environ.get("PORT", "8000"))
in_flight = 0
in_flight_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/metrics":
            with in_flight_lock:
                running = in_flight
            text = (
                "# TYPE vllm:num_requests_running gauge\n"
                f'vllm:num_requests_running{{model_name="fake"}} {running}\n'
                "# TYPE vllm:num_requests_waiting gauge\n"
                'vllm:num_requests_waiting{model_name="fake"} 0\n'
                "# TYPE vllm:gpu_cache_usage_perc gauge\n"
                'vllm:gpu_cache_usage_perc{model_name="fake"} 0.1\n'
            )
            self.reply(200, "text/plain; version=0.0.4", text.encode())
        elif self.path in ("/health", "/v1/models"):
            self.reply(200, "application/json", json.dumps({"object": "list", "data": [{"id": "fake"}]}).encode())
        else:
            self.reply(404, "text/plain", b"not found\n")

    def do_POST(self):
        global in_flight
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        with in_flight_lock:
            in_flight += 1
        try:
            time.sleep(int(self.headers.get("x-fake-delay-ms") or 0) / 1000)
        finally:
            with in_flight_lock:
                in_flight -= 1
        completion = {
            "id": f"chatcmpl-{NAME}-{time.time_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fake"),
            "backend": NAME,
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": f"served by {NAME}"}}
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4},
        }
        self.reply(200, "application/json", json.dumps(completion).encode())

    def reply(self, status, content_type, body):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.send_header("x-served-by", NAME)
        if self.headers.get("x-request-id"):
            self.send_header("x-request-id", self.headers["x-request-id"])
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        print(f"{NAME} {self.address_string()} {fmt % args}", flush=True)


if __name__ == "__main__":
    print(f"fake OpenAI backend {NAME} listening on :{PORT}", flush=True)
    ThreadingHTTPServer(("0.0.0.0", PORT), Handler).serve_forever()
