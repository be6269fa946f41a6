"""The client's own tests, without the API: webhook verification (the Standard Webhooks test vector, tampering),
how queries are written, how a stream is read (lines, gzip, a cut), and the retry rule against a small fake server
on loopback (Retry-After, backoff, the limit, no redirect followed, the key in no error). The tests against a real
server are tests/clients/python-client*.test.ts (run by `npm test`).

    python3 -m unittest discover -s clients/python -p 'test_*.py'
"""

import base64
import datetime
import email.message
import gzip
import hashlib
import hmac
import json
import socket
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Tuple

import pca_client
from pca_client import (
    CatalogApiError,
    CatalogNetworkError,
    Client,
    MemoryStore,
    WebhookVerificationError,
    verify_webhook,
)

# The specification's test vector (the reference libraries' tests).
VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_TS = 1614265330
VECTOR_BODY = '{"test": 2432232314}'
VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
OTHER = "whsec_" + base64.b64encode(bytes(range(1, 33))).decode()
KEY = "pca_test_secret_key_0123456789"


def sign(secret: str, msg_id: str, ts: int, body: bytes) -> str:
    key = base64.b64decode(secret[len("whsec_") :])
    digest = hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


class VerifyWebhookTest(unittest.TestCase):
    body = json.dumps({"cursor": "7", "type": "products", "id": "prd_1", "op": "delete", "item": None}).encode()
    ts = 1_780_000_000

    def headers(self, **over: str) -> Dict[str, str]:
        h = {
            "webhook-id": "7",
            "webhook-timestamp": str(self.ts),
            "webhook-signature": sign(SECRET, "7", self.ts, self.body),
        }
        h.update({k.replace("_", "-"): v for k, v in over.items()})
        return h

    def test_the_specification_vector(self) -> None:
        h = {"webhook-id": VECTOR_ID, "webhook-timestamp": str(VECTOR_TS), "webhook-signature": VECTOR_SIGNATURE}
        self.assertEqual(verify_webhook(VECTOR_SECRET, h, VECTOR_BODY, now=VECTOR_TS), {"test": 2432232314})
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(VECTOR_SECRET, h, VECTOR_BODY)  # years ago

    def test_accepts_and_returns_the_payload(self) -> None:
        self.assertEqual(verify_webhook(SECRET, self.headers(), self.body, now=self.ts)["id"], "prd_1")
        # Within the tolerance either way, a datetime for now, a str body.
        verify_webhook(SECRET, self.headers(), self.body.decode(), now=self.ts + 300)
        when = datetime.datetime.fromtimestamp(self.ts - 300, datetime.timezone.utc)
        verify_webhook(SECRET, self.headers(), self.body, now=when)

    def test_either_signature_of_a_roll_and_any_header_form(self) -> None:
        both = sign(OTHER, "7", self.ts, self.body) + " " + sign(SECRET, "7", self.ts, self.body)
        verify_webhook(SECRET, self.headers(webhook_signature=both), self.body, now=self.ts)
        verify_webhook(OTHER, self.headers(webhook_signature=both), self.body, now=self.ts)
        message = email.message.Message()
        for k, v in self.headers().items():
            message[k.title()] = v
        verify_webhook(SECRET, message, self.body, now=self.ts)
        as_lists = {k.upper(): [v] for k, v in self.headers().items()}
        verify_webhook(SECRET, as_lists, self.body, now=self.ts)
        verify_webhook(SECRET, list(self.headers().items()), self.body, now=self.ts)

    def test_refuses_what_is_tampered(self) -> None:
        signed = self.headers()["webhook-signature"]
        cases: Dict[str, Tuple[str, Dict[str, str], bytes]] = {
            "body": (SECRET, self.headers(), self.body.replace(b"delete", b"upsert")),
            "id": (SECRET, self.headers(webhook_id="8"), self.body),
            "timestamp": (SECRET, self.headers(webhook_timestamp=str(self.ts + 1)), self.body),
            "secret": (OTHER, self.headers(), self.body),
            "signature": (SECRET, self.headers(webhook_signature="v1," + "A" * 44), self.body),
            "version": (SECRET, self.headers(webhook_signature="v2" + signed[2:]), self.body),
            "garbage": (SECRET, self.headers(webhook_signature="v1,%%%"), self.body),
            "not a number": (SECRET, self.headers(webhook_timestamp="1e9"), self.body),
        }
        for name, (secret, h, body) in cases.items():
            with self.subTest(name), self.assertRaises(WebhookVerificationError):
                verify_webhook(secret, h, body, now=self.ts)
        for missing in ("webhook-id", "webhook-timestamp", "webhook-signature"):
            h = self.headers()
            del h[missing]
            with self.subTest(missing), self.assertRaises(WebhookVerificationError):
                verify_webhook(SECRET, h, self.body, now=self.ts)
        for late in (301, -301):
            with self.subTest(late=late), self.assertRaises(WebhookVerificationError):
                verify_webhook(SECRET, self.headers(), self.body, now=self.ts + late)

    def test_a_secret_without_key_bytes_is_a_value_error(self) -> None:
        with self.assertRaises(ValueError):
            verify_webhook("whsec_", self.headers(), self.body, now=self.ts)


class QueryTest(unittest.TestCase):
    def test_names_and_values(self) -> None:
        paris = datetime.timezone(datetime.timedelta(hours=2))
        when = datetime.datetime(2026, 6, 7, 11, 30, 12, 345000, tzinfo=paris)
        qs = pca_client._query_string(
            {
                "per_page": 5,
                "type": ["TEXT", "NUMBER"],
                "is_scopable": True,
                "updated_since": when,
                "q": "crème",
                "x": None,
            }
        )
        self.assertEqual(
            qs, "?perPage=5&type=TEXT%2CNUMBER&isScopable=true&updatedSince=2026-06-07T09%3A30%3A12.345Z&q=cr%C3%A8me"
        )
        self.assertEqual(pca_client._query_string({"familyId": "fam_1"}), "?familyId=fam_1")
        self.assertEqual(pca_client._query_string({}), "")
        with self.assertRaises(ValueError):
            pca_client._query_string({"updatedSince": datetime.datetime(2026, 1, 1)})

    def test_unknown_resources_are_refused_before_any_request(self) -> None:
        client = Client("http://127.0.0.1:9", KEY)
        with self.assertRaises(ValueError):
            client.page("product")
        with self.assertRaises(ValueError):
            client.get("categories", "cat_1")
        with self.assertRaises(ValueError):
            next(client.export("orders"))


class StreamTest(unittest.TestCase):
    def test_lines_keep_complete_ones_only(self) -> None:
        chunks = [b'{"id":"a"}\n{"id"', b':"b"}\n\n{"id":"c', b'"}\n{"id":"d"']
        self.assertEqual([json.loads(x)["id"] for x in pca_client._lines(chunks)], ["a", "b", "c"])
        self.assertEqual(list(pca_client._lines([b'{"end":true}'])), [b'{"end":true}'])


Handler = Callable[[BaseHTTPRequestHandler, int], None]


class FakeServer:
    """A server on loopback answering each request with the next handler of a script (the last one repeats)."""

    def __init__(self, script: List[Handler]) -> None:
        self.script = script
        self.requests: List[Tuple[str, Dict[str, str]]] = []
        fake = self

        class H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                n = len(fake.requests)
                fake.requests.append((self.path, dict(self.headers.items())))
                fake.script[min(n, len(fake.script) - 1)](self, n)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def answer(status: int, body: Any, headers: Dict[str, str] = {}, compress: bool = False) -> Handler:
    def handle(h: BaseHTTPRequestHandler, _n: int) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        if compress:
            data = gzip.compress(data)
        h.send_response(status)
        for k, v in {"Content-Type": "application/json", "X-Request-Id": "req-1", **headers}.items():
            h.send_header(k, v)
        if compress:
            h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    return handle


def error(status: int, code: str, headers: Dict[str, str] = {}) -> Handler:
    return answer(status, {"statusCode": status, "code": code, "message": "Limite de requêtes dépassée."}, headers)


def reset(h: BaseHTTPRequestHandler, _n: int) -> None:
    h.connection.shutdown(socket.SHUT_RDWR)


PAGE = {"data": [{"id": "x"}], "pagination": {"page": 1, "perPage": 20, "total": 1, "totalPages": 1, "hasAny": True}}


class RetryTest(unittest.TestCase):
    def run_client(self, script: List[Handler], **options: Any) -> Tuple[FakeServer, Client, List[float], list]:
        server = FakeServer(script)
        self.addCleanup(server.close)
        waits: List[float] = []
        events: list = []
        client = Client(server.url, KEY, sleep=waits.append, on_retry=events.append, **options)
        return server, client, waits, events

    def test_429_and_503_wait_their_retry_after_capped_missing_one_second(self) -> None:
        script = [
            error(429, "PUBLIC_API_RATE_LIMIT_EXCEEDED", {"Retry-After": "3"}),
            error(503, "PUBLIC_API_UNAVAILABLE", {"Retry-After": "120"}),
            error(503, "PUBLIC_API_UNAVAILABLE"),
            answer(200, PAGE, compress=True),
        ]
        server, client, waits, events = self.run_client(script, max_retry_delay=60)
        self.assertEqual(client.page("products"), PAGE)
        self.assertEqual(waits, [3, 60, 1])
        self.assertEqual([(e.attempt, e.status) for e in events], [(1, 429), (2, 503), (3, 503)])
        path, headers = server.requests[0]
        self.assertEqual(path, "/public/v1/products")
        self.assertEqual(headers["Authorization"], f"Bearer {KEY}")
        self.assertEqual(headers["Accept-Encoding"], "gzip")

    def test_gives_up_after_max_retries_with_the_error_of_the_last_answer(self) -> None:
        _, client, waits, _ = self.run_client(
            [error(429, "PUBLIC_API_RATE_LIMIT_EXCEEDED", {"Retry-After": "2"})], max_retries=2
        )
        with self.assertRaises(CatalogApiError) as caught:
            client.page("products", per_page=5)
        e = caught.exception
        self.assertEqual(
            (e.status, e.code, e.retry_after, e.request_id), (429, "PUBLIC_API_RATE_LIMIT_EXCEEDED", 2, "req-1")
        )
        self.assertEqual(e.path, "/public/v1/products?perPage=5")
        self.assertEqual(waits, [2, 2])
        self.assertNotIn(KEY, str(e) + repr(e) + repr(e.body) + repr(client))

    def test_other_statuses_raise_at_once(self) -> None:
        statuses = (
            (400, "PUBLIC_API_INVALID_QUERY"),
            (401, "PUBLIC_API_KEY_INVALID"),
            (500, "PUBLIC_API_INTERNAL_ERROR"),
        )
        for status, code in statuses:
            with self.subTest(status):
                server, client, waits, _ = self.run_client([error(status, code)])
                with self.assertRaises(CatalogApiError) as caught:
                    client.page("media")
                self.assertEqual((caught.exception.status, caught.exception.code), (status, code))
                self.assertEqual((len(server.requests), waits), (1, []))

    def test_a_redirect_is_not_followed(self) -> None:
        server, client, _, _ = self.run_client([answer(302, b"", {"Location": "http://127.0.0.2:9/steal"})])
        with self.assertRaises(CatalogApiError) as caught:
            client.page("products")
        self.assertEqual(caught.exception.status, 302)
        self.assertEqual(len(server.requests), 1)

    def test_network_errors_back_off_1_2_4_then_raise(self) -> None:
        server, client, waits, events = self.run_client([reset, reset, answer(200, PAGE)])
        self.assertEqual(client.page("products"), PAGE)
        self.assertEqual(waits, [1, 2])
        self.assertEqual([e.status for e in events], [None, None])
        server, client, waits, _ = self.run_client([reset], max_retries=3)
        with self.assertRaises(CatalogNetworkError) as caught:
            client.page("products")
        self.assertEqual(waits, [1, 2, 4])
        self.assertEqual(len(server.requests), 4)
        self.assertNotIn(KEY, str(caught.exception) + repr(caught.exception.cause))

    def test_list_reads_every_page(self) -> None:
        def pages(h: BaseHTTPRequestHandler, n: int) -> None:
            data = [{"id": f"{n}-{i}"} for i in range(2 if n < 2 else 1)]
            pagination = {"page": n + 1, "perPage": 2, "total": 5, "totalPages": 3, "hasAny": True}
            answer(200, {"data": data, "pagination": pagination})(h, n)

        server, client, _, _ = self.run_client([pages])
        self.assertEqual([x["id"] for x in client.list("products", perPage=2)], ["0-0", "0-1", "1-0", "1-1", "2-0"])
        expected = [f"/public/v1/products?page={n}&perPage=2" for n in (1, 2, 3)]
        self.assertEqual([p for p, _ in server.requests], expected)

    def test_an_export_cut_is_resumed_and_ends_with_the_first_cursor(self) -> None:
        def part(h: BaseHTTPRequestHandler, n: int) -> None:
            h.send_response(200)
            h.send_header("Content-Type", "application/x-ndjson")
            h.send_header("X-Export-Cursor", str(10 + n))
            h.end_headers()
            if n == 0:
                h.wfile.write(b'{"id":"a"}\n{"id":"b"}\n{"id":')  # cut in the middle of a line
            else:
                h.wfile.write(b'{"id":"c"}\n{"end":true,"cursor":"11","count":1}\n')
            h.wfile.flush()
            h.close_connection = True

        server, client, waits, _ = self.run_client([part])
        lines = list(client.export("media"))
        self.assertEqual(lines, [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"end": True, "cursor": "10", "count": 3}])
        expected = ["/public/v1/export/media", "/public/v1/export/media?after=b"]
        self.assertEqual([p for p, _ in server.requests], expected)
        self.assertEqual(waits, [1])


class SyncTest(unittest.TestCase):
    def test_memory_store(self) -> None:
        store = MemoryStore()
        store.upsert("products", {"id": "p1", "label": "a"})
        store.upsert("products", {"id": "p1", "label": "b"})
        store.delete("products", "p2")
        store.save_cursor("5")
        self.assertEqual((store.items, store.cursor), ({"products": {"p1": {"id": "p1", "label": "b"}}}, "5"))
        store.clear()
        self.assertEqual(store.items, {})


if __name__ == "__main__":
    unittest.main()
