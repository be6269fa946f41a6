// Overload (issue 27 item 5) on a real node:http server (npm start's API host) and a real Postgres database, with a
// tiny admission (2 requests at work, 4 waiting): a burst far past it is answered at once, each request a 200 or the
// contract's 503 with Retry-After, every answer within 2 s, and the API serves normally right after; a waiting
// client that goes away leaves the queue; a wait is bounded; a long poll of the change feed holds no place while it
// waits. The admission alone: tests/public-api/admission.test.ts. Figures under load: bench/overload.ts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg } from "@/db/client";
import { publicApi } from "@/lib/public-api/router";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { createApiHost } from "@/lib/server/api-host";
import { setupApi, type ApiFixture } from "../support/api";
import { apiState } from "@/lib/public-api/state";

const QUEUE_TIMEOUT_MS = 1000;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

describe("overload, on a node:http server with Postgres", () => {
  let fx: ApiFixture;
  let server: http.Server;
  let port = 0;
  let routed = 0;
  // One socket per request: the burst reaches the server at once, as from many clients.
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

  beforeAll(async () => {
    fx = await setupApi("pg", {
      API_MAX_CONCURRENT: "2",
      API_MAX_QUEUE: "4",
      API_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
      PUBLIC_API_PREVIEW: "changes",
    });
    // npm start's host (lib/server/bundle-entry.ts), counting the requests that reach the router.
    const host = createApiHost(
      (request) => {
        routed++;
        return publicApi.answer(request);
      },
      { compress: false, refusesNow: publicApi.refusesNow },
    );
    server = http.createServer((req, res) => host(req, res, req.url!));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    if (server) await new Promise<void>((r) => server.close(() => r()));
    await fx?.close();
  });

  // A GET over HTTP with acme's key (or `key`), timed from its departure to the end of its body.
  function get(path: string, key: string = fx.acme.full, onRequest?: (req: http.ClientRequest) => void) {
    return new Promise<Answer>((resolve, reject) => {
      const started = performance.now();
      const req = http.get(
        { host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
              ms: performance.now() - started,
            }),
          );
        },
      );
      req.on("error", reject);
      onRequest?.(req);
    });
  }

  // The contract's 503 of a request refused: Retry-After and the exact body, its request id the header's.
  function expectShed(a: Answer): void {
    expect(a.status).toBe(503);
    expect(a.headers["retry-after"]).toBe("5");
    expect(a.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(a.body)).toEqual({
      statusCode: 503,
      message: "Service momentanément indisponible, réessayez plus tard.",
      error: "Service Unavailable",
      code: "PUBLIC_API_UNAVAILABLE",
      requestId: a.headers["x-request-id"],
    });
  }

  async function until(check: () => boolean, what: string): Promise<void> {
    const end = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  it("answers 100 concurrent requests within 2 s each, 200 or 503 with Retry-After; then serves every request", async () => {
    // A server that was serving already: its pool's connections open, the key cached, the products counted.
    expect((await get("/public/v1/products?perPage=2")).status).toBe(200);
    // Both places held while the burst arrives (as by two slow requests), given back 300 ms later: the burst
    // overflows the queue on any machine (a fast one served a burst arriving at node's accept pace without ever
    // filling it). Each request a page of its own (no page cache): every admitted request reads the database.
    const admission = fx.runtime.part(apiState).admission;
    expect(admission.tryEnter()).toBe(true);
    expect(admission.tryEnter()).toBe(true);
    const burst = Promise.all(
      Array.from({ length: 100 }, (_, i) => get(`/public/v1/products?perPage=2&page=${i + 1}`)),
    );
    await new Promise((r) => setTimeout(r, 300));
    admission.leave();
    admission.leave();
    const answers = await burst;
    const statuses = answers.map((a) => a.status);
    for (const a of answers) {
      expect(a.ms).toBeLessThan(2000);
      if (a.status === 503) expectShed(a);
      else expect(a.status).toBe(200);
    }
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(fx.runtime.part(apiState).admission.stats).toMatchObject({ active: 0, waiting: 0 });
    // Right after: every request answered as usual, one after the other.
    for (let i = 0; i < 20; i++) {
      const a = await get(`/public/v1/products?perPage=3&page=${i + 1}`);
      expect(a.status).toBe(200);
    }
  });

  it("gives every place back whatever the answer: 400, 401 and 200 in one burst", async () => {
    const paths = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0
        ? { path: "/public/v1/families?perPage=0", key: fx.acme.full }
        : i % 3 === 1
          ? { path: "/public/v1/families", key: fx.acme.revoked }
          : { path: `/public/v1/families?page=${i}`, key: fx.acme.full },
    );
    const answers = await Promise.all(paths.map((p) => get(p.path, p.key)));
    for (const [i, a] of answers.entries()) {
      expect(a.ms).toBeLessThan(2000);
      if (a.status === 503) expectShed(a);
      else expect(a.status).toBe([400, 401, 200][i % 3]);
    }
    expect(fx.runtime.part(apiState).admission.stats).toMatchObject({ active: 0, waiting: 0 });
    expect((await get("/public/v1/families")).status).toBe(200);
  });

  it("a waiting request whose client goes away leaves the queue at once", async () => {
    const admission = fx.runtime.part(apiState).admission;
    const gone = admission.stats.gone;
    // Both places taken, as by two requests at work.
    expect(admission.tryEnter()).toBe(true);
    expect(admission.tryEnter()).toBe(true);
    try {
      let sent!: http.ClientRequest;
      const answer = get("/public/v1/products", fx.acme.full, (req) => (sent = req)).catch(
        (err: Error) => err,
      );
      await until(() => admission.stats.waiting === 1, "the request to queue");
      sent.destroy();
      expect(await answer).toBeInstanceOf(Error);
      await until(() => admission.stats.waiting === 0, "the queue to empty");
      expect(admission.stats.gone).toBe(gone + 1);
    } finally {
      admission.leave();
      admission.leave();
    }
    expect(admission.stats).toMatchObject({ active: 0, waiting: 0 });
    expect((await get("/public/v1/products")).status).toBe(200);
  });

  it("a request that cannot get a place within API_QUEUE_TIMEOUT_MS gets the 503", async () => {
    const admission = fx.runtime.part(apiState).admission;
    admission.tryEnter();
    admission.tryEnter();
    let a: Answer;
    try {
      a = await get("/public/v1/products");
    } finally {
      admission.leave();
      admission.leave();
    }
    expectShed(a);
    expect(a.ms).toBeGreaterThanOrEqual(QUEUE_TIMEOUT_MS - 50);
    expect(a.ms).toBeLessThan(2000);
    expect(admission.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("refused on arrival by the host (queue full): the same 503 at once, nothing queued; the document and a 404 still answered", async () => {
    const admission = fx.runtime.part(apiState).admission;
    admission.tryEnter();
    admission.tryEnter();
    const before = admission.stats;
    let queued: Promise<Answer>[] = [];
    try {
      // Four wait (the queue's bound), through the router.
      queued = Array.from({ length: 4 }, (_, i) => get(`/public/v1/families?page=${i + 1}`));
      await until(() => admission.stats.waiting === 4, "four requests to queue");
      const routedBefore = routed;
      // The fifth is refused by the host before any Web Request is built: at once, the contract's 503.
      const refused = await get("/public/v1/products");
      expectShed(refused);
      expect(refused.ms).toBeLessThan(200);
      const head = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http
          .request({ host: "127.0.0.1", port, path: "/public/v1/products", method: "HEAD", agent }, resolve)
          .on("error", reject)
          .end(),
      );
      expect(head.statusCode).toBe(503);
      expect(head.headers["retry-after"]).toBe("5");
      expect(head.headers["x-content-type-options"]).toBe("nosniff");
      expect(admission.stats).toMatchObject({ waiting: 4, refusedFull: before.refusedFull + 2 });
      expect(routed).toBe(routedBefore);
      // What takes no place is answered as usual: the OpenAPI document, a path of no operation.
      expect((await get("/public/v1/openapi.json")).status).toBe(200);
      expect((await get("/public/v1/nothing-here")).status).toBe(404);
    } finally {
      admission.leave();
      admission.leave();
    }
    for (const a of await Promise.all(queued)) expect(a.status).toBe(200);
    expect(admission.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("the host's refusal and the router's carry the same headers and body shape", async () => {
    const admission = fx.runtime.part(apiState).admission;
    admission.tryEnter();
    admission.tryEnter();
    let byRouter: Answer;
    let byHost: Answer;
    let queued: Promise<Answer>[] = [];
    try {
      // An empty queue: the router waits the request out (API_QUEUE_TIMEOUT_MS), then refuses it.
      byRouter = await get("/public/v1/categories");
      queued = Array.from({ length: 4 }, () => get("/public/v1/categories"));
      await until(() => admission.stats.waiting === 4, "four requests to queue");
      byHost = await get("/public/v1/categories");
    } finally {
      admission.leave();
      admission.leave();
    }
    await Promise.all(queued);
    expectShed(byRouter);
    expectShed(byHost);
    const names = (a: Answer) =>
      Object.keys(a.headers)
        .filter(
          (n) => !["date", "connection", "keep-alive", "content-length", "transfer-encoding"].includes(n),
        )
        .sort();
    expect(names(byHost)).toEqual(names(byRouter));
    for (const n of names(byHost).filter((n) => n !== "x-request-id"))
      expect(byHost.headers[n], n).toEqual(byRouter.headers[n]);
  });

  it("long polls of the change feed hold no place while they wait", async () => {
    const [row] = await fx.db.query<{ head: string }>(
      "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
      [fx.acme.orgId],
    );
    const head = row!.head;
    // Three waits of 2 s, one more than the places.
    const polls = Array.from({ length: 3 }, () => get(`/public/v1/changes?after=${head}&wait=2`));
    await new Promise((r) => setTimeout(r, 300));
    const during = await Promise.all(
      Array.from({ length: 4 }, (_, i) => get(`/public/v1/categories?page=${i + 1}`)),
    );
    for (const a of during) {
      expect(a.status).toBe(200);
      expect(a.ms).toBeLessThan(1000);
    }
    for (const a of await Promise.all(polls)) {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body)).toEqual({ data: [], cursor: head, hasMore: false });
    }
    expect(fx.runtime.part(apiState).admission.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("an admitted request waits for a pooled connection at most DB_CONNECT_TIMEOUT_MS (pg-pool's queue), then 503", async () => {
    // A pool of two connections, both held by transactions that wait: the request's key look-up queues in pg-pool.
    const db = await openPg(fx.databaseUrl!, { max: 2, connectTimeoutMs: 300, statementTimeoutMs: 1000 });
    // Installed beside the fixture's runtime, which stays open (swapRuntime would close it).
    const rt = createRuntime(fx.config, db);
    setRuntime(rt);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const holders = [0, 1].map(() => db.transaction(() => held));
    try {
      await new Promise((r) => setTimeout(r, 100));
      const a = await get("/public/v1/products");
      expectShed(a);
      expect(a.ms).toBeGreaterThanOrEqual(250);
      expect(a.ms).toBeLessThan(1500);
      release();
      await Promise.all(holders);
      expect((await get("/public/v1/products")).status).toBe(200);
    } finally {
      release();
      await Promise.allSettled(holders);
      setRuntime(fx.runtime);
      await rt.close();
      await db.close();
    }
  });
});
