// The console's webhooks (preview feature `webhooks`): every member of an organization reads its endpoints
// and their deliveries; owners and admins register, change, delete, roll a secret, send a test event, redeliver and
// replay. Each action is checked here, on the server, in the transaction that makes it, and written to the audit log.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Database, Executor } from "@/db/client";
import { recordAudit } from "@/lib/audit/record";
import { feedState } from "@/lib/catalog/feed/changes";
import type { CatalogContext } from "@/lib/catalog/context";
import { previewOn } from "@/lib/preview";
import type { Config } from "@/lib/config";
import { settleAttempts, webhookId, type WebhookEngine } from "@/lib/webhooks/engine";
import {
  createEndpoint,
  deleteEndpoint,
  deliveryFilterSchema,
  endpointInputSchema,
  endpointPatchSchema,
  findDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  rollSecret,
  updateEndpoint,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "@/lib/webhooks/endpoints";
import { checkWebhookUrl } from "@/lib/webhooks/outbound";
import { canManage, requireRole, type Actor, type Membership } from "./access";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";

// How long a rolled secret keeps signing beside the new one, by default (and at most).
export const SECRET_OVERLAP_SECONDS = 24 * 60 * 60;
const MAX_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

// Rolling a secret: how long the current ones keep signing.
export const rollSecretInputSchema = z
  .object({
    overlapSeconds: z.number().int().min(0).max(MAX_OVERLAP_SECONDS).default(SECRET_OVERLAP_SECONDS),
  })
  .strict();

// Replaying an endpoint: the feed's cursor to start again after (its events are delivered again from there).
export const replayInputSchema = z
  .object({ after: z.string().regex(/^\d{1,19}$/, "a feed cursor") })
  .strict();

// The result of a test event: what the endpoint answered.
export interface TestEventResult {
  eventId: string;
  ok: boolean;
  status: number | null;
  error: string | null;
  latencyMs: number;
  bodyStart: string;
}

// What the console asks of the webhooks' engine: a test sent now, a delivery queued again, a dispatch pass woken.
export type WebhookQueue = Pick<WebhookEngine, "send" | "jobs" | "redeliver" | "wake">;

// The membership, checked: the preview is on (else nothing is there), the user a member, an owner or admin to manage.
async function access(
  config: Config,
  db: Executor,
  user: Actor,
  orgSlug: string,
  manage: boolean,
): Promise<Membership> {
  if (!previewOn("webhooks", config)) throw new ConsoleError("CONSOLE_NOT_FOUND");
  const membership = await requireRole(db, user, orgSlug, "member");
  const refusal = "Only owners and admins of this organization manage its webhooks.";
  if (manage && !canManage(membership.role)) throw new ConsoleError("CONSOLE_FORBIDDEN", refusal);
  return membership;
}

// A URL checked as the endpoint's: https and a public address unless WEBHOOKS_ALLOW_PRIVATE_URLS (400 naming why).
async function checkedUrl(config: Config, url: string): Promise<string> {
  const check = await checkWebhookUrl(url, { allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_URLS });
  if (!check.ok) throw new ConsoleError("CONSOLE_INVALID", `url: ${check.reason}`);
  return check.url.toString();
}

async function endpointOr404(db: Executor, orgId: string, id: string): Promise<WebhookEndpoint> {
  const e = await getEndpoint(db, orgId, id);
  if (!e) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such endpoint.");
  return e;
}

// The organization's endpoints (every member), with the user's membership and whether they may manage them.
export async function listOrgWebhooks(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
): Promise<Membership & { canManage: boolean; endpoints: WebhookEndpoint[] }> {
  const membership = await access(config, db, user, orgSlug, false);
  return {
    ...membership,
    canManage: canManage(membership.role),
    endpoints: await listEndpoints(db, membership.org.id),
  };
}

// Registers an endpoint (owners and admins): its URL checked; the signing secret is in this answer only.
export async function createOrgWebhook(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  input: unknown,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await access(config, db, user, orgSlug, true);
  const parsed = parseInput(endpointInputSchema, input);
  // Resolved before the transaction (a DNS answer can take a while): the role is checked again inside it.
  const url = await checkedUrl(config, parsed.url);
  return db.transaction(async (tx) => {
    const { org } = await access(config, tx, user, orgSlug, true);
    const created = await createEndpoint(tx, org.id, { ...parsed, url });
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "webhook_endpoint.created",
      targetId: created.endpoint.id,
      details: { url, types: parsed.types, ops: parsed.ops, enabled: parsed.enabled },
    });
    return created;
  });
}

// Changes an endpoint (owners and admins): a new URL is checked; switching it on again clears why it was off.
export async function updateOrgWebhook(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  id: string,
  input: unknown,
): Promise<WebhookEndpoint> {
  await access(config, db, user, orgSlug, true);
  const patch = parseInput(endpointPatchSchema, input);
  if (patch.url !== undefined) patch.url = await checkedUrl(config, patch.url);
  return db.transaction(async (tx) => {
    const { org } = await access(config, tx, user, orgSlug, true);
    const updated = await updateEndpoint(tx, org.id, id, patch);
    if (!updated) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such endpoint.");
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "webhook_endpoint.updated",
      targetId: id,
      details: { ...patch },
    });
    return updated;
  });
}

// Deletes an endpoint (owners and admins) with its secrets and its log.
export async function deleteOrgWebhook(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  id: string,
): Promise<{ deleted: true }> {
  return db.transaction(async (tx) => {
    const { org } = await access(config, tx, user, orgSlug, true);
    const e = await endpointOr404(tx, org.id, id);
    await deleteEndpoint(tx, org.id, id);
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "webhook_endpoint.deleted",
      targetId: id,
      details: { url: e.url },
    });
    return { deleted: true };
  });
}

// Rolls the signing secret (owners and admins): the new one is in this answer only; the current ones keep signing
// for the overlap (default 24 h).
export async function rollOrgWebhookSecret(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  id: string,
  input: unknown,
): Promise<{ secret: string; previousExpireAt: string }> {
  return db.transaction(async (tx) => {
    const { org } = await access(config, tx, user, orgSlug, true);
    const { overlapSeconds } = parseInput(rollSecretInputSchema, input);
    const rolled = await rollSecret(tx, org.id, id, overlapSeconds);
    if (!rolled) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such endpoint.");
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "webhook_endpoint.secret_rolled",
      targetId: id,
      details: { overlapSeconds, previousExpireAt: rolled.previousExpireAt },
    });
    return rolled;
  });
}

// Sends a test event now (owners and admins), signed like any other, its id `test_…`; logged as a delivery of its
// own (redeliverable) and answered with what the endpoint said.
export async function sendOrgWebhookTest(
  db: Database,
  config: Config,
  engine: WebhookQueue,
  user: Actor,
  orgSlug: string,
  id: string,
): Promise<TestEventResult> {
  const { org } = await access(config, db, user, orgSlug, true);
  const e = await endpointOr404(db, org.id, id);
  const eventId = `test_${randomBytes(9).toString("base64url")}`;
  const body = JSON.stringify({
    cursor: null,
    type: "test",
    id: eventId,
    op: "test",
    at: new Date().toISOString(),
    item: null,
  });
  const deliveryId = webhookId("whd");
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body)
       values ($1, $2, $3, $4, 'test', $4, 'test', $5)`,
      [deliveryId, e.id, org.id, eventId, body],
    );
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "webhook_endpoint.test_sent",
      targetId: e.id,
      details: { eventId },
    });
  });
  const o = await engine.send(e.id, e.url, eventId, body);
  await db.transaction((tx) =>
    settleAttempts(tx, [{ deliveryId, endpointId: e.id, outcome: o, state: o.ok ? "delivered" : "failed" }]),
  );
  return {
    eventId,
    ok: o.ok,
    status: o.status ?? null,
    error: o.ok ? null : (o.error ?? null),
    latencyMs: o.latencyMs,
    bodyStart: o.bodyStart,
  };
}

// The endpoint's deliveries (every member), newest first, filtered (state, event id, type) from the query string.
export async function listOrgWebhookDeliveries(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  id: string,
  search: URLSearchParams,
): Promise<{ endpoint: WebhookEndpoint; deliveries: WebhookDelivery[] }> {
  const { org } = await access(config, db, user, orgSlug, false);
  const endpoint = await endpointOr404(db, org.id, id);
  const filter = parseInput(
    deliveryFilterSchema,
    Object.fromEntries([...search].filter(([, v]) => v !== "")),
  );
  return { endpoint, deliveries: await listDeliveries(db, org.id, id, filter, { jobs: true }) };
}

// Sends one delivery again (owners and admins): queued now, with attempts and retries of its own.
export async function redeliverOrgWebhook(
  db: Database,
  config: Config,
  engine: WebhookQueue,
  user: Actor,
  orgSlug: string,
  id: string,
  deliveryId: string,
): Promise<{ queued: true }> {
  // Refused before the job queue is started for it (a stranger's call starts nothing), then checked again with the
  // change.
  await access(config, db, user, orgSlug, true);
  await engine.jobs();
  return db.transaction(async (tx) => {
    const { org } = await access(config, tx, user, orgSlug, true);
    if (!(await findDelivery(tx, org.id, id, deliveryId)))
      throw new ConsoleError("CONSOLE_NOT_FOUND", "No such delivery.");
    await engine.redeliver(tx, deliveryId);
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "webhook_delivery.redelivered",
      targetId: id,
      details: { deliveryId },
    });
    return { queued: true };
  });
}

// Replays an endpoint from a cursor of the feed (owners and admins): its events after it are delivered again, in
// order per object; a cursor the feed no longer keeps, or not yet reached, is a 400.
export async function replayOrgWebhook(
  db: Database,
  config: Config,
  engine: WebhookQueue,
  catalog: CatalogContext,
  user: Actor,
  orgSlug: string,
  id: string,
  input: unknown,
): Promise<{ position: string }> {
  const { after } = parseInput(replayInputSchema, input);
  return db.transaction(async (tx) => {
    const { org } = await access(config, tx, user, orgSlug, true);
    const e = await endpointOr404(tx, org.id, id);
    const { head, floor } = await feedState({ ...catalog, db: tx }, org.id);
    if (BigInt(after) < BigInt(floor) || BigInt(after) > BigInt(head))
      throw new ConsoleError("CONSOLE_INVALID", `after: a cursor of the feed between ${floor} and ${head}.`);
    await tx.query(
      `update webhook_endpoints set position = $2, generation = generation + 1, updated_at = now() where id = $1`,
      [id, after],
    );
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "webhook_endpoint.replayed",
      targetId: id,
      details: { from: e.position, after },
    });
    engine.wake();
    return { position: after };
  });
}
