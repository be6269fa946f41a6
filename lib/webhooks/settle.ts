// Settling attempts: each logged (its number following the ones logged before) and its delivery's state, attempts,
// last status and next attempt moved, a batch in one statement; and the endpoint switched off when a delivery's last
// attempt failed.
import type { Queryable } from "@/db/client";
import { SYSTEM_ACTOR, recordAudit } from "@/lib/audit/record";
import type { AttemptOutcome } from "@/lib/webhooks/sender";

// One attempt to settle. `retryInSeconds`: when a failed attempt is retried (the delivery stays pending); `tries`:
// the claim it was made under (the delivery moves only while that claim is its latest; absent: not claimed, a test
// event sent at once).
export interface SettledAttempt {
  deliveryId: string;
  endpointId: string;
  outcome: AttemptOutcome;
  state: "delivered" | "pending" | "failed";
  retryInSeconds?: number;
  tries?: number;
}

const SETTLE = `with r as (
    select * from unnest($1::text[], $2::text[], $3::boolean[], $4::integer[], $5::text[], $6::integer[], $7::text[],
                         $8::text[], $9::double precision[], $10::integer[])
      as r (delivery_id, endpoint_id, ok, status, error, latency_ms, body_start, state, retry_seconds, tries)
  ), n as (
    select r.*, now() + r.retry_seconds * interval '1 second' as next_attempt_at from r
  ), attempt as (
    insert into webhook_attempts (delivery_id, endpoint_id, attempt, ok, status, error, latency_ms, body_start,
                                  next_attempt_at)
    select n.delivery_id, n.endpoint_id,
           (select count(*) + 1 from webhook_attempts a where a.delivery_id = n.delivery_id),
           n.ok, n.status, n.error, n.latency_ms, n.body_start, n.next_attempt_at
      from n
  )
  update webhook_deliveries d
     set state = n.state, attempts = d.attempts + 1, last_status = n.status, next_attempt_at = n.next_attempt_at,
         leased_until = null, updated_at = now()
    from n
   where d.id = n.delivery_id and (n.tries is null or d.tries = n.tries)`;

// Settles attempts of distinct deliveries (a worker's batch; the console's test event, one) in one statement.
export async function settleAttempts(q: Queryable, attempts: readonly SettledAttempt[]): Promise<void> {
  const column = <T>(f: (a: SettledAttempt) => T) => attempts.map(f);
  await q.query(SETTLE, [
    column((a) => a.deliveryId),
    column((a) => a.endpointId),
    column((a) => a.outcome.ok),
    column((a) => a.outcome.status ?? null),
    column((a) => (a.outcome.ok ? null : (a.outcome.error ?? null))),
    column((a) => a.outcome.latencyMs),
    column((a) => a.outcome.bodyStart),
    column((a) => a.state),
    column((a) => a.retryInSeconds ?? null),
    column((a) => a.tries ?? null),
  ]);
}

// Marks claimed deliveries whose endpoint is off as skipped (nothing sent), each while its claim is its latest.
export async function skipDeliveries(
  q: Queryable,
  claims: readonly { id: string; tries: number }[],
): Promise<void> {
  await q.query(
    `update webhook_deliveries d set state = 'skipped', leased_until = null, updated_at = now()
       from unnest($1::text[], $2::integer[]) as c (id, tries)
      where d.id = c.id and d.tries = c.tries`,
    [claims.map((c) => c.id), claims.map((c) => c.tries)],
  );
}

// Switches off an endpoint whose delivery failed every attempt of the schedule, with an audit entry by the system
// (the console shows a banner while it is off for that reason).
export async function disableFailing(
  tx: Queryable,
  orgId: string,
  endpointId: string,
  deliveryId: string,
): Promise<void> {
  const [e] = await tx.query<{ url: string }>(
    `update webhook_endpoints set enabled = false, disabled_reason = 'failing', disabled_at = now(), updated_at = now()
      where id = $1 and enabled returning url`,
    [endpointId],
  );
  if (!e) return;
  await recordAudit(tx, {
    orgId,
    actor: SYSTEM_ACTOR,
    action: "webhook_endpoint.disabled",
    targetId: endpointId,
    details: { url: e.url, reason: "failing", deliveryId },
  });
}
