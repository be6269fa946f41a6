"use client";
// The changelog editor's form (product team): title, date, Keep a Changelog type, breaking, planned, the endpoints
// (paths of the OpenAPI document) and the markdown body; "Create draft" for a new entry, "Save" for an existing one,
// then publish, unpublish and promote. Changes go to /api/console/changelog with the page's CSRF token; the server
// checks the staff flag again. Beside it, a live preview of what is being typed through the very component (and
// renderer) /changelog uses; unsaved edits are not lost without a warning.
import { useRouter } from "next/navigation";
import { useDeferredValue, useState, type FormEvent } from "react";
import { ChangelogEntryView } from "@/components/changelog-entry";
import type { ChangelogEntry } from "@/lib/portal/changelog-reader";
import { useConsolePost } from "./use-console-post";
import { useUnsavedWarning } from "./use-unsaved-warning";
import { Field, FormError } from "./field";

interface Props {
  /** The saved entry; null on the "New entry" page. */
  entry: ChangelogEntry | null;
  /** The endpoints an entry may name (the OpenAPI document's paths, and those the entry already names). */
  endpoints: string[];
  types: readonly string[];
  csrfToken: string;
  /** Today (UTC), the new entry's default date. */
  today: string;
}

const BASE = "/api/console/changelog";

// What the form holds: the fields of an entry its author sets.
type Draft = Pick<
  ChangelogEntry,
  "title" | "publishedOn" | "type" | "breaking" | "isPlanned" | "endpoints" | "bodyMd"
>;

// The form's values as they are now (also the body of a save).
function readForm(form: HTMLFormElement): Draft {
  const data = new FormData(form);
  return {
    title: String(data.get("title") ?? ""),
    publishedOn: String(data.get("publishedOn") ?? ""),
    type: String(data.get("type") ?? "") as Draft["type"],
    breaking: data.get("breaking") === "on",
    isPlanned: data.get("isPlanned") === "on",
    endpoints: data.getAll("endpoints").map(String),
    bodyMd: String(data.get("bodyMd") ?? ""),
  };
}

// The entry the preview shows: the saved one (its slug and status) with the values being typed.
function previewOf(entry: ChangelogEntry | null, draft: Draft): ChangelogEntry {
  // A new entry has no slug yet; "new-entry" keeps its anchor ids apart from the page's own. An entry cannot be saved
  // without a title: until one is typed, the preview names it "Unnamed entry" (so its anchor link has a name; no
  // "title" in it, which getByLabel("Title") would find too).
  return {
    id: entry?.id ?? "",
    slug: entry?.slug ?? "new-entry",
    status: entry?.status ?? "draft",
    ...draft,
    title: draft.title.trim() || "Unnamed entry",
  };
}

// The form and the entry's state changes.
export function ChangelogEditor({ entry, endpoints, types, csrfToken, today }: Props) {
  const router = useRouter();
  const [notice, setNotice] = useState<string | null>(null);
  const { post, error, busy } = useConsolePost(csrfToken);
  const [dirty, setDirty] = useState(false);
  const [draft, setDraft] = useState<Draft>(() => ({
    title: entry?.title ?? "",
    publishedOn: entry?.publishedOn ?? today,
    type: entry?.type ?? "Added",
    breaking: entry?.breaking ?? false,
    isPlanned: entry?.isPlanned ?? false,
    endpoints: entry?.endpoints ?? [],
    bodyMd: entry?.bodyMd ?? "",
  }));
  // Typing stays responsive on a long body: the preview renders when the browser has time.
  const shown = useDeferredValue(draft);
  useUnsavedWarning(dirty);

  // A change; the notice of the previous one is cleared first.
  async function send(path: string, body: unknown): Promise<{ entry: ChangelogEntry } | null> {
    setNotice(null);
    return post<{ entry: ChangelogEntry }>(path, body);
  }

  async function save(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const body = readForm(e.currentTarget);
    const saved = await send(entry ? `${BASE}/${encodeURIComponent(entry.id)}` : BASE, body);
    if (!saved) return;
    setDirty(false);
    if (entry) {
      setNotice("Saved.");
      router.refresh();
    } else {
      router.push(`/console/changelog/${encodeURIComponent(saved.entry.id)}`);
    }
  }

  async function act(action: "publish" | "unpublish" | "promote", done: string) {
    if (!entry) return;
    if (await send(`${BASE}/${encodeURIComponent(entry.id)}/${action}`, {})) {
      setNotice(done);
      router.refresh();
    }
  }

  return (
    <div className="changelog-editor">
      <section aria-label="Editor">
        <FormError text={error} />
        {notice ? (
          <p className="notice-text" role="status">
            {notice}
          </p>
        ) : null}
        <form
          className="console-form changelog-form"
          onSubmit={save}
          onChange={(e) => {
            setDraft(readForm(e.currentTarget));
            setDirty(true);
          }}
          aria-label={entry ? "Edit the entry" : "New entry"}
        >
          <Field id="entry-title" label="Title">
            <input
              id="entry-title"
              name="title"
              type="text"
              required
              maxLength={200}
              defaultValue={entry?.title ?? ""}
              placeholder="Media filters by type"
            />
          </Field>
          <div className="field-row">
            <Field id="entry-date" label="Date">
              <input
                id="entry-date"
                name="publishedOn"
                type="date"
                required
                defaultValue={entry?.publishedOn ?? today}
              />
            </Field>
            <Field id="entry-type" label="Type">
              <select id="entry-type" name="type" defaultValue={entry?.type ?? "Added"}>
                {types.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <div className="choices">
            <label className="check">
              <input type="checkbox" name="breaking" defaultChecked={entry?.breaking ?? false} />
              Breaking change
            </label>
            <label className="check">
              <input type="checkbox" name="isPlanned" defaultChecked={entry?.isPlanned ?? false} />
              Planned (roadmap item, not released yet)
            </label>
          </div>
          <fieldset className="field">
            <legend>Affected endpoints</legend>
            <div className="choices">
              {endpoints.map((p) => (
                <label key={p} className="check">
                  <input
                    type="checkbox"
                    name="endpoints"
                    value={p}
                    defaultChecked={entry?.endpoints.includes(p) ?? false}
                  />
                  <code>{p}</code>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="field">
            <label htmlFor="entry-body">Body (markdown)</label>
            <textarea
              id="entry-body"
              name="bodyMd"
              rows={12}
              maxLength={100_000}
              defaultValue={entry?.bodyMd ?? ""}
            />
            <p className="help">
              Markdown: links to http(s), mailto or pages of this site; raw HTML is shown as text.
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              {entry ? "Save" : "Create draft"}
            </button>
            {dirty ? <span className="help">Unsaved changes.</span> : null}
          </div>
        </form>

        {entry ? (
          <div className="row-actions changelog-actions" role="group" aria-label="Publishing">
            <span className={`entry-status ${entry.status}`}>
              {entry.status === "draft" ? "Draft" : "Published"}
            </span>
            {entry.status === "draft" ? (
              <button
                type="button"
                className="primary"
                disabled={busy || dirty}
                onClick={() => act("publish", "Published: the entry is on /changelog and in the feeds.")}
              >
                Publish
              </button>
            ) : (
              <button
                type="button"
                className="secondary"
                disabled={busy || dirty}
                onClick={() => act("unpublish", "Unpublished: the entry is a draft again.")}
              >
                Unpublish
              </button>
            )}
            {entry.isPlanned ? (
              <button
                type="button"
                className="secondary"
                disabled={busy || dirty}
                onClick={() => act("promote", "Promoted: released today.")}
              >
                Promote to released
              </button>
            ) : null}
            {dirty ? <span className="help">Save first.</span> : null}
          </div>
        ) : null}
      </section>
      <section className="changelog-preview" aria-labelledby="preview-title">
        <h2 id="preview-title">Preview: as /changelog will show it</h2>
        <ChangelogEntryView e={previewOf(entry, shown)} />
      </section>
    </div>
  );
}
