// The console's webhooks (issue 25) through the /api/console route handlers with real sign-ins, on PGlite: who may
// read and manage, the SSRF refusals at registration, then registering an endpoint that is a real receiver on
// loopback, a test event received and verified, a secret rolled (both signatures during the overlap), a failure seen
// in the log, Redeliver and Replay from a cursor, each action in the audit log; off, nothing is there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as listRoute from "@/app/api/console/orgs/[org]/webhooks/route";
import * as oneRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/route";
import * as rollRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/roll/route";
import * as testRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/test/route";
import * as deliveriesRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/deliveries/route";
import * as redeliverRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/deliveries/[delivery]/redeliver/route";
import * as replayRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/replay/route";
import { addMembership, createUser } from "@/db/users";
import { csrfTokenFor } from "@/lib/console/http";
import { loadConfig } from "@/lib/config";
import { createRuntime, type Runtime } from "@/lib/runtime";
import { verifyWebhook } from "@/lib/webhooks/signing";
import { setupApi, swapRuntime, type ApiFixture } from "../support/api";
import { signIn } from "../support/console";
import { startReceiver, waitFor, type Receiver } from "./support";

const PASSWORD = "correct horse battery";

interface Session {
  cookie: string;
  csrf: string;
}
interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

describe("console webhooks on pglite", () => {
  let fx: ApiFixture;
  let owner: Session;
  let member: Session;
  let otherAdmin: Session;
  let rt: Runtime;
  let receiver: Receiver;

  async function session(
    email: string,
    orgSlug: string,
    role: "owner" | "admin" | "member",
  ): Promise<Session> {
    const user = await createUser(fx.db, { email, name: email, password: PASSWORD });
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = $1", [
      orgSlug,
    ]);
    await addMembership(fx.db, { userId: user.id, orgId: org!.id, role });
    const { cookie } = await signIn(email, PASSWORD);
    return { cookie, csrf: csrfTokenFor(fx.config, user.id, new Headers({ cookie })) };
  }

  // Calls a console route handler in-process as the page's fetch would.
  async function act(
    handler: Handler,
    method: string,
    path: string,
    params: Record<string, string>,
    opts: { as?: Session; body?: unknown; csrf?: boolean } = {},
  ): Promise<Res> {
    const as = opts.as ?? owner;
    const headers = new Headers({ cookie: as.cookie });
    const write = method !== "GET";
    if (write) {
      headers.set("origin", "http://api.test");
      if (opts.csrf !== false) headers.set("x-csrf-token", as.csrf);
      headers.set("content-type", "application/json");
    }
    const res = await handler(
      new Request(`http://api.test/api/console/orgs/${params.org}/webhooks${path}`, {
        method,
        headers,
        body: write ? JSON.stringify(opts.body ?? {}) : undefined,
      }),
      { params: Promise.resolve(params) },
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
  const create = (body: unknown, as?: Session, org = "acme") =>
    act(listRoute.POST as Handler, "POST", "", { org }, { as, body });

  async function withPrivateUrls(allow: boolean): Promise<void> {
    await rt?.close();
    rt = createRuntime(
      loadConfig({
        PUBLIC_BASE_URL: "http://api.test",
        PUBLIC_API_PREVIEW: "webhooks",
        WEBHOOKS_ALLOW_PRIVATE_URLS: String(allow),
        AUTH_SECRET: fx.config.AUTH_SECRET ?? "",
      }),
      fx.db,
    );
    await swapRuntime(rt);
  }

  beforeAll(async () => {
    fx = await setupApi("pglite", { PUBLIC_API_PREVIEW: "webhooks" });
    owner = await session("hooks-owner@example.test", "acme", "owner");
    member = await session("hooks-member@example.test", "acme", "member");
    otherAdmin = await session("hooks-admin@example.test", "globex", "admin");
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await rt?.close();
    await receiver?.close();
    await fx?.close();
  }, 60_000);

  it("refuses at registration what is not https or points at a private, loopback, link-local or metadata address", async () => {
    await withPrivateUrls(false);
    for (const url of [
      "http://example.com/hook",
      "https://127.0.0.1/hook",
      "https://10.1.2.3/hook",
      "https://192.168.0.10/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://localhost/hook",
      "ftp://example.com/",
      "not a url",
    ]) {
      const res = await create({ url });
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({ code: "CONSOLE_INVALID", message: expect.stringMatching(/^url: /) });
    }
    const list = await act(listRoute.GET as Handler, "GET", "", { org: "acme" });
    expect(list.body.endpoints).toEqual([]);
  });

  it("lets members read, owners and admins manage, nobody outside the organization, and only from the console", async () => {
    await withPrivateUrls(true);
    expect((await act(listRoute.GET as Handler, "GET", "", { org: "acme" }, { as: member })).status).toBe(
      200,
    );
    expect((await create({ url: receiver.url }, member)).body.code).toBe("CONSOLE_FORBIDDEN");
    expect((await create({ url: receiver.url }, otherAdmin)).status).toBe(404);
    expect((await act(listRoute.GET as Handler, "GET", "", { org: "acme" }, { as: otherAdmin })).status).toBe(
      404,
    );
    const noCsrf = await act(
      listRoute.POST as Handler,
      "POST",
      "",
      { org: "acme" },
      { body: { url: receiver.url }, csrf: false },
    );
    expect(noCsrf.body.code).toBe("CONSOLE_CSRF");
    expect((await create({ url: receiver.url, types: ["nope"] })).body.code).toBe("CONSOLE_INVALID");
  });

  it("registers an endpoint, sends a test event it verifies, rolls the secret with an overlap, shows a failure and redelivers it, replays, audits it all", async () => {
    await withPrivateUrls(true);
    const made = await create({ url: receiver.url, description: "ci receiver", types: ["products"] });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_/);
    const id = made.body.endpoint.id as string;
    const p = { org: "acme", id };
    expect(made.body.endpoint).toMatchObject({
      url: receiver.url,
      types: ["products"],
      ops: ["upsert", "delete"],
      enabled: true,
    });
    // The secret is never listed again.
    const listed = await act(listRoute.GET as Handler, "GET", "", { org: "acme" });
    expect(JSON.stringify(listed.body)).not.toContain(made.body.secret);

    const test = await act(testRoute.POST as Handler, "POST", `/${id}/test`, p);
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ ok: true, status: 200, bodyStart: "ok" });
    const got = receiver.got.at(-1)!;
    expect(got.headers["webhook-id"]).toBe(test.body.eventId);
    expect(test.body.eventId).toMatch(/^test_/);
    const sig = (g = got) => ({
      id: String(g.headers["webhook-id"]),
      timestamp: String(g.headers["webhook-timestamp"]),
      signature: String(g.headers["webhook-signature"]),
    });
    expect(verifyWebhook(made.body.secret, sig(), got.body)).toBe(true);

    const rolled = await act(rollRoute.POST as Handler, "POST", `/${id}/roll`, p, {
      body: { overlapSeconds: 3600 },
    });
    expect(rolled.status).toBe(201);
    expect(rolled.body.secret).not.toBe(made.body.secret);
    await act(testRoute.POST as Handler, "POST", `/${id}/test`, p);
    const after = receiver.got.at(-1)!;
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verifyWebhook(made.body.secret, sig(after), after.body)).toBe(true);
    expect(verifyWebhook(rolled.body.secret, sig(after), after.body)).toBe(true);

    // A failure, seen in the log with the answer's first bytes; then redelivered once the receiver is fine again.
    receiver.answer = (_g, res) => {
      res.statusCode = 500;
      res.end("receiver exploded");
    };
    const failed = await act(testRoute.POST as Handler, "POST", `/${id}/test`, p);
    expect(failed.body).toMatchObject({ ok: false, status: 500, bodyStart: "receiver exploded" });
    const log = await act(deliveriesRoute.GET as Handler, "GET", `/${id}/deliveries?state=failed`, p);
    expect(log.status).toBe(200);
    expect(log.body.deliveries).toHaveLength(1);
    const d = log.body.deliveries[0];
    expect(d).toMatchObject({ eventId: failed.body.eventId, state: "failed", lastStatus: 500 });
    expect(d.log[0]).toMatchObject({ attempt: 1, ok: false, status: 500, bodyStart: "receiver exploded" });
    receiver.answer = (_g, res) => res.end("ok");
    await rt.background.webhooks.start();
    const re = await act(redeliverRoute.POST as Handler, "POST", `/${id}/deliveries/${d.id}/redeliver`, {
      ...p,
      delivery: d.id,
    });
    expect(re.status).toBe(202);
    await waitFor(
      () => receiver.got.filter((g) => g.headers["webhook-id"] === failed.body.eventId).length === 2,
      "the redelivery",
    );
    await waitFor(
      async () =>
        (
          await act(
            deliveriesRoute.GET as Handler,
            "GET",
            `/${id}/deliveries?eventId=${failed.body.eventId}`,
            p,
          )
        ).body.deliveries[0].state === "delivered",
      "delivered",
    );
    // Member reads the log, cannot redeliver.
    expect(
      (await act(deliveriesRoute.GET as Handler, "GET", `/${id}/deliveries`, p, { as: member })).status,
    ).toBe(200);
    expect(
      (
        await act(
          redeliverRoute.POST as Handler,
          "POST",
          `/${id}/deliveries/${d.id}/redeliver`,
          { ...p, delivery: d.id },
          { as: member },
        )
      ).body.code,
    ).toBe("CONSOLE_FORBIDDEN");

    // Replay from a cursor: the feed's product events after it are delivered again.
    const before = receiver.got.length;
    const [{ head }] = (await fx.db.query<{ head: string }>(
      "select head::text as head from catalog_change_heads h join organizations o on o.id = h.org_id where o.slug = 'acme'",
    )) as [{ head: string }];
    const replay = await act(replayRoute.POST as Handler, "POST", `/${id}/replay`, p, {
      body: { after: String(BigInt(head) - 5n) },
    });
    expect(replay.status).toBe(202);
    expect(
      (
        await act(replayRoute.POST as Handler, "POST", `/${id}/replay`, p, {
          body: { after: String(BigInt(head) + 1n) },
        })
      ).body.code,
    ).toBe("CONSOLE_INVALID");
    const moved = await act(listRoute.GET as Handler, "GET", "", { org: "acme" });
    // The dispatcher goes on from there (it may already have moved past it).
    expect(BigInt(moved.body.endpoints[0].position)).toBeGreaterThanOrEqual(BigInt(head) - 5n);
    expect(receiver.got.length).toBeGreaterThanOrEqual(before);

    // Switched off and on, then deleted.
    const off = await act(oneRoute.PATCH as Handler, "PATCH", `/${id}`, p, { body: { enabled: false } });
    expect(off.body).toMatchObject({ enabled: false, disabledReason: "manual" });
    const on = await act(oneRoute.PATCH as Handler, "PATCH", `/${id}`, p, { body: { enabled: true } });
    expect(on.body).toMatchObject({ enabled: true, disabledReason: null });
    expect((await act(oneRoute.DELETE as Handler, "DELETE", `/${id}`, p)).body).toEqual({ deleted: true });

    const audit = await fx.db.query<{ action: string }>(
      "select action from audit_events where target_id = $1 order by created_at, id",
      [id],
    );
    expect(new Set(audit.map((a) => a.action))).toEqual(
      new Set([
        "webhook_endpoint.created",
        "webhook_endpoint.test_sent",
        "webhook_endpoint.secret_rolled",
        "webhook_delivery.redelivered",
        "webhook_endpoint.replayed",
        "webhook_endpoint.updated",
        "webhook_endpoint.deleted",
      ]),
    );
  }, 60_000);

  it("is not there while the preview is off", async () => {
    await rt?.close();
    rt = createRuntime(
      loadConfig({ PUBLIC_BASE_URL: "http://api.test", AUTH_SECRET: fx.config.AUTH_SECRET ?? "" }),
      fx.db,
    );
    await swapRuntime(rt);
    expect((await act(listRoute.GET as Handler, "GET", "", { org: "acme" })).status).toBe(404);
  });
});
