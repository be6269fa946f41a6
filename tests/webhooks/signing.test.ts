// Webhook signatures (lib/webhooks/signing.ts) held against an independent implementation: the `standardwebhooks`
// package (the spec's own JavaScript library, its HMAC from fast-sha256, not node:crypto) verifies ours and signs
// what ours verifies; the spec's published test vector; a changed body, timestamp or id fails; both secrets of a
// roll verify; the timestamp tolerance holds.
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { newWebhookSecret, signWebhook, verifyWebhook } from "@/lib/webhooks/signing";

const now = () => Math.floor(Date.now() / 1000);
const BODY = JSON.stringify({
  cursor: "1234",
  type: "products",
  id: "prd_3Hk8mQ2rT6vW9xYz",
  op: "upsert",
  at: "2026-06-07T09:30:13.002Z",
  item: { id: "prd_3Hk8mQ2rT6vW9xYz", label: "Chaise « Crème » ✓" },
});

function headers(id: string, ts: number, signature: string) {
  return { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signature };
}

describe("newWebhookSecret", () => {
  it("is whsec_ and the base64 of 32 random bytes, new each time", () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(a).not.toBe(b);
    // The reference library takes it as a secret.
    expect(() => new Webhook(a)).not.toThrow();
  });
});

describe("signWebhook", () => {
  it("gives the spec's test vector", () => {
    // From the Standard Webhooks reference libraries' tests (and Svix's docs).
    const sig = signWebhook(
      ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
    expect(sig).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("equals the standardwebhooks package's signature, which verifies it", () => {
    const secret = newWebhookSecret();
    const ts = now();
    const ours = signWebhook([secret], "4711", ts, BODY);
    const wh = new Webhook(secret);
    expect(ours).toBe(wh.sign("4711", new Date(ts * 1000), BODY));
    expect(wh.verify(BODY, headers("4711", ts, ours))).toEqual(JSON.parse(BODY));
  });

  it("fails the package's verification when the body, timestamp or id changed", () => {
    const secret = newWebhookSecret();
    const ts = now();
    const sig = signWebhook([secret], "4711", ts, BODY);
    const wh = new Webhook(secret);
    expect(() => wh.verify(BODY.replace("1234", "1235"), headers("4711", ts, sig))).toThrow();
    expect(() => wh.verify(BODY, headers("4711", ts - 1, sig))).toThrow();
    expect(() => wh.verify(BODY, headers("4712", ts, sig))).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(BODY, headers("4711", ts, sig))).toThrow();
  });

  it("signs with each secret of a roll: the package verifies with either", () => {
    const [old, next] = [newWebhookSecret(), newWebhookSecret()];
    const ts = now();
    const sig = signWebhook([old, next], "9", ts, BODY);
    expect(sig.split(" ")).toHaveLength(2);
    expect(sig).toMatch(/^v1,\S+ v1,\S+$/);
    for (const s of [old, next]) expect(new Webhook(s).verify(BODY, headers("9", ts, sig))).toBeTruthy();
    expect(() => new Webhook(newWebhookSecret()).verify(BODY, headers("9", ts, sig))).toThrow();
  });

  it("refuses no secret and a fractional timestamp", () => {
    expect(() => signWebhook([], "1", now(), BODY)).toThrow(/no secret/);
    expect(() => signWebhook([newWebhookSecret()], "1", 1.5, BODY)).toThrow(/whole seconds/);
  });
});

describe("verifyWebhook", () => {
  const secret = newWebhookSecret();
  const ts = now();

  it("accepts what the standardwebhooks package signs", () => {
    const sig = new Webhook(secret).sign("55", new Date(ts * 1000), BODY);
    expect(verifyWebhook(secret, { id: "55", timestamp: String(ts), signature: sig }, BODY)).toBe(true);
  });

  it("accepts the spec's test vector at its time", () => {
    const h = {
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: "1614265330",
      signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    };
    expect(
      verifyWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, '{"test": 2432232314}', 1614265330),
    ).toBe(true);
    // …and not today: five minutes either way.
    expect(verifyWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, '{"test": 2432232314}')).toBe(false);
  });

  it("refuses a changed body, timestamp or id, another secret, and a signature of another version", () => {
    const sig = signWebhook([secret], "55", ts, BODY);
    const h = { id: "55", timestamp: String(ts), signature: sig };
    expect(verifyWebhook(secret, h, BODY)).toBe(true);
    expect(verifyWebhook(secret, h, BODY + " ")).toBe(false);
    expect(verifyWebhook(secret, { ...h, timestamp: String(ts + 1) }, BODY)).toBe(false);
    expect(verifyWebhook(secret, { ...h, id: "56" }, BODY)).toBe(false);
    expect(verifyWebhook(newWebhookSecret(), h, BODY)).toBe(false);
    expect(verifyWebhook(secret, { ...h, signature: sig.replace(/^v1,/, "v2,") }, BODY)).toBe(false);
    expect(verifyWebhook(secret, { ...h, signature: "" }, BODY)).toBe(false);
    expect(verifyWebhook(secret, { ...h, signature: "v1,not-base64!" }, BODY)).toBe(false);
  });

  it("accepts any of several signatures (a roll), whichever secret the receiver holds", () => {
    const [old, next] = [newWebhookSecret(), newWebhookSecret()];
    const sig = signWebhook([old, next], "7", ts, BODY);
    const h = { id: "7", timestamp: String(ts), signature: sig };
    expect(verifyWebhook(old, h, BODY)).toBe(true);
    expect(verifyWebhook(next, h, BODY)).toBe(true);
    // A v1a (asymmetric) entry beside it is passed over.
    expect(verifyWebhook(next, { ...h, signature: `v1a,AAAA ${sig}` }, BODY)).toBe(true);
  });

  it("holds the timestamp within the tolerance (300 s by default), either way", () => {
    const sig = signWebhook([secret], "8", ts, BODY);
    const h = { id: "8", timestamp: String(ts), signature: sig };
    expect(verifyWebhook(secret, h, BODY, ts + 300)).toBe(true);
    expect(verifyWebhook(secret, h, BODY, ts + 301)).toBe(false);
    expect(verifyWebhook(secret, h, BODY, ts - 301)).toBe(false);
    expect(verifyWebhook(secret, h, BODY, ts + 1000, 1000)).toBe(true);
    expect(verifyWebhook(secret, { ...h, timestamp: `${ts}.0` }, BODY)).toBe(false);
    expect(verifyWebhook(secret, { ...h, timestamp: "" }, BODY)).toBe(false);
  });
});
