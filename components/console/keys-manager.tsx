"use client";
// The keys page's interactive part: the list of keys and, for owners and admins, the create form (every read scope
// checked by default, each deselectable, at least one; products:write offered unchecked under the write preview), the
// new key shown once (copy, "Try it"), roll with a grace period and revoke, each in a modal dialog. Changes go to
// /api/console with the page's CSRF token; the server checks the role again.
// Keyboard and screen readers: after create and roll the focus moves to the new key's panel and a status line
// announces it; a dialog closes on Escape and gives the focus back to its button; after revoke the focus is on the
// key's row; an invalid field gets its message next to it, in words, and the focus.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { KEY_STORAGE } from "@/components/try-it/key-field";
import type { ScopeChoice } from "@/lib/console/keys";
import type { ApiKeySummary, CreatedApiKey } from "@/lib/keys/store";
import { formatTime } from "./format";
import { CreateKeyForm } from "./create-key-form";
import { ConfirmDialog } from "./dialog";
import { RollDialog } from "./roll-dialog";
import { DataTable } from "@/components/data-table";
import { useHydrated } from "@/components/use-hydrated";
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

type Pending = { key: ApiKeySummary; action: "roll" | "revoke" } | null;

// Where the focus goes once the page has rendered what an action changed.
type FocusTarget = { to: "panel" } | { to: "row"; keyId: string } | { to: "id"; id: string } | null;

// A key's scopes as the list shows them: "all read scopes" (plus any other) when it holds every default one.
function scopesLabel(held: string[], defaults: string[]): string {
  if (!defaults.every((s) => held.includes(s))) return held.join(", ");
  return ["all read scopes", ...held.filter((s) => !defaults.includes(s))].join(", ");
}

// The reference page a new key is tried on: the endpoint of its first read scope (products when it has none).
export function tryItPath(scopes: readonly string[]): string {
  const read = scopes.find((s) => s.endsWith(":read"));
  return `/reference/${encodeURIComponent(read ? read.slice(0, -":read".length) : "products")}#try-it`;
}

const rowId = (keyId: string) => `key-row-${keyId}`;

// The list and, for owners and admins, the controls.
export function KeysManager({ org, keys, canManage, csrfToken, scopes, graceOptions }: Props) {
  const router = useRouter();
  const hydrated = useHydrated();
  const [created, setCreated] = useState<{ key: CreatedApiKey; rolled: boolean } | null>(null);
  const keyPost = useConsolePost(csrfToken);
  const [pending, setPending] = useState<Pending>(null);
  const [announcement, setAnnouncement] = useState("");
  const [focus, setFocus] = useState<FocusTarget>(null);
  const panelRef = useRef<HTMLElement>(null);
  const base = `/api/console/orgs/${encodeURIComponent(org)}/keys`;
  const defaultScopes = scopes.filter((s) => s.checked).map((s) => s.scope as string);

  // Moves the focus once its target is on the page (a row appears when the list is refreshed).
  useEffect(() => {
    if (!focus) return;
    const el =
      focus.to === "panel"
        ? panelRef.current
        : document.getElementById(focus.to === "row" ? rowId(focus.keyId) : focus.id);
    if (el) {
      el.focus();
      setFocus(null);
    }
  }, [focus, keys, created]);

  function keyCreated(key: CreatedApiKey) {
    setCreated({ key, rolled: false });
    setAnnouncement(`Key “${key.name}” created. Copy it now: it is shown only once.`);
    setFocus({ to: "panel" });
    router.refresh();
  }

  async function roll(key: ApiKeySummary, graceSeconds: number) {
    const r = await keyPost.post<{ key: CreatedApiKey }>(`${base}/${encodeURIComponent(key.id)}/roll`, {
      graceSeconds,
    });
    if (!r) return;
    setCreated({ key: r.key, rolled: true });
    setAnnouncement(`Key “${key.name}” rolled. Copy the new key now: it is shown only once.`);
    setPending(null);
    setFocus({ to: "panel" });
    router.refresh();
  }

  async function revoke(key: ApiKeySummary) {
    if (!(await keyPost.post(`${base}/${encodeURIComponent(key.id)}/revoke`, {}))) return;
    // The panel of a key that no longer works goes.
    setCreated((c) => (c?.key.id === key.id ? null : c));
    setAnnouncement(`Key “${key.name}” revoked: calls with it fail from now on.`);
    setPending(null);
    setFocus({ to: "row", keyId: key.id });
    router.refresh();
  }

  // A dialog closed (Escape, Cancel, or its action done): the focus back on its button unless the action moved it.
  function closeDialog() {
    if (!pending) return;
    const { key, action } = pending;
    setPending(null);
    keyPost.setError(null);
    setFocus((f) => f ?? { to: "id", id: `${action}-${key.id}` });
  }

  function done() {
    if (!created) return;
    const { key } = created;
    setCreated(null);
    setAnnouncement("");
    setFocus({ to: "row", keyId: key.id });
  }

  function tryIt(key: CreatedApiKey) {
    // The try-it form reads the key from this tab's session storage: the key never goes into a URL.
    sessionStorage.setItem(KEY_STORAGE, key.key);
    router.push(tryItPath(key.scopes));
  }

  return (
    <>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {created ? (
        <section className="new-key" aria-labelledby="new-key-title" ref={panelRef} tabIndex={-1}>
          <h2 id="new-key-title">{created.rolled ? "Key rolled: the new key" : "Your new key"}</h2>
          <p>
            Copy it now: it is shown only once. <strong>{created.key.name}</strong> ·{" "}
            {created.key.scopes.join(", ")}
          </p>
          <code>{created.key.key}</code>
          <div className="row-actions">
            <CopyButton text={created.key.key} label="Copy key" />
            <button type="button" className="secondary" onClick={() => tryIt(created.key)}>
              Try it
            </button>
            <button type="button" className="secondary" onClick={done}>
              Done
            </button>
          </div>
        </section>
      ) : null}

      {canManage ? (
        <CreateKeyForm
          base={base}
          csrfToken={csrfToken}
          scopes={scopes}
          hydrated={hydrated}
          onCreated={keyCreated}
        />
      ) : null}

      <section className="console-section" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <DataTable label="Keys">
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
                <tr key={k.id} id={rowId(k.id)} tabIndex={-1}>
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
                        <div className="row-actions">
                          {k.status === "active" && !k.rolledTo ? (
                            <button
                              type="button"
                              id={`roll-${k.id}`}
                              className="secondary"
                              disabled={!hydrated}
                              onClick={() => setPending({ key: k, action: "roll" })}
                            >
                              Roll…
                            </button>
                          ) : null}
                          <button
                            type="button"
                            id={`revoke-${k.id}`}
                            className="secondary danger"
                            disabled={!hydrated}
                            onClick={() => setPending({ key: k, action: "revoke" })}
                          >
                            Revoke…
                          </button>
                        </div>
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
      </section>

      {canManage ? (
        <>
          <RollDialog
            pending={pending?.action === "roll" ? pending.key : null}
            graceOptions={graceOptions}
            busy={keyPost.busy}
            error={keyPost.error}
            onRoll={roll}
            onClose={closeDialog}
          />
          <ConfirmDialog
            open={pending?.action === "revoke"}
            title={pending ? `Revoke “${pending.key.name}”?` : ""}
            action="Revoke"
            busy={keyPost.busy}
            error={keyPost.error}
            onConfirm={() => pending && revoke(pending.key)}
            onClose={closeDialog}
          >
            Calls with this key fail at once; this cannot be undone.
          </ConfirmDialog>
        </>
      ) : null}
    </>
  );
}
