// Webhook endpoints, their secrets and their deliveries: the data layer, every function taking the
// organization's id first. Shapes come from the zod schemas below.
import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Queryable } from "@/db/client";
import { base62, isoSql } from "@/db/schema";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { newWebhookSecret } from "@/lib/webhooks/signing";

// A new opaque id with a prefix (whe_ endpoint, whs_ secret, whd_ delivery).
export function webhookId(prefix: "whe" | "whs" | "whd"): string {
  return `${prefix}_${base62(randomBytes(12), 16)}`;
}

// The operations an endpoint may subscribe to (the feed's `op`).
export const WEBHOOK_OPS = ["upsert", "delete"] as const;

// The states of a delivery: an attempt due or running, delivered, every attempt failed, or not sent because its
// endpoint was off when its turn came.
export const DELIVERY_STATES = ["pending", "delivered", "failed", "skipped"] as const;

// Creating an endpoint: its URL (checked again by checkWebhookUrl), what it receives, a description, on or off.
export const endpointInputSchema = z.object({
  url: z.string().trim().min(1).max(2000),
  description: z.string().trim().max(500).default(""),
  types: z
    .array(z.enum(MIRRORED))
    .min(1)
    .default([...MIRRORED]),
  ops: z
    .array(z.enum(WEBHOOK_OPS))
    .min(1)
    .default([...WEBHOOK_OPS]),
  enabled: z.boolean().default(true),
});
export type EndpointInput = z.output<typeof endpointInputSchema>;

// Changing an endpoint: any of the fields of creation.
export const endpointPatchSchema = endpointInputSchema.partial().strict();
export type EndpointPatch = z.output<typeof endpointPatchSchema>;

// An endpoint as the console lists it (never its secrets).
export const endpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  types: z.array(z.string()),
  ops: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  disabledAt: z.string().nullable(),
  position: z.string(),
  secretsActive: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookEndpoint = z.infer<typeof endpointSchema>;

const ENDPOINT_COLUMNS = `e.id, e.url, e.description, e.types, e.ops, e.enabled, e.disabled_reason as "disabledReason",
  ${isoSql("e.disabled_at")} as "disabledAt", e.position::text as position,
  (select count(*)::int from webhook_secrets s where s.endpoint_id = e.id and (s.expires_at is null or s.expires_at > now())) as "secretsActive",
  ${isoSql("e.created_at")} as "createdAt", ${isoSql("e.updated_at")} as "updatedAt"`;

// The organization's endpoints, oldest first.
export async function listEndpoints(db: Queryable, orgId: string): Promise<WebhookEndpoint[]> {
  return db.query<WebhookEndpoint>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints e where e.org_id = $1 order by e.created_at, e.id`,
    [orgId],
  );
}

// One endpoint of the organization, or undefined.
export async function getEndpoint(
  db: Queryable,
  orgId: string,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  const [row] = await db.query<WebhookEndpoint>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints e where e.org_id = $1 and e.id = $2`,
    [orgId, id],
  );
  return row;
}

// Creates an endpoint at the organization's feed head (it receives what changes from now on) with a new secret,
// returned here only.
export async function createEndpoint(
  tx: Queryable,
  orgId: string,
  input: EndpointInput,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const id = webhookId("whe");
  await tx.query(
    `insert into webhook_endpoints (id, org_id, url, description, types, ops, enabled, position)
     values ($1, $2, $3, $4, $5, $6, $7,
             coalesce((select head from catalog_change_heads where org_id = $2), 0))`,
    [id, orgId, input.url, input.description, input.types, input.ops, input.enabled],
  );
  const secret = newWebhookSecret();
  await tx.query(`insert into webhook_secrets (id, endpoint_id, secret) values ($1, $2, $3)`, [
    webhookId("whs"),
    id,
    secret,
  ]);
  return { endpoint: (await getEndpoint(tx, orgId, id))!, secret };
}

// Changes an endpoint; switching it on again clears why it was off and starts a new ordering generation (the
// deliveries held by a failed one do not block the next ones). Undefined when there is no such endpoint.
export async function updateEndpoint(
  tx: Queryable,
  orgId: string,
  id: string,
  patch: EndpointPatch,
): Promise<WebhookEndpoint | undefined> {
  const [row] = await tx.query<{ id: string }>(
    `update webhook_endpoints set
        url = coalesce($3, url),
        description = coalesce($4, description),
        types = coalesce($5, types),
        ops = coalesce($6, ops),
        generation = generation + case when $7::boolean and not enabled then 1 else 0 end,
        disabled_reason = case when $7::boolean is null then disabled_reason
                               when $7::boolean then null else coalesce(disabled_reason, 'manual') end,
        disabled_at = case when $7::boolean is null then disabled_at
                           when $7::boolean then null else coalesce(disabled_at, now()) end,
        enabled = coalesce($7, enabled),
        updated_at = now()
      where org_id = $1 and id = $2 returning id`,
    [
      orgId,
      id,
      patch.url ?? null,
      patch.description ?? null,
      patch.types ?? null,
      patch.ops ?? null,
      patch.enabled ?? null,
    ],
  );
  return row ? getEndpoint(tx, orgId, id) : undefined;
}

// Deletes an endpoint with its secrets and log; whether it existed. Its jobs left in the queue find no delivery.
export async function deleteEndpoint(tx: Queryable, orgId: string, id: string): Promise<boolean> {
  const rows = await tx.query(`delete from webhook_endpoints where org_id = $1 and id = $2 returning id`, [
    orgId,
    id,
  ]);
  return rows.length > 0;
}

// Rolls the signing secret: a new one, returned here only; the current ones keep signing (each delivery carries a
// signature per secret) for overlapSeconds, then expire.
export async function rollSecret(
  tx: Queryable,
  orgId: string,
  id: string,
  overlapSeconds: number,
): Promise<{ secret: string; previousExpireAt: string } | undefined> {
  const [e] = await tx.query(`select id from webhook_endpoints where org_id = $1 and id = $2 for update`, [
    orgId,
    id,
  ]);
  if (!e) return undefined;
  const [{ at }] = (await tx.query<{ at: string }>(
    `select ${isoSql(`(now() + $1::int * interval '1 second')`)} as at`,
    [overlapSeconds],
  )) as [{ at: string }];
  await tx.query(
    `update webhook_secrets set expires_at = least(coalesce(expires_at, 'infinity'), now() + $2::int * interval '1 second')
      where endpoint_id = $1`,
    [id, overlapSeconds],
  );
  const secret = newWebhookSecret();
  await tx.query(`insert into webhook_secrets (id, endpoint_id, secret) values ($1, $2, $3)`, [
    webhookId("whs"),
    id,
    secret,
  ]);
  return { secret, previousExpireAt: at };
}

// Filters of the deliveries' list.
export const deliveryFilterSchema = z.object({
  state: z.enum(DELIVERY_STATES).optional(),
  /** An event's id (the feed's cursor, or a test event's id). */
  eventId: z.string().max(100).optional(),
  type: z.string().max(40).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type DeliveryFilter = z.output<typeof deliveryFilterSchema>;

// One delivery as listed, with its attempts (newest first).
export const deliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  type: z.string(),
  objectId: z.string(),
  op: z.string(),
  state: z.string(),
  attempts: z.number(),
  lastStatus: z.number().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  log: z.array(
    z.object({
      attempt: z.number(),
      ok: z.boolean(),
      status: z.number().nullable(),
      error: z.string().nullable(),
      latencyMs: z.number(),
      bodyStart: z.string(),
      at: z.string(),
    }),
  ),
});
export type WebhookDelivery = z.infer<typeof deliverySchema>;

// The endpoint's latest deliveries (newest first) matching the filters, each with its attempts and, with
// `opts.jobs`, when its next attempt is scheduled (a pending delivery waiting for a retry).
export async function listDeliveries(
  db: Queryable,
  orgId: string,
  endpointId: string,
  f: DeliveryFilter,
  opts: { jobs?: boolean } = {},
): Promise<WebhookDelivery[]> {
  const next = opts.jobs
    ? `case when d.state = 'pending' and d.next_attempt_at > now() then ${isoSql("d.next_attempt_at")} end`
    : "null";
  const rows = await db.query<Omit<WebhookDelivery, "log">>(
    `select d.id, d.event_id as "eventId", d.event_type as type, d.object_id as "objectId", d.op, d.state,
            d.attempts, d.last_status as "lastStatus", ${next} as "nextAttemptAt",
            ${isoSql("d.created_at")} as "createdAt"
       from webhook_deliveries d
      where d.org_id = $1 and d.endpoint_id = $2
        and ($3::text is null or d.state = $3) and ($4::text is null or d.event_id = $4)
        and ($5::text is null or d.event_type = $5)
      order by d.created_at desc, d.id desc
      limit $6`,
    [orgId, endpointId, f.state ?? null, f.eventId ?? null, f.type ?? null, f.limit],
  );
  if (rows.length === 0) return [];
  const attempts = await db.query<WebhookDelivery["log"][number] & { deliveryId: string }>(
    `select delivery_id as "deliveryId", attempt, ok, status, error, latency_ms as "latencyMs",
            body_start as "bodyStart", ${isoSql("at")} as at
       from webhook_attempts where delivery_id = any($1::text[]) order by id desc`,
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => ({
    ...r,
    log: attempts.filter((a) => a.deliveryId === r.id).map(({ deliveryId: _, ...a }) => a),
  }));
}

// A delivery of the organization's endpoint, or undefined.
export async function findDelivery(
  db: Queryable,
  orgId: string,
  endpointId: string,
  deliveryId: string,
): Promise<{ id: string } | undefined> {
  const [row] = await db.query<{ id: string }>(
    `select id from webhook_deliveries where org_id = $1 and endpoint_id = $2 and id = $3`,
    [orgId, endpointId, deliveryId],
  );
  return row;
}
