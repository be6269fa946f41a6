"use client";
// The console's changes: a JSON POST to /api/console with the page's CSRF token, the request's busy state and the
// error to show (the server's message, or why the console could not be reached).
import { useState } from "react";

export function useConsolePost(csrfToken: string) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // Sends `body` to `path`; the answer's JSON, or null (and `error` set) when it failed.
  async function post<T>(path: string, body: unknown): Promise<T | null> {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrfToken },
        body: JSON.stringify(body),
        cache: "no-store",
      });
      const data = (await res.json().catch(() => null)) as (T & { message?: string }) | null;
      if (!res.ok || !data) {
        setError(data?.message ?? `The request failed (${res.status}).`);
        return null;
      }
      return data;
    } catch {
      setError("The console could not be reached. Check your connection and try again.");
      return null;
    } finally {
      setBusy(false);
    }
  }

  return { post, error, setError, busy };
}
