// HAProxy in front of the server (scripts/lib/haproxy.ts, `npm run haproxy:config`; issue 27, item 5): a real
// HAProxy with the generated configuration before a server on loopback that holds each request 1.5 s, one
// connection allowed (--maxconn 1). Of three requests sent at once, one is served and the two others wait in
// HAProxy's queue; after its 500 ms they get the API's own 503 (lib/public-api/admission.ts overloadedAnswer): the same
// status, headers and body, the request id HAProxy's and the same in the header and the body. HAProxy forwards the
// client's address in X-Forwarded-For (the server runs with TRUST_PROXY=true behind it).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { overloadedAnswer } from "@/lib/public-api/admission";
import { haproxyConfig } from "@/scripts/lib/haproxy";
import { findPart, localProbe } from "@/scripts/lib/system-deps";
import { freePort } from "../support/ports";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

function get(port: number, p: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: p, agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body, ms: performance.now() - started }),
        );
      })
      .on("error", reject);
  });
}

describe("HAProxy in front of the server, configured by npm run haproxy:config", () => {
  let dir: string;
  let backend: http.Server;
  let haproxy: ChildProcess;
  let port = 0;
  let output = "";
  const forwardedFor: (string | undefined)[] = [];

  beforeAll(async () => {
    backend = http.createServer((req, res) => {
      forwardedFor.push(req.headers["x-forwarded-for"] as string | undefined);
      setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("served"), 1500);
    });
    await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
    const backendPort = (backend.address() as { port: number }).port;
    port = await freePort();
    dir = mkdtempSync(path.join(os.tmpdir(), "pca-haproxy-"));
    const cfg = path.join(dir, "haproxy.cfg");
    writeFileSync(
      cfg,
      haproxyConfig({ bind: `127.0.0.1:${port}`, server: `127.0.0.1:${backendPort}`, maxconn: 1 }),
    );
    // npm test installs it (scripts/lib/system-deps.ts); on the PATH or at Debian's /usr/sbin/haproxy.
    const bin = findPart("haproxy", process.env, localProbe());
    if (!bin) throw new Error("haproxy is not installed: run the suites with `npm test`, which installs it");
    haproxy = spawn(bin, ["-f", cfg], { stdio: ["ignore", "pipe", "pipe"] });
    haproxy.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    haproxy.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const end = Date.now() + 10_000;
    for (;;) {
      if (haproxy.exitCode !== null) throw new Error(`haproxy exited (${haproxy.exitCode}):\n${output}`);
      const up = await new Promise<boolean>((resolve) => {
        const s = http.get({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
          res.resume();
          resolve(true);
        });
        s.on("error", () => resolve(false));
      });
      if (up) break;
      if (Date.now() > end) throw new Error(`haproxy did not listen:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 30_000);

  afterAll(async () => {
    haproxy?.kill("SIGTERM");
    await new Promise((r) => backend?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves what the server can take and answers the rest, after its 500 ms queue, with the API's 503", async () => {
    forwardedFor.length = 0;
    const answers = await Promise.all([1, 2, 3].map((i) => get(port, `/public/v1/products?page=${i}`)));
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503);
    expect(served).toHaveLength(1);
    expect(served[0]!.body).toBe("served");
    expect(refused).toHaveLength(2);
    const app = overloadedAnswer("GET");
    const appHeaders: Record<string, string> = {};
    for (let i = 0; i < app.headers.length; i += 2) appHeaders[app.headers[i]!] = app.headers[i + 1]!;
    for (const a of refused) {
      // Refused once the queue's 500 ms are over (the server holds its one connection 1.5 s).
      expect(a.ms).toBeGreaterThanOrEqual(450);
      const id = a.headers["x-request-id"] as string;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      for (const [name, value] of Object.entries(appHeaders))
        expect(a.headers[name], name).toBe(name === "x-request-id" ? id : value);
      expect(JSON.parse(a.body)).toEqual({ ...JSON.parse(app.body!), requestId: id });
    }
    expect(refused[0]!.headers["x-request-id"]).not.toBe(refused[1]!.headers["x-request-id"]);
    // HAProxy tells the server the client's address.
    expect(forwardedFor).toEqual(["127.0.0.1"]);
  });
});
