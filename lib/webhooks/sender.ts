// One POST of a webhook: the body signed with the endpoint's current secrets (Standard Webhooks headers) and sent
// through lib/webhooks/outbound.ts on connections kept open between attempts; what the endpoint answered, as logged.
import type { LookupFunction } from "node:net";
import type { Queryable } from "@/db/client";
import { deliveryAgents, postWebhook, type DeliveryAgents } from "@/lib/webhooks/outbound";
import { signWebhook } from "@/lib/webhooks/signing";

// First bytes of an answer kept in the attempts' log.
export const BODY_START_BYTES = 512;

// An endpoint's current secrets ($1), the newest first: each signs every attempt.
export const CURRENT_SECRETS = `select secret from webhook_secrets
  where endpoint_id = $1 and (expires_at is null or expires_at > now())
  order by created_at desc`;

// What one attempt found, as logged.
export interface AttemptOutcome {
  ok: boolean;
  status?: number;
  error?: string;
  latencyMs: number;
  bodyStart: string;
}

// How a sender connects: private addresses allowed (tests, local development), its timeouts, its DNS look-up.
export interface SenderOptions {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  timeoutMs: number;
  /** The DNS look-up of each connection (tests: a name that resolves to a private address); the system's by default. */
  lookup?: LookupFunction;
}

// Sends webhooks for one engine; its kept connections are made at the first send and closed by close().
export class Sender {
  private agents?: DeliveryAgents;

  constructor(
    private readonly db: () => Promise<Queryable>,
    private readonly opts: SenderOptions,
  ) {}

  // POSTs a body to an endpoint now, signed with its current secrets (read here unless given: a test event, an
  // attempt).
  async send(
    endpointId: string,
    url: string,
    eventId: string,
    body: string,
    current?: readonly string[],
  ): Promise<AttemptOutcome> {
    const secrets =
      current ??
      (await (await this.db()).query<{ secret: string }>(CURRENT_SECRETS, [endpointId])).map((s) => s.secret);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "public-catalog-api-webhooks/1",
      "webhook-id": eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook(secrets, eventId, timestamp, body),
    };
    const r = await postWebhook(url, headers, body, {
      allowPrivate: this.opts.allowPrivate,
      connectTimeoutMs: this.opts.connectTimeoutMs,
      timeoutMs: this.opts.timeoutMs,
      maxResponseBytes: BODY_START_BYTES,
      agents: (this.agents ??= deliveryAgents()),
      ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
    });
    return {
      ok: r.ok,
      status: r.status,
      error: r.error ?? (r.ok ? undefined : `status ${r.status}`),
      latencyMs: Math.round(r.latencyMs),
      bodyStart: r.bodyStart.slice(0, BODY_START_BYTES),
    };
  }

  // Closes the connections kept open to receivers.
  close(): void {
    this.agents?.http.destroy();
    this.agents?.https.destroy();
    this.agents = undefined;
  }
}
