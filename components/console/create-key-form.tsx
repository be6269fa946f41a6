"use client";
// The keys page's create form (owners and admins): a name, the scopes (every read scope checked by default, each
// deselectable, at least one; products:write offered unchecked under the write preview) and an optional expiry day.
// An invalid field gets its message next to it, in words, and the focus.
import { useState, type FormEvent } from "react";
import type { ScopeChoice } from "@/lib/console/keys";
import type { CreatedApiKey } from "@/lib/keys/store";
import { useFieldErrors, type FieldError } from "./field-error";
import { Field, FormFooter } from "./field";
import { ScopeChoices } from "./scope-choices";
import { useConsolePost } from "./use-console-post";

// The create form's inputs, by the code the server names their field with.
const CREATE_INPUTS = { name: "key-name", scopes: "key-scope-0", expiresAt: "key-expiry" };

// The form; `onCreated` gets each key made (shown once by the page; the form is then emptied).
export function CreateKeyForm(props: {
  base: string;
  csrfToken: string;
  /** The scopes the form offers, each checked by default or not. */
  scopes: ScopeChoice[];
  hydrated: boolean;
  onCreated: (key: CreatedApiKey) => void;
}) {
  const createPost = useConsolePost(props.csrfToken);
  const [clientError, setClientError] = useState<FieldError | null>(null);
  // A new form (its fields back to their defaults) after each key created.
  const [formVersion, setFormVersion] = useState(0);
  // The create form's error: the client's own check, or the server's answer; next to its field, or above the button.
  const formError = useFieldErrors(clientError ?? createPost.error, CREATE_INPUTS);

  async function create(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setClientError(null);
    const form = new FormData(e.currentTarget);
    const chosen = form.getAll("scopes").map(String);
    if (chosen.length === 0) {
      setClientError({ field: "scopes", text: "Select at least one scope." });
      return;
    }
    const expiry = String(form.get("expiresOn") ?? "");
    const key = await createPost.post<CreatedApiKey>(props.base, {
      name: String(form.get("name") ?? ""),
      scopes: chosen,
      // The end of the chosen day, UTC.
      expiresAt: expiry ? `${expiry}T23:59:59.999Z` : null,
    });
    if (!key) return;
    setFormVersion((v) => v + 1);
    props.onCreated(key);
  }

  return (
    <section className="console-section" aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      <form className="console-form" onSubmit={create} key={formVersion} noValidate>
        <Field id="key-name" label="Name" error={formError.of("name")}>
          {(aria) => (
            <input
              id="key-name"
              name="name"
              type="text"
              required
              maxLength={100}
              placeholder="ERP sync"
              {...aria}
            />
          )}
        </Field>
        <ScopeChoices
          choices={props.scopes}
          idPrefix="key-scope"
          error={formError.of("scopes")}
          hydrated={props.hydrated}
        />
        <Field
          id="key-expiry"
          label="Expires on (optional)"
          help="The key stops working at the end of that day (UTC). Empty: no expiry."
          error={formError.of("expiresAt")}
        >
          {(aria) => <input id="key-expiry" name="expiresOn" type="date" {...aria} />}
        </Field>
        <FormFooter
          error={formError.form}
          submit="Create key"
          disabled={createPost.busy || !props.hydrated}
        />
      </form>
    </section>
  );
}
