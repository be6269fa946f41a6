"""A client of the Public Catalog API: one module, the standard library only, Python 3.9 or later.

Copy this file next to your code, then:

    import os
    from pca_client import Client, CatalogApiError, MemoryStore, verify_webhook

    client = Client("https://catalog.example.com", os.environ["PCA_API_KEY"])

    # Every product of every page (the pages are read one after the other, as the loop goes).
    for product in client.list("products", per_page=100, family_id="fam_..."):
        print(product["identifier"], product["label"])

    one = client.page("attributes", type=["TEXT", "NUMBER"])  # one page: {"data": [...], "pagination": {...}}
    product = client.get("products", "prd_...")  # a detail read (preview `details`)

    # The export (preview `export`): every item, then {"end": True, "cursor": ..., "count": ...}.
    for line in client.export("products"):
        if line.get("end") is True:
            cursor = line["cursor"]
        else:
            ...  # a product, whole

    # The change feed from that cursor (preview `changes`), forever: one page at a time, long polling.
    for page in client.follow(cursor, types=["products"]):
        for event in page["data"]:
            ...  # event["op"] is "upsert" (event["item"]) or "delete"

    # Or both at once: a copy kept equal to the catalog (export, then the feed; exported again on a 410).
    store = MemoryStore()
    client.sync(store, resources=["products", "categories"], stop=lambda: False)

    # A webhook delivery (preview `webhooks`), checked on its raw body before it is parsed.
    event = verify_webhook(os.environ["WEBHOOK_SECRET"], request_headers, raw_body)

Query parameters are the API's (`perPage`, `updatedSince`, `familyId`, ...), also accepted in snake case
(`per_page`, `updated_since`, `family_id`); a list or tuple is sent comma-separated, a bool as true/false, an aware
datetime in ISO 8601 (UTC). A 429 or 503 is sent again after its Retry-After (at most `max_retry_delay` seconds),
a network error after 1, 2, 4... seconds, at most `max_retries` times; then CatalogApiError or CatalogNetworkError.
Any other error status raises CatalogApiError at once. The key is sent only in the Authorization header: it is in
no error, no log line and no repr.
"""

import base64
import binascii
import datetime
import email.utils
import hashlib
import hmac
import http.client
import json
import logging
import platform
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Protocol, Sequence, Tuple, Union

__all__ = [
    "CatalogApiError",
    "CatalogError",
    "CatalogNetworkError",
    "Client",
    "DETAIL_RESOURCES",
    "EXPORT_RESOURCES",
    "LIST_RESOURCES",
    "MemoryStore",
    "RetryEvent",
    "Store",
    "WebhookVerificationError",
    "verify_webhook",
]

__version__ = "1.0.0"

# The lists of the API (channels with the preview `details`), the resources with a detail read, the exportable ones.
LIST_RESOURCES = ("products", "families", "attributes", "categories", "media", "channels")
DETAIL_RESOURCES = ("products", "families", "attributes")
EXPORT_RESOURCES = ("products", "families", "attributes", "categories", "media", "channels")

# The statuses sent again after their Retry-After.
RETRIED_STATUSES = (429, 503)

# The error code of a feed cursor past the retention: the copy is loaded again.
CURSOR_EXPIRED = "PUBLIC_API_CURSOR_EXPIRED"

# Seconds a long poll may take beyond its `wait` before the socket gives up.
LONG_POLL_MARGIN = 15

_PREFIX = "/public/v1"
_CHUNK = 64 * 1024
_log = logging.getLogger("pca_client")


class CatalogError(Exception):
    """Base class of this module's errors."""


class CatalogApiError(CatalogError):
    """An answer that is not 2xx (after the retries for 429 and 503).

    Attributes: `status` (the HTTP status), `code` (the error body's stable code, e.g. "PUBLIC_API_KEY_INVALID",
    "PUBLIC_API_RATE_LIMIT_EXCEEDED", "PUBLIC_API_CURSOR_EXPIRED"), `message` (the body's French message), `body`
    (the parsed body, or its text when it is not JSON), `request_id` (the X-Request-Id header), `retry_after`
    (seconds, when the answer gave a Retry-After), `path` (the request's path and query).
    """

    def __init__(
        self,
        status: int,
        code: Optional[str],
        message: str,
        body: Any = None,
        request_id: Optional[str] = None,
        retry_after: Optional[int] = None,
        path: str = "",
    ) -> None:
        where = f" (request {request_id})" if request_id else ""
        super().__init__(f"{status} {code or 'error'}: {message}{where}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body
        self.request_id = request_id
        self.retry_after = retry_after
        self.path = path


class CatalogNetworkError(CatalogError):
    """The server could not be reached, or its answer was cut, after the retries (refused, reset, timeout, DNS).

    `cause` is the last error (also `__cause__`); `path` the request's path and query.
    """

    def __init__(self, message: str, cause: BaseException, path: str = "") -> None:
        super().__init__(message)
        self.cause = cause
        self.path = path


class WebhookVerificationError(CatalogError):
    """A webhook delivery that is not signed with the secret, or not within the tolerance of now."""


@dataclass(frozen=True)
class RetryEvent:
    """What `on_retry` is given before each wait: the request's path and query, the retry's number (1 for the
    first), the seconds it waits, the status that made it retry (429, 503; None for a network error or a cut
    stream) and the error (a CatalogApiError, or the network's exception)."""

    path: str
    attempt: int
    delay: float
    status: Optional[int]
    error: BaseException


class Store(Protocol):
    """Where `Client.sync` keeps its copy. `upsert` puts an item by its `id` (whether it was there or not), `delete`
    removes one (whether it was there or not), `clear` forgets every item (before a fresh export loads the copy
    again), `save_cursor` is called after each export loaded and each feed page applied: store the copy and the
    cursor together there (one transaction, one file), and resume from that cursor after a crash."""

    def upsert(self, type: str, item: Dict[str, Any]) -> None: ...

    def delete(self, type: str, id: str) -> None: ...

    def clear(self) -> None: ...

    def save_cursor(self, cursor: str) -> None: ...


class MemoryStore:
    """A Store in memory: `items[type][id]` and `cursor`, for a small copy or a test."""

    def __init__(self) -> None:
        self.items: Dict[str, Dict[str, Dict[str, Any]]] = {}
        self.cursor: Optional[str] = None

    def upsert(self, type: str, item: Dict[str, Any]) -> None:
        self.items.setdefault(type, {})[item["id"]] = item

    def delete(self, type: str, id: str) -> None:
        self.items.get(type, {}).pop(id, None)

    def clear(self) -> None:
        self.items = {}

    def save_cursor(self, cursor: str) -> None:
        self.cursor = cursor


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # The API never redirects; following one would send the Authorization header to wherever it points.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Client:
    """A client of one server with one API key.

    `base_url`: the server, e.g. "https://catalog.example.com" (the client adds /public/v1/...). `key`: the API key,
    sent as `Authorization: Bearer`. `max_retries`: how many times a 429, a 503 or a network error is retried
    (default 5); `max_retry_delay`: the longest wait in seconds (default 60); `on_retry`: called with a RetryEvent
    before each wait. `timeout`: seconds a socket waits for the server (a long poll adds its `wait`). `gzip`: ask
    for compressed answers. `sleep`: how the client waits (time.sleep).
    """

    def __init__(
        self,
        base_url: str,
        key: str,
        max_retries: int = 5,
        max_retry_delay: float = 60,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
        timeout: float = 60,
        gzip: bool = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not key:
            raise ValueError("Client: an API key is needed")
        self.base_url = base_url.rstrip("/")
        self._key = key
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.on_retry = on_retry
        self.timeout = timeout
        self.gzip = gzip
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_NoRedirect)
        self._user_agent = f"pca-client-python/{__version__} (Python {platform.python_version()})"

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    # Lists and details.

    def page(self, resource: str, **query: Any) -> Dict[str, Any]:
        """One page of a list: the answer `{"data": [...], "pagination": {page, perPage, total, totalPages,
        hasAny}}`. `resource`: one of LIST_RESOURCES; `query`: its parameters (page, perPage, q, sort, updatedSince,
        the list's filters, ids, identifiers)."""
        _check(resource, LIST_RESOURCES, "list")
        return self._get_json(f"{_PREFIX}/{resource}", query)

    def list(self, resource: str, **query: Any) -> Iterator[Dict[str, Any]]:
        """Every item of every page of a list, in order, from `page` (default 1) to the last page; each page is
        read when the one before has been taken. Same parameters as `page`."""
        query = dict(query)
        number = int(query.pop("page", 1))
        while True:
            answer = self.page(resource, page=number, **query)
            yield from answer["data"]
            if number >= answer["pagination"]["totalPages"] or not answer["data"]:
                return
            number += 1

    def get(self, resource: str, id: str, **query: Any) -> Dict[str, Any]:
        """One product, family or attribute whole (preview `details`); a product takes `channelId`. An id the key's
        organization does not have raises CatalogApiError 404 PUBLIC_API_NOT_FOUND."""
        _check(resource, DETAIL_RESOURCES, "detail read")
        return self._get_json(f"{_PREFIX}/{resource}/{urllib.parse.quote(id, safe='')}", query)

    def channels(self) -> List[Dict[str, Any]]:
        """Every channel of the key's organization (preview `details`): the ids `channelId` takes."""
        return list(self.list("channels", perPage=100))

    # The export and the change feed.

    def export(self, resource: str, after: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """Every item of a resource from one snapshot (preview `export`), in id order, after `after` when given;
        then one end dict `{"end": True, "cursor": ..., "count": ...}`.

        A stream cut on the way is resumed with `?after=<id of the last item read>`, as a retry (the count of
        retries starts again once a part brought items). `cursor` is the snapshot cursor of this call's first
        request (its X-Export-Cursor header), not the resumed one's: the feed followed from it misses nothing of
        what changed between the parts. `count` is the number of items this call yielded.
        """
        _check(resource, EXPORT_RESOURCES, "export")
        path = f"{_PREFIX}/export/{resource}"
        first_cursor: Optional[str] = None
        last_id = after
        count = 0
        attempt = 0
        while True:
            response = self._send(path, {"after": last_id}, "application/x-ndjson", self.timeout, None)
            if first_cursor is None:
                first_cursor = response.headers.get("X-Export-Cursor")
            brought = 0
            cut: BaseException
            try:
                for line in _lines(_decoded(response)):
                    parsed = json.loads(line)
                    if parsed.get("end") is True and "cursor" in parsed:
                        yield {"end": True, "cursor": first_cursor or parsed["cursor"], "count": count}
                        return
                    last_id = parsed["id"]
                    count += 1
                    brought += 1
                    yield parsed
                cut = CatalogNetworkError("the export stopped before its end line", EOFError(), path)
            except (OSError, http.client.HTTPException, zlib.error, EOFError, ValueError) as e:
                cut = e
            finally:
                response.close()
            if brought:
                attempt = 0
            query = "?after=" + urllib.parse.quote(last_id, safe="") if last_id else ""
            if attempt >= self.max_retries:
                raise CatalogNetworkError(f"GET {path}{query}: the export was cut: {cut}", cut, path + query)
            attempt += 1
            self._wait(path + query, attempt, self._backoff(attempt), None, cut)

    def changes(
        self,
        after: str,
        types: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
        wait: Optional[int] = None,
    ) -> Dict[str, Any]:
        """One page of the change feed (preview `changes`): `{"data": [events], "cursor": ..., "hasMore": ...}`,
        the events after `after` of `types` (default: every type the key reads), at most `limit` (1 to 1000), with
        `wait` (0 to 30 s) the answer waits that long for a first event. Continue with the answer's `cursor`. A
        cursor past the retention raises CatalogApiError 410 PUBLIC_API_CURSOR_EXPIRED: export again."""
        query = {"after": after, "types": types, "limit": limit, "wait": wait}
        return self._get_json(f"{_PREFIX}/changes", query, self.timeout + (wait or 0) + LONG_POLL_MARGIN)

    def follow(
        self,
        after: str,
        types: Optional[Sequence[str]] = None,
        limit: int = 1000,
        wait: int = 30,
    ) -> Iterator[Dict[str, Any]]:
        """The pages of the feed from `after`, forever (long polling with `wait`): each page as `changes` answers
        it, empty ones included (a quiet catalog: one every `wait` seconds). Stop by leaving the loop."""
        cursor = after
        while True:
            page = self.changes(cursor, types, limit, wait)
            yield page
            cursor = page["cursor"]

    def sync(
        self,
        store: Store,
        resources: Sequence[str] = EXPORT_RESOURCES,
        cursor: Optional[str] = None,
        limit: int = 1000,
        wait: int = 30,
        stop: Optional[Callable[[], bool]] = None,
    ) -> str:
        """Keeps `store` equal to the catalog's `resources`: loads it with their exports (unless `cursor`, the one
        saved with the copy, is given), then applies each page of the feed, saving the cursor after each. On a
        410 PUBLIC_API_CURSOR_EXPIRED it clears the store and loads it again. Runs until `stop()` is true (asked
        after the load and after each page, so within `wait` seconds); returns the last cursor saved.

        The feed is followed from the snapshot cursor of the first export, which comes before every snapshot the
        copy was read from: what changed meanwhile comes again from the feed, nothing is missed.
        """
        for r in resources:
            _check(r, EXPORT_RESOURCES, "export")
        while True:
            if cursor is None:
                cursor = self._load(store, resources)
            if stop is not None and stop():
                return cursor
            try:
                for page in self.follow(cursor, resources, limit, wait):
                    for event in page["data"]:
                        if event["op"] == "delete":
                            store.delete(event["type"], event["id"])
                        else:
                            store.upsert(event["type"], event["item"])
                    if page["data"] or page["cursor"] != cursor:
                        cursor = page["cursor"]
                        store.save_cursor(cursor)
                    if stop is not None and stop():
                        return cursor
            except CatalogApiError as e:
                if e.status != 410 or e.code != CURSOR_EXPIRED:
                    raise
                _log.info("cursor %s expired: exporting again", cursor)
                cursor = None

    def _load(self, store: Store, resources: Sequence[str]) -> str:
        # Every resource exported into a cleared store; the first export's cursor, the earliest, is followed from.
        store.clear()
        first: Optional[str] = None
        for resource in resources:
            for line in self.export(resource):
                if line.get("end") is True and "cursor" in line:
                    first = first or line["cursor"]
                else:
                    store.upsert(resource, line)
        if first is None:
            raise ValueError("sync: no resource to export")
        store.save_cursor(first)
        return first

    # HTTP: one GET, its retries.

    def _get_json(self, path: str, query: Mapping[str, Any], timeout: Optional[float] = None) -> Any:
        return self._send(path, query, "application/json", timeout or self.timeout, lambda r: json.loads(_read(r)))

    def _send(
        self,
        path: str,
        query: Mapping[str, Any],
        accept: str,
        timeout: float,
        consume: Optional[Callable[[http.client.HTTPResponse], Any]],
    ) -> Any:
        # Sends a GET until it is answered 2xx, retrying 429/503 and network errors; `consume` reads the answer
        # (a body cut on the way is retried too), else the open response is returned.
        target = path + _query_string(query)
        headers = {"Authorization": f"Bearer {self._key}", "Accept": accept, "User-Agent": self._user_agent}
        if self.gzip:
            headers["Accept-Encoding"] = "gzip"
        attempt = 0
        while True:
            request = urllib.request.Request(self.base_url + target, headers=headers, method="GET")
            status: Optional[int] = None
            try:
                response = self._opener.open(request, timeout=timeout)
                if consume is None:
                    return response
                with response:
                    return consume(response)
            except urllib.error.HTTPError as e:
                error: BaseException = _api_error(e, target)
                if e.code not in RETRIED_STATUSES or attempt >= self.max_retries:
                    raise error from None
                status = e.code
                delay = min(float(error.retry_after or 1), self.max_retry_delay)  # type: ignore[attr-defined]
            except (OSError, http.client.HTTPException, zlib.error, EOFError) as e:
                if attempt >= self.max_retries:
                    raise CatalogNetworkError(f"GET {target}: {e!r}", e, target) from e
                error = e
                delay = self._backoff(attempt + 1)
            attempt += 1
            self._wait(target, attempt, delay, status, error)

    def _backoff(self, attempt: int) -> float:
        # 1, 2, 4... seconds for the first, second, third... retry of a network error, at most max_retry_delay.
        return float(min(2 ** (attempt - 1), self.max_retry_delay))

    def _wait(self, target: str, attempt: int, delay: float, status: Optional[int], error: BaseException) -> None:
        _log.info("GET %s: %s; retry %d in %s s", target, status or type(error).__name__, attempt, delay)
        if self.on_retry is not None:
            self.on_retry(RetryEvent(target, attempt, delay, status, error))
        self._sleep(delay)


def _check(resource: str, allowed: Tuple[str, ...], what: str) -> None:
    if resource not in allowed:
        raise ValueError(f"{resource!r}: no {what} of that name (one of {', '.join(allowed)})")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _param(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise ValueError("a datetime sent to the API needs a time zone")
        utc = value.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds")
        return utc.replace("+00:00", "Z")
    if isinstance(value, (list, tuple, set, frozenset)):
        return ",".join(_param(v) for v in value)
    return str(value)


def _query_string(query: Mapping[str, Any]) -> str:
    pairs = [(_camel(k), _param(v)) for k, v in query.items() if v is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _retry_after(value: Optional[str]) -> Optional[int]:
    # Retry-After in seconds, or an HTTP date turned into the seconds from now; None when absent or unreadable.
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0, int((when - datetime.datetime.now(datetime.timezone.utc)).total_seconds()))


def _api_error(e: urllib.error.HTTPError, target: str) -> CatalogApiError:
    # The error answer as a CatalogApiError: its body's code and message, its request id, its Retry-After.
    try:
        raw = _read(e)
    except (OSError, http.client.HTTPException, zlib.error, EOFError):
        raw = b""
    finally:
        e.close()
    text = raw.decode("utf-8", "replace")
    body: Any = text
    try:
        body = json.loads(text) if text else None
    except ValueError:
        pass
    fields = body if isinstance(body, dict) else {}
    retry_after = _retry_after(e.headers.get("Retry-After"))
    if retry_after is None and isinstance(fields.get("retryAfter"), int):
        retry_after = fields["retryAfter"]
    return CatalogApiError(
        status=e.code,
        code=fields.get("code"),
        message=str(fields.get("message") or e.reason or ""),
        body=body,
        request_id=e.headers.get("X-Request-Id") or fields.get("requestId"),
        retry_after=retry_after,
        path=target,
    )


def _decoded(response: Any) -> Iterator[bytes]:
    # The body's bytes as they come, gunzipped when the server compressed them.
    gz = response.headers.get("Content-Encoding", "").lower() == "gzip"
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if gz else None
    read = getattr(response, "read1", response.read)
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            break
        if inflate is None:
            yield chunk
        else:
            out = inflate.decompress(chunk)
            if out:
                yield out
    if inflate is not None:
        if not inflate.eof:
            raise EOFError("the compressed stream ended before its end")
        tail = inflate.flush()
        if tail:
            yield tail


def _read(response: Any) -> bytes:
    return b"".join(_decoded(response))


def _lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    # The complete lines of a stream (a last line without its newline is dropped: the stream was cut in it).
    rest = b""
    for chunk in chunks:
        rest += chunk
        *lines, rest = rest.split(b"\n")
        for line in lines:
            if line.strip():
                yield line
    if rest.strip():
        try:
            json.loads(rest)
        except ValueError:
            return
        yield rest


def _header(headers: Any, name: str) -> Optional[str]:
    # A header from a dict (any case, a list of values joined by spaces), an email.message.Message or a
    # http.client.HTTPMessage (case-insensitive get), or a list of (name, value) pairs.
    items = headers.items() if hasattr(headers, "items") else headers
    found = [v for k, v in items if str(k).lower() == name]
    values: List[str] = []
    for v in found:
        if isinstance(v, (list, tuple)):
            values.extend(str(x) for x in v)
        elif isinstance(v, bytes):
            values.append(v.decode("latin-1"))
        else:
            values.append(str(v))
    return " ".join(values) if values else None


def verify_webhook(
    secret: str,
    headers: Any,
    body: Union[bytes, bytearray, memoryview, str],
    tolerance: int = 300,
    now: Union[None, float, datetime.datetime] = None,
) -> Any:
    """Verifies a webhook delivery as the Standard Webhooks specification signs it and returns its parsed payload
    (the feed's event: cursor, type, id, op, at, item).

    `secret`: the endpoint's signing secret, "whsec_" and base64. `headers`: the request's headers (a dict, an
    http.client.HTTPMessage, ...): `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature`, space-
    separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (two while a secret is rolled: either one is enough).
    `body`: the raw body as it came (bytes; a str is encoded to UTF-8), before any parsing. The timestamp must be
    within `tolerance` seconds of `now` (default: the clock). Raises WebhookVerificationError otherwise; ValueError
    for a secret without key bytes.
    """
    key_text = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    try:
        key = base64.b64decode(key_text)
    except (binascii.Error, ValueError):
        key = b""
    if not key:
        raise ValueError("verify_webhook: the secret has no key bytes after whsec_")
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 15):
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds")
    if now is None:
        now_seconds = time.time()
    elif isinstance(now, datetime.datetime):
        now_seconds = now.timestamp()
    else:
        now_seconds = float(now)
    if abs(now_seconds - int(timestamp)) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too far from now")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    expected = hmac.new(key, f"{msg_id}.{timestamp}.".encode("utf-8") + raw, hashlib.sha256).digest()
    ok = False
    for entry in signatures.split(" "):
        version, _, encoded = entry.partition(",")
        if version != "v1":
            continue  # v1a (asymmetric) and unknown versions are not ours
        try:
            given = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        # Every candidate is compared (no early return): the time does not say which one matched.
        if hmac.compare_digest(given, expected):
            ok = True
    if not ok:
        raise WebhookVerificationError("no webhook-signature matches the secret")
    try:
        return json.loads(raw)
    except ValueError as e:
        raise WebhookVerificationError("the body is not JSON") from e
