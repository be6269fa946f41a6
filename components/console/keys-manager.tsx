"use client";
// The keys page's interactive part: the list of keys and, for owners and admins, the create form (every read scope
// checked by default, each deselectable, at least one; products:write offered unchecked under the write preview), the new key shown once (copy, "Try it"), roll with a grace
// period and revoke with a confirmation. Changes go to /api/console with the page's CSRF token; the server checks
// the role again.
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { CopyButton } from "@/components/copy-button";
import { KEY_STORAGE } from "@/components/try-it/key-field";
import type { ScopeChoice } from "@/lib/console/keys";
import type { ApiKeySummary, CreatedApiKey } from "@/lib/keys/store";
import { formatTime } from "./format";
import { ScopeChoices } from "./scope-choices";
import { useConsolePost } from "./use-console-post";

interface Props {
  org: string;
  keys: ApiKeySummary[];
  canManage: boolean;
  csrfToken: string;
  /** The scopes the create form offers, each checked by default or not. */
  scopes: ScopeChoice[];
  graceOptions: Array<{ seconds: number; label: string }>;
}

type Pending = { keyId: string; action: "roll" | "revoke" } | null;

// A key's scopes as the list shows them: "all read scopes" (plus any other) when it holds every default one.
function scopesLabel(held: string[], defaults: string[]): string {
  if (!defaults.every((s) => held.includes(s))) return held.join(", ");
  return ["all read scopes", ...held.filter((s) => !defaults.includes(s))].join(", ");
}

// The list and, for owners and admins, the controls.
export function KeysManager({ org, keys, canManage, csrfToken, scopes, graceOptions }: Props) {
  const router = useRouter();
  const [created, setCreated] = useState<{ key: CreatedApiKey; rolled: boolean } | null>(null);
  const { post: send, error, setError, busy } = useConsolePost(csrfToken);
  const [pending, setPending] = useState<Pending>(null);
  const base = `/api/console/orgs/${encodeURIComponent(org)}/keys`;
  const defaultScopes = scopes.filter((s) => s.checked).map((s) => s.scope as string);

  async function create(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const chosen = form.getAll("scopes").map(String);
    if (chosen.length === 0) {
      setError("Select at least one scope.");
      return;
    }
    const expiry = String(form.get("expiresOn") ?? "");
    const key = await send<CreatedApiKey>(base, {
      name: String(form.get("name") ?? ""),
      scopes: chosen,
      // The end of the chosen day, UTC.
      expiresAt: expiry ? `${expiry}T23:59:59.999Z` : null,
    });
    if (key) {
      setCreated({ key, rolled: false });
      (e.target as HTMLFormElement).reset();
      router.refresh();
    }
  }

  async function roll(keyId: string, graceSeconds: number) {
    const r = await send<{ key: CreatedApiKey }>(`${base}/${encodeURIComponent(keyId)}/roll`, {
      graceSeconds,
    });
    if (r) {
      setCreated({ key: r.key, rolled: true });
      setPending(null);
      router.refresh();
    }
  }

  async function revoke(keyId: string) {
    if (await send(`${base}/${encodeURIComponent(keyId)}/revoke`, {})) {
      setPending(null);
      router.refresh();
    }
  }

  function tryIt(key: string) {
    // The try-it form reads the key from this tab's session storage: the key never goes into a URL.
    sessionStorage.setItem(KEY_STORAGE, key);
    router.push("/reference/products");
  }

  return (
    <>
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {created ? (
        <section className="new-key" aria-labelledby="new-key-title">
          <h2 id="new-key-title">{created.rolled ? "Key rolled: the new key" : "Your new key"}</h2>
          <p>
            Copy it now: it is shown only once. <strong>{created.key.name}</strong> ·{" "}
            {created.key.scopes.join(", ")}
          </p>
          <code>{created.key.key}</code>
          <div className="row-actions">
            <CopyButton text={created.key.key} label="Copy key" />
            <button type="button" className="secondary" onClick={() => tryIt(created.key.key)}>
              Try it
            </button>
            <button type="button" className="secondary" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </section>
      ) : null}

      {canManage ? (
        <section className="console-section" aria-labelledby="create-title">
          <h2 id="create-title">Create a key</h2>
          <form className="console-form" onSubmit={create}>
            <div className="field">
              <label htmlFor="key-name">Name</label>
              <input id="key-name" name="name" type="text" required maxLength={100} placeholder="ERP sync" />
            </div>
            <ScopeChoices choices={scopes} />
            <div className="field">
              <label htmlFor="key-expiry">Expires on (optional)</label>
              <input id="key-expiry" name="expiresOn" type="date" />
              <p className="help">The key stops working at the end of that day (UTC). Empty: no expiry.</p>
            </div>
            <div className="actions">
              <button type="submit" className="primary" disabled={busy}>
                Create key
              </button>
            </div>
          </form>
        </section>
      ) : null}

      <section className="console-section" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                {canManage ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.name}</td>
                  <td>{scopesLabel(k.scopes, defaultScopes)}</td>
                  <td>{formatTime(k.createdAt)}</td>
                  <td>{formatTime(k.expiresAt, "never")}</td>
                  <td>{formatTime(k.lastUsedAt, "never")}</td>
                  <td>
                    <span className={`key-status ${k.status}`}>{k.status}</span>
                    {k.rolledTo && k.status === "active" ? (
                      <p className="help">rolled: works until expiry</p>
                    ) : null}
                  </td>
                  {canManage ? (
                    <td>
                      {k.status === "revoked" ? null : (
                        <KeyActions
                          keyId={k.id}
                          name={k.name}
                          canRoll={k.status === "active" && !k.rolledTo}
                          pending={pending?.keyId === k.id ? pending.action : null}
                          busy={busy}
                          graceOptions={graceOptions}
                          onAsk={(action) => setPending({ keyId: k.id, action })}
                          onCancel={() => setPending(null)}
                          onRoll={(grace) => roll(k.id, grace)}
                          onRevoke={() => revoke(k.id)}
                        />
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

// Roll and revoke for one key, each behind a confirmation (roll asks for the old key's grace period).
function KeyActions(props: {
  keyId: string;
  name: string;
  canRoll: boolean;
  pending: "roll" | "revoke" | null;
  busy: boolean;
  graceOptions: Array<{ seconds: number; label: string }>;
  onAsk: (action: "roll" | "revoke") => void;
  onCancel: () => void;
  onRoll: (graceSeconds: number) => void;
  onRevoke: () => void;
}) {
  const [grace, setGrace] = useState(props.graceOptions[0]?.seconds ?? 86_400);
  if (props.pending === "revoke") {
    return (
      <div className="confirm" role="group" aria-label={`Revoke ${props.name}`}>
        <span>Revoke “{props.name}”? Calls with it fail at once; this cannot be undone.</span>
        <button type="button" className="secondary danger" disabled={props.busy} onClick={props.onRevoke}>
          Revoke
        </button>
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    );
  }
  if (props.pending === "roll") {
    const id = `grace-${props.keyId}`;
    return (
      <div className="confirm" role="group" aria-label={`Roll ${props.name}`}>
        <label htmlFor={id}>Old key keeps working for</label>
        <select id={id} value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
          {props.graceOptions.map((g) => (
            <option key={g.seconds} value={g.seconds}>
              {g.label}
            </option>
          ))}
        </select>
        <button type="button" className="secondary" disabled={props.busy} onClick={() => props.onRoll(grace)}>
          Roll
        </button>
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <div className="row-actions">
      {props.canRoll ? (
        <button type="button" className="secondary" onClick={() => props.onAsk("roll")}>
          Roll…
        </button>
      ) : null}
      <button type="button" className="secondary danger" onClick={() => props.onAsk("revoke")}>
        Revoke…
      </button>
    </div>
  );
}
