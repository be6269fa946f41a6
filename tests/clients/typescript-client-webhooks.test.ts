// The TypeScript client's verifyWebhook against deliveries of the server's own webhook engine, received by a real
// HTTP receiver on loopback: a delivery verified (its event the one the change feed gives), and refused when its
// body, its signature, the secret or its timestamp (older than the 300 s tolerance) is tampered with. Also a
// signature of the standardwebhooks package, and a secret rolled (two signatures, either secret accepted).
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookEngine } from "@/lib/webhooks/engine";
import { newWebhookSecret, signWebhook } from "@/lib/webhooks/signing";
import { CatalogClient, verifyWebhook, WebhookVerificationError } from "@/clients/typescript/src/index";
import { startApiServer, type ApiServer } from "../support/api-server";
import {
  addCategories,
  engineOn,
  registerEndpoint,
  startReceiver,
  waitFor,
  type HookDb,
  type Received,
  type Receiver,
} from "../webhooks/support";

let api: ApiServer;
let engine: WebhookEngine;
let receiver: Receiver;
let secret: string;
let delivery: Received;
let categoryId: string;

beforeAll(async () => {
  api = await startApiServer("pglite", { PUBLIC_API_PREVIEW: "all", WEBHOOKS_ALLOW_PRIVATE_URLS: "true" });
  const h: HookDb = {
    db: api.fx.db,
    orgId: api.fx.acme.orgId,
    config: api.fx.config,
    close: async () => undefined,
  };
  receiver = await startReceiver();
  ({ secret } = await registerEndpoint(h, receiver.url));
  engine = engineOn(h);
  await engine.start();
  [categoryId] = (await addCategories(h, 1, "hook")) as [string];
  await waitFor(() => receiver.got.some((r) => r.body.includes(categoryId)), "the category's delivery");
  delivery = receiver.got.find((r) => r.body.includes(categoryId))!;
});

afterAll(async () => {
  await engine?.stop();
  await receiver?.close();
  await api?.close();
});

// The error verifyWebhook throws for these arguments (undefined: it verified).
async function refusal(...args: Parameters<typeof verifyWebhook>): Promise<unknown> {
  return verifyWebhook(...args).then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("verifyWebhook, given the server's deliveries", () => {
  it("verifies a delivery and returns its event, the one the change feed gives", async () => {
    const event = await verifyWebhook(secret, delivery.headers, delivery.body);
    expect(event).toMatchObject({ type: "categories", id: categoryId, op: "upsert" });
    const client = new CatalogClient({ baseUrl: api.baseUrl, key: api.fx.acme.full });
    const page = await client.changes({
      after: String(Number(event.cursor) - 1),
      types: ["categories"],
      limit: 1,
    });
    expect(page.data[0]).toEqual(event);
    // The same with a Headers object and the body's bytes.
    const headers = new Headers();
    for (const [k, v] of Object.entries(delivery.headers)) if (typeof v === "string") headers.set(k, v);
    expect(await verifyWebhook(secret, headers, new TextEncoder().encode(delivery.body))).toEqual(event);
  });

  it("refuses a tampered body, signature or secret", async () => {
    const body = delivery.body.replace(categoryId, `${categoryId}x`);
    expect(await refusal(secret, delivery.headers, body)).toBeInstanceOf(WebhookVerificationError);
    const signature = String(delivery.headers["webhook-signature"]);
    const flipped = signature.slice(0, 5) + (signature[5] === "A" ? "B" : "A") + signature.slice(6);
    const forged = { ...delivery.headers, "webhook-signature": flipped };
    expect(await refusal(secret, forged, delivery.body)).toBeInstanceOf(WebhookVerificationError);
    expect(await refusal(newWebhookSecret(), delivery.headers, delivery.body)).toBeInstanceOf(
      WebhookVerificationError,
    );
    const moved = {
      ...delivery.headers,
      "webhook-timestamp": String(Number(delivery.headers["webhook-timestamp"]) - 1),
    };
    expect(await refusal(secret, moved, delivery.body)).toBeInstanceOf(WebhookVerificationError);
    const otherId = { ...delivery.headers, "webhook-id": "msg_other" };
    expect(await refusal(secret, otherId, delivery.body)).toBeInstanceOf(WebhookVerificationError);
    const { "webhook-signature": _dropped, ...unsigned } = delivery.headers;
    expect(await refusal(secret, unsigned, delivery.body)).toBeInstanceOf(WebhookVerificationError);
  });

  it("refuses a timestamp outside the 300 s tolerance, either way; accepts it within", async () => {
    const sentAt = Number(delivery.headers["webhook-timestamp"]) * 1000;
    const late = new Date(sentAt + 301_000);
    expect(await refusal(secret, delivery.headers, delivery.body, { now: late })).toBeInstanceOf(
      WebhookVerificationError,
    );
    const early = new Date(sentAt - 301_000);
    expect(await refusal(secret, delivery.headers, delivery.body, { now: early })).toBeInstanceOf(
      WebhookVerificationError,
    );
    expect(
      await refusal(secret, delivery.headers, delivery.body, { now: new Date(sentAt + 299_000) }),
    ).toBeUndefined();
    expect(
      await refusal(secret, delivery.headers, delivery.body, { now: late, toleranceSeconds: 600 }),
    ).toBeUndefined();
    // An old delivery re-signed with a timestamp of 400 s ago: signed right, refused for its age.
    const old = Math.floor(Date.now() / 1000) - 400;
    const id = String(delivery.headers["webhook-id"]);
    const replayed = {
      "webhook-id": id,
      "webhook-timestamp": String(old),
      "webhook-signature": signWebhook([secret], id, old, delivery.body),
    };
    expect(await refusal(secret, replayed, delivery.body)).toBeInstanceOf(WebhookVerificationError);
  });
});

describe("verifyWebhook, given other signers", () => {
  it("accepts the standardwebhooks package's signature, and either secret of a roll", async () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    const body = JSON.stringify({
      cursor: "1",
      type: "channels",
      id: "chn_x",
      op: "delete",
      at: "x",
      item: null,
    });
    const now = new Date();
    const ts = Math.floor(now.getTime() / 1000);
    const signature = new Webhook(a).sign("msg_1", now, body);
    const headers = {
      "Webhook-Id": "msg_1",
      "Webhook-Timestamp": String(ts),
      "Webhook-Signature": signature,
    };
    expect(await verifyWebhook(a, headers, body)).toMatchObject({ id: "chn_x", op: "delete" });
    const rolled = { ...headers, "Webhook-Signature": signWebhook([a, b], "msg_1", ts, body) };
    expect(await verifyWebhook(a, rolled, body)).toMatchObject({ id: "chn_x" });
    expect(await verifyWebhook(b, rolled, body)).toMatchObject({ id: "chn_x" });
    expect(await refusal(newWebhookSecret(), rolled, body)).toBeInstanceOf(WebhookVerificationError);
  });
});
