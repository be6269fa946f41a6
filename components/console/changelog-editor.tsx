"use client";
// The changelog editor's form (product team): title, date, Keep a Changelog type, breaking, planned, the endpoints
// (paths of the OpenAPI document) and the markdown body; "Create draft" for a new entry, "Save" for an existing one,
// then publish, unpublish and promote. Changes go to /api/console/changelog with the page's CSRF token; the server
// checks the staff flag again. The preview beside it is rendered by the server from the saved entry.
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { ChangelogEntry } from "@/lib/portal/changelog";
import { useConsolePost } from "./use-console-post";

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

// The form and the entry's state changes.
export function ChangelogEditor({ entry, endpoints, types, csrfToken, today }: Props) {
  const router = useRouter();
  const [notice, setNotice] = useState<string | null>(null);
  const { post, error, busy } = useConsolePost(csrfToken);
  const [dirty, setDirty] = useState(false);

  // A change; the notice of the previous one is cleared first.
  async function send(path: string, body: unknown): Promise<{ entry: ChangelogEntry } | null> {
    setNotice(null);
    return post<{ entry: ChangelogEntry }>(path, body);
  }

  async function save(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const body = {
      title: String(form.get("title") ?? ""),
      publishedOn: String(form.get("publishedOn") ?? ""),
      type: String(form.get("type") ?? ""),
      breaking: form.get("breaking") === "on",
      isPlanned: form.get("isPlanned") === "on",
      endpoints: form.getAll("endpoints").map(String),
      bodyMd: String(form.get("bodyMd") ?? ""),
    };
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
    <>
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {notice ? (
        <p className="notice-text" role="status">
          {notice}
        </p>
      ) : null}
      <form
        className="console-form changelog-form"
        onSubmit={save}
        onChange={() => setDirty(true)}
        aria-label={entry ? "Edit the entry" : "New entry"}
      >
        <div className="field">
          <label htmlFor="entry-title">Title</label>
          <input
            id="entry-title"
            name="title"
            type="text"
            required
            maxLength={200}
            defaultValue={entry?.title ?? ""}
            placeholder="Media filters by type"
          />
        </div>
        <div className="field-row">
          <div className="field">
            <label htmlFor="entry-date">Date</label>
            <input
              id="entry-date"
              name="publishedOn"
              type="date"
              required
              defaultValue={entry?.publishedOn ?? today}
            />
          </div>
          <div className="field">
            <label htmlFor="entry-type">Type</label>
            <select id="entry-type" name="type" defaultValue={entry?.type ?? "Added"}>
              {types.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
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
          {entry && dirty ? (
            <span className="help">Unsaved changes: save to see them in the preview.</span>
          ) : null}
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
    </>
  );
}
