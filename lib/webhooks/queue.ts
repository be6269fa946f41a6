// The deliveries' job queue, kept in webhook_deliveries itself (migration 0027): a pending delivery with an ordering
// key is queued. It is queued in the transaction that moves its endpoint's feed position (never lost, never queued
// twice); a worker claims the head of each key (an object's later event waits while an earlier one is pending, a
// retry included: cursor order per object) whose next attempt is due, with FOR UPDATE SKIP LOCKED (two workers never
// hold the same attempt) and a lease (a worker killed mid-POST leaves it to another once the lease is over); a
// failed attempt is due again after an exponential backoff with jitter (lib/webhooks/schedule.ts). Each queueing
// notifies DELIVERIES_CHANNEL, so that idle workers of every instance claim at once rather than at their next poll.
import type { Queryable } from "@/db/client";
import type { ChangeEvent } from "@/lib/catalog/feed/changes";
import { webhookId } from "@/lib/webhooks/endpoints";

// The notification channel of newly queued deliveries (its payload is empty).
export const DELIVERIES_CHANNEL = "webhook_deliveries";

// The per-object ordering key of an endpoint's deliveries (a replay or switching it on again starts a generation).
export function orderingKey(endpointId: string, generation: number, type: string, objectId: string): string {
  return `${endpointId}:${generation}:${type}:${objectId}`;
}

// A delivery claimed by a worker: its attempt number in the current schedule (1: the first), which is also the
// claim's token (a settlement by a worker whose lease ran out and whose delivery was claimed again changes nothing).
export interface Claim {
  id: string;
  tries: number;
}

// The endpoint a page of events is queued for.
export interface QueueTarget {
  id: string;
  orgId: string;
  generation: number;
}

// Queues one delivery per event for an endpoint, in the caller's transaction, in the events' order; returns the
// deliveries' ids.
export async function queueDeliveries(
  tx: Queryable,
  endpoint: QueueTarget,
  events: readonly Pick<ChangeEvent, "cursor" | "type" | "id" | "op">[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => webhookId("whd"));
  // One statement for the page (arrays unnested with their ordinality, so that seq follows the events' order).
  await tx.query(
    `insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body, ordering_key)
     select v.id, $1, $2, v.event_id, v.event_type, v.object_id, v.op, v.body, v.ordering_key
       from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
              with ordinality as v(id, event_id, event_type, object_id, op, body, ordering_key, n)
      order by v.n`,
    [
      endpoint.id,
      endpoint.orgId,
      ids,
      events.map((ev) => ev.cursor),
      events.map((ev) => ev.type),
      events.map((ev) => ev.id),
      events.map((ev) => ev.op),
      events.map((ev) => JSON.stringify(ev)),
      events.map((ev) => orderingKey(endpoint.id, endpoint.generation, ev.type, ev.id)),
    ],
  );
  await notifyQueued(tx);
  return ids;
}

// Queues a delivery again (Redeliver), in the caller's transaction: a key of its own (it waits for no other), its
// schedule started afresh.
export async function requeueDelivery(tx: Queryable, deliveryId: string): Promise<void> {
  await tx.query(
    `update webhook_deliveries
        set state = 'pending', ordering_key = 'redeliver:' || id || ':' || $2, tries = 0, next_attempt_at = null,
            leased_until = null, updated_at = now()
      where id = $1`,
    [deliveryId, webhookId("whd")],
  );
  await notifyQueued(tx);
}

// Tells every listening worker that deliveries were queued (sent when the caller's transaction commits).
async function notifyQueued(tx: Queryable): Promise<void> {
  await tx.query(`select pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
}

// Claims up to `limit` queued deliveries due now, each the head of its key and not held by another worker, for
// `leaseSeconds`; the oldest first.
export async function claimDeliveries(q: Queryable, limit: number, leaseSeconds: number): Promise<Claim[]> {
  return q.query<Claim>(
    `with next as (
       select d.id from webhook_deliveries d
        where d.state = 'pending' and d.ordering_key is not null
          and (d.next_attempt_at is null or d.next_attempt_at <= now())
          and (d.leased_until is null or d.leased_until <= now())
          and not exists (select 1 from webhook_deliveries p
                           where p.ordering_key = d.ordering_key and p.state = 'pending' and p.seq < d.seq)
        order by d.seq
        limit $1
        for update skip locked
     )
     update webhook_deliveries d
        set tries = d.tries + 1, leased_until = now() + $2 * interval '1 second'
       from next
      where d.id = next.id
     returning d.id, d.tries`,
    [limit, leaseSeconds],
  );
}
