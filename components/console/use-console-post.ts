"use client";
// The console's calls to /api/console: JSON in and out, the page's CSRF token on a change (none where no session is
// needed: a password reset link is its own credential), the server's message or why the console could not be reached;
// and for a form, a POST with its busy state and the error to show.
import { useState } from "react";

export type ConsoleAnswer<T> = { ok: true; data: T } | { ok: false; message: string };

// Calls `path` with `method`; a GET sends neither body nor token.
export async function consoleRequest<T>(
  method: string,
  path: string,
  csrfToken: string | null,
  body?: unknown,
): Promise<ConsoleAnswer<T>> {
  const change = method !== "GET";
  try {
    const res = await fetch(path, {
      method,
      headers: change
        ? { "content-type": "application/json", ...(csrfToken === null ? {} : { "x-csrf-token": csrfToken }) }
        : {},
      body: change ? JSON.stringify(body ?? {}) : undefined,
      cache: "no-store",
    });
    const data = (await res.json().catch(() => null)) as (T & { message?: string }) | null;
    if (!res.ok || !data)
      return { ok: false, message: data?.message ?? `The request failed (${res.status}).` };
    return { ok: true, data };
  } catch {
    return { ok: false, message: "The console could not be reached. Check your connection and try again." };
  }
}

export function useConsolePost(csrfToken: string | null) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // Sends `body` to `path`; the answer's JSON, or null (and `error` set) when it failed.
  async function post<T>(path: string, body: unknown): Promise<T | null> {
    setBusy(true);
    setError(null);
    try {
      const r = await consoleRequest<T>("POST", path, csrfToken, body);
      if (!r.ok) {
        setError(r.message);
        return null;
      }
      return r.data;
    } finally {
      setBusy(false);
    }
  }

  return { post, error, setError, busy };
}
