"use client";

import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { curlSample } from "@/lib/portal/code-samples";
import { CopyButton } from "./copy-button";

// What the try-it form needs to know of one parameter (serialisable from the server).
export interface TryItParam {
  name: string;
  type: string;
  description: string;
  allowed?: string[];
  array: boolean;
  boolean: boolean;
  example?: string;
  defaultValue?: string;
}

interface Answer {
  status: number;
  statusText: string;
  ms: number;
  headers: [string, string][];
  body: string;
  url: string;
  query: [string, string][];
}

const KEY_STORAGE = "pca-try-it-key";
const SHOWN_HEADERS = [
  "ratelimit-policy",
  "ratelimit",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
  "x-request-id",
  "www-authenticate",
  "content-type",
];

const REASONS: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

// The try-it form of one endpoint: parameters, a key kept in session storage only, a real same-origin request and its answer.
export function TryIt({
  path,
  scope,
  params,
  baseUrl,
  demoKey,
}: {
  path: string;
  scope: string;
  params: TryItParam[];
  baseUrl: string;
  demoKey?: string;
}) {
  const id = useId();
  const keyRef = useRef<HTMLInputElement>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [lists, setLists] = useState<Record<string, string[]>>({});
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    const saved = sessionStorage.getItem(KEY_STORAGE);
    if (saved && keyRef.current && !keyRef.current.value) keyRef.current.value = saved;
  }, []);

  function query(): [string, string][] {
    const out: [string, string][] = [];
    for (const p of params) {
      const v = p.array && p.allowed ? (lists[p.name] ?? []).join(",") : (values[p.name] ?? "").trim();
      if (v !== "") out.push([p.name, v]);
    }
    return out;
  }

  async function send(e: FormEvent) {
    e.preventDefault();
    const key = keyRef.current?.value.trim() ?? "";
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
    const q = query();
    const qs = new URLSearchParams(q).toString();
    const url = `${path}${qs ? `?${qs}` : ""}`;
    setPending(true);
    setFailure(null);
    const t0 = performance.now();
    try {
      const res = await fetch(url, {
        headers: { Accept: "application/json", ...(key ? { Authorization: `Bearer ${key}` } : {}) },
        cache: "no-store",
        credentials: "omit",
      });
      const text = await res.text();
      const ms = Math.round(performance.now() - t0);
      let body = text;
      try {
        body = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // not JSON: shown as is
      }
      const headers = SHOWN_HEADERS.flatMap((h) => {
        const v = res.headers.get(h);
        return v === null ? [] : [[h, v] as [string, string]];
      });
      setAnswer({ status: res.status, statusText: res.statusText, ms, headers, body, url, query: q });
    } catch (err) {
      setFailure(`The request did not complete: ${err instanceof Error ? err.message : String(err)}`);
      setAnswer(null);
    } finally {
      setPending(false);
    }
  }

  function fillDemoKey() {
    if (keyRef.current && demoKey) {
      keyRef.current.value = demoKey;
      sessionStorage.setItem(KEY_STORAGE, demoKey);
      keyRef.current.focus();
    }
  }

  const tone = answer
    ? answer.status < 300
      ? "ok"
      : answer.status < 500
        ? "client-error"
        : "server-error"
    : "";
  const curl = answer
    ? curlSample({ baseUrl, path, query: answer.query, key: "$PCA_API_KEY" })
    : curlSample({ baseUrl, path, query: query(), key: "$PCA_API_KEY" });

  return (
    <section className="try-it" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Try it</h2>
      <p className="muted">
        Sends a real request from your browser to this server. The key stays in this tab&apos;s session
        storage and is sent only to <code>{path}</code>. It needs the <code>{scope}</code> scope.
      </p>
      <form onSubmit={send} className="try-it-form">
        <div className="field">
          <label htmlFor={`${id}-key`}>API key</label>
          <div className="key-row">
            <input
              ref={keyRef}
              id={`${id}-key`}
              name="apiKey"
              type="password"
              autoComplete="off"
              spellCheck={false}
              placeholder="pca_…"
              aria-describedby={`${id}-key-help`}
            />
            {demoKey ? (
              <button type="button" className="secondary" onClick={fillDemoKey}>
                Use the demo key (acme)
              </button>
            ) : null}
          </div>
          <p id={`${id}-key-help`} className="help">
            {demoKey
              ? "The embedded demo is running: you may use the key of its acme organization."
              : "Paste a key created in the console."}
          </p>
        </div>
        <fieldset className="params">
          <legend>Query parameters</legend>
          {params.map((p) => {
            const fid = `${id}-p-${p.name}`;
            const help = `${fid}-help`;
            if (p.array && p.allowed) {
              const selected = lists[p.name] ?? [];
              return (
                <fieldset key={p.name} className="field choice" aria-describedby={help}>
                  <legend>
                    <code>{p.name}</code> <span className="type">{p.type}</span>
                  </legend>
                  <div className="choices">
                    {p.allowed.map((v) => (
                      <label key={v} className="check">
                        <input
                          type="checkbox"
                          name={p.name}
                          value={v}
                          checked={selected.includes(v)}
                          onChange={(e) =>
                            setLists((l) => ({
                              ...l,
                              [p.name]: e.target.checked ? [...selected, v] : selected.filter((s) => s !== v),
                            }))
                          }
                        />
                        {v}
                      </label>
                    ))}
                  </div>
                  <p id={help} className="help">
                    {p.description}
                  </p>
                </fieldset>
              );
            }
            return (
              <div key={p.name} className="field">
                <label htmlFor={fid}>
                  <code>{p.name}</code> <span className="type">{p.type}</span>
                </label>
                {p.boolean ? (
                  <select
                    id={fid}
                    name={p.name}
                    value={values[p.name] ?? ""}
                    aria-describedby={help}
                    onChange={(e) => setValues((v) => ({ ...v, [p.name]: e.target.value }))}
                  >
                    <option value="">(not sent)</option>
                    <option value="true">true</option>
                    <option value="false">false</option>
                  </select>
                ) : (
                  <input
                    id={fid}
                    name={p.name}
                    type="text"
                    inputMode={p.type === "integer" ? "numeric" : undefined}
                    value={values[p.name] ?? ""}
                    placeholder={p.example ?? p.defaultValue ?? ""}
                    aria-describedby={help}
                    onChange={(e) => setValues((v) => ({ ...v, [p.name]: e.target.value }))}
                  />
                )}
                <p id={help} className="help">
                  {p.description}
                  {p.defaultValue !== undefined ? ` Default: ${p.defaultValue}.` : ""}
                </p>
              </div>
            );
          })}
        </fieldset>
        <div className="actions">
          <button type="submit" className="primary" disabled={pending}>
            {pending ? "Sending…" : `Send GET ${path}`}
          </button>
        </div>
      </form>

      <div className="try-it-answer" aria-live="polite">
        {failure ? (
          <p role="alert" className="error-text">
            {failure}
          </p>
        ) : null}
        {answer ? (
          <div className={`answer ${tone}`} data-testid="try-it-answer">
            <h3>Response</h3>
            <p className="answer-line">
              <span className={`status-pill ${tone}`} data-testid="try-it-status">
                {answer.status} {answer.statusText || REASONS[answer.status] || ""}
              </span>
              <span className="muted" data-testid="try-it-time">
                {answer.ms} ms
              </span>
              <code className="muted">GET {answer.url}</code>
            </p>
            {answer.headers.length ? (
              <dl className="answer-headers">
                {answer.headers.map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>
                      <code>{v}</code>
                    </dd>
                  </div>
                ))}
              </dl>
            ) : null}
            <div className="code-block">
              <div className="code-tabs-bar">
                <span>Body</span>
                <CopyButton text={answer.body} label="Copy body" />
              </div>
              <pre className="code" tabIndex={0} data-testid="try-it-body">
                <code>{answer.body}</code>
              </pre>
            </div>
          </div>
        ) : null}
        <div className="code-block">
          <div className="code-tabs-bar">
            <span>Equivalent curl</span>
            <CopyButton text={curl} label="Copy curl" />
          </div>
          <pre className="code" tabIndex={0} data-testid="try-it-curl">
            <code>{curl}</code>
          </pre>
        </div>
      </div>
    </section>
  );
}
