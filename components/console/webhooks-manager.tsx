"use client";
// The webhooks page's interactive part: the endpoints (a banner on one switched off because it kept failing), the
// register form (its secret shown once), and per endpoint: Send test event, Roll secret, switch off/on, Delete,
// Replay from cursor, and its deliveries (filters; each attempt's status, latency, first bytes, next retry;
// Redeliver). Changes go to /api/console with the page's CSRF token; the server checks the role again.
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { Field, FormError } from "@/components/console/field";
import { consoleRequest } from "@/components/console/use-console-post";
import type { WebhookDelivery, WebhookEndpoint } from "@/lib/webhooks/endpoints";

interface Props {
  org: string;
  endpoints: WebhookEndpoint[];
  canManage: boolean;
  csrfToken: string;
  types: string[];
  ops: string[];
}

// The list and, for owners and admins, the controls.
export function WebhooksManager({ org, endpoints, canManage, csrfToken, types, ops }: Props) {
  const router = useRouter();
  const base = `/api/console/orgs/${encodeURIComponent(org)}/webhooks`;
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ endpointId: string; secret: string } | null>(null);
  const [status, setStatus] = useState<string>("");

  async function register(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const r = await consoleRequest<{ endpoint: WebhookEndpoint; secret: string }>("POST", base, csrfToken, {
      url: String(form.get("url") ?? ""),
      description: String(form.get("description") ?? ""),
      types: form.getAll("types").map(String),
      ops: form.getAll("ops").map(String),
    });
    if (!r.ok) return setError(r.message);
    setError(null);
    setSecret({ endpointId: r.data.endpoint.id, secret: r.data.secret });
    setStatus(`Endpoint ${r.data.endpoint.url} registered.`);
    router.refresh();
  }

  return (
    <>
      <p role="status" className="help">
        {status}
      </p>
      <FormError text={error} />
      {secret ? (
        <section className="console-section" aria-label="New signing secret">
          <h2>Signing secret</h2>
          <p>Copy it now: it is not shown again. Verify each delivery&apos;s webhook-signature with it.</p>
          <code data-testid="webhook-secret">{secret.secret}</code>{" "}
          <button type="button" className="secondary" onClick={() => setSecret(null)}>
            Done
          </button>
        </section>
      ) : null}
      {canManage ? (
        <section className="console-section">
          <h2>Register an endpoint</h2>
          <form className="console-form" onSubmit={register}>
            <Field id="webhook-url" label="URL">
              <input
                id="webhook-url"
                name="url"
                type="url"
                required
                placeholder="https://example.com/webhooks"
              />
            </Field>
            <Field id="webhook-description" label="Description">
              <input id="webhook-description" name="description" maxLength={500} />
            </Field>
            <fieldset className="field">
              <legend>Event types</legend>
              {types.map((t) => (
                <label key={t}>
                  <input type="checkbox" name="types" value={t} defaultChecked /> {t}
                </label>
              ))}
            </fieldset>
            <fieldset className="field">
              <legend>Operations</legend>
              {ops.map((o) => (
                <label key={o}>
                  <input type="checkbox" name="ops" value={o} defaultChecked /> {o}
                </label>
              ))}
            </fieldset>
            <div className="actions">
              <button type="submit" className="primary">
                Register
              </button>
            </div>
          </form>
        </section>
      ) : null}
      <section className="console-section">
        <h2>Endpoints</h2>
        {endpoints.length === 0 ? <p>No endpoint yet.</p> : null}
        {endpoints.map((e) => (
          <EndpointPanel
            key={e.id}
            endpoint={e}
            base={`${base}/${encodeURIComponent(e.id)}`}
            canManage={canManage}
            csrfToken={csrfToken}
            onSecret={(s) => setSecret({ endpointId: e.id, secret: s })}
            onStatus={setStatus}
          />
        ))}
      </section>
    </>
  );
}

// One endpoint: its settings, its actions and its deliveries.
function EndpointPanel({
  endpoint: e,
  base,
  canManage,
  csrfToken,
  onSecret,
  onStatus,
}: {
  endpoint: WebhookEndpoint;
  base: string;
  canManage: boolean;
  csrfToken: string;
  onSecret: (secret: string) => void;
  onStatus: (s: string) => void;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null);
  const [state, setState] = useState("");
  const [eventId, setEventId] = useState("");
  const [cursor, setCursor] = useState("");

  const load = useCallback(async () => {
    const q = new URLSearchParams();
    if (state) q.set("state", state);
    if (eventId) q.set("eventId", eventId);
    const r = await consoleRequest<{ deliveries: WebhookDelivery[] }>(
      "GET",
      `${base}/deliveries?${q}`,
      csrfToken,
    );
    if (!r.ok) return setError(r.message);
    setDeliveries(r.data.deliveries);
  }, [base, csrfToken, state, eventId]);

  // Read at once, then every 3 s: retries and redeliveries show up while the page is open.
  useEffect(() => {
    const first = setTimeout(() => void load(), 0);
    const every = setInterval(() => void load(), 3000);
    return () => {
      clearTimeout(first);
      clearInterval(every);
    };
  }, [load]);

  async function run<T>(method: string, path: string, body: unknown, done: (data: T) => void) {
    const r = await consoleRequest<T>(method, path, csrfToken, body);
    if (!r.ok) return setError(r.message);
    setError(null);
    done(r.data);
    await load();
    router.refresh();
  }

  return (
    <article className="console-section" aria-label={`Endpoint ${e.url}`} data-endpoint={e.id}>
      <h3>{e.url}</h3>
      {!e.enabled && e.disabledReason === "failing" ? (
        <p role="alert" className="error-text">
          Switched off on {e.disabledAt}: its deliveries kept failing for more than 24 hours. Fix the
          endpoint, switch it on again, and replay from the last cursor it received.
        </p>
      ) : null}
      <p>
        {e.description ? `${e.description} · ` : ""}
        {e.types.join(", ")} · {e.ops.join(", ")} · {e.enabled ? "on" : "off"} · feed position {e.position} ·{" "}
        {e.secretsActive} signing secret{e.secretsActive === 1 ? "" : "s"}
      </p>
      <FormError text={error} />
      {canManage ? (
        <div className="row-actions">
          <button
            type="button"
            className="secondary"
            onClick={() =>
              run<{ ok: boolean; status: number | null; error: string | null }>(
                "POST",
                `${base}/test`,
                {},
                (t) =>
                  onStatus(
                    t.ok
                      ? `Test event delivered (${t.status}).`
                      : `Test event failed: ${t.status ?? t.error ?? "no answer"}.`,
                  ),
              )
            }
          >
            Send test event
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => run<{ secret: string }>("POST", `${base}/roll`, {}, (r) => onSecret(r.secret))}
          >
            Roll secret
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() =>
              run("PATCH", base, { enabled: !e.enabled }, () =>
                onStatus(e.enabled ? "Endpoint switched off." : "Endpoint switched on."),
              )
            }
          >
            {e.enabled ? "Switch off" : "Switch on"}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              if (window.confirm(`Delete the endpoint ${e.url} and its log?`))
                void run("DELETE", base, {}, () => onStatus("Endpoint deleted."));
            }}
          >
            Delete
          </button>
          <label>
            Replay after cursor{" "}
            <input
              value={cursor}
              onChange={(ev) => setCursor(ev.target.value)}
              inputMode="numeric"
              size={10}
              aria-label="Replay after cursor"
            />
          </label>
          <button
            type="button"
            className="secondary"
            onClick={() =>
              run("POST", `${base}/replay`, { after: cursor }, () =>
                onStatus(`Replaying after cursor ${cursor}.`),
              )
            }
          >
            Replay from cursor
          </button>
        </div>
      ) : null}
      <h4>Deliveries</h4>
      <div className="row-actions">
        <label>
          State{" "}
          <select value={state} onChange={(ev) => setState(ev.target.value)} aria-label="Filter by state">
            <option value="">all</option>
            <option value="pending">pending</option>
            <option value="delivered">delivered</option>
            <option value="failed">failed</option>
            <option value="skipped">skipped</option>
          </select>
        </label>
        <label>
          Event id{" "}
          <input
            value={eventId}
            onChange={(ev) => setEventId(ev.target.value.trim())}
            aria-label="Filter by event id"
          />
        </label>
        <button type="button" className="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <table aria-label={`Deliveries to ${e.url}`}>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Object</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next retry</th>
            {canManage ? <th scope="col">Action</th> : null}
          </tr>
        </thead>
        <tbody>
          {(deliveries ?? []).map((d) => {
            const last = d.log[0];
            return (
              <tr key={d.id} data-delivery={d.id} data-event={d.eventId}>
                <td>
                  <code>{d.eventId}</code>
                </td>
                <td>
                  {d.type} {d.objectId !== d.eventId ? d.objectId : ""} {d.op}
                </td>
                <td>{d.state}</td>
                <td>{d.attempts}</td>
                <td>
                  {last
                    ? `${last.status ?? last.error ?? ""} · ${last.latencyMs} ms · ${last.bodyStart.slice(0, 80)}`
                    : "—"}
                </td>
                <td>{d.nextAttemptAt ?? "—"}</td>
                {canManage ? (
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      onClick={() =>
                        run("POST", `${base}/deliveries/${encodeURIComponent(d.id)}/redeliver`, {}, () =>
                          onStatus(`Event ${d.eventId} queued again.`),
                        )
                      }
                    >
                      Redeliver
                    </button>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </article>
  );
}
