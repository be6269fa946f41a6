"use client";
// The reset page's form: a new password (twice) sent with the link's token to /api/console/account/reset-password
// (no session needed: the link is the credential). Done: a link to sign in; a used or expired link: said so.
import Link from "next/link";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useHydrated } from "@/components/use-hydrated";

export function ResetPasswordForm({ token }: { token: string }) {
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  // Done: the focus on the outcome's title, once it is on the page.
  useEffect(() => {
    if (done) heading.current?.focus();
  }, [done]);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    const data = new FormData(e.currentTarget);
    const password = String(data.get("password") ?? "");
    if (password !== String(data.get("confirm") ?? "")) {
      setError("The two passwords differ.");
      return;
    }
    setBusy(true);
    try {
      const res = await fetch("/api/console/account/reset-password", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, password }),
        cache: "no-store",
      });
      const body = (await res.json().catch(() => null)) as { message?: string } | null;
      if (!res.ok) {
        setError(body?.message ?? `The request failed (${res.status}).`);
        return;
      }
      setDone(true);
    } catch {
      setError("The console could not be reached. Check your connection and try again.");
    } finally {
      setBusy(false);
    }
  }

  if (done)
    return (
      <section className="new-key" aria-labelledby="reset-done">
        <h2 id="reset-done" ref={heading} tabIndex={-1}>
          Password set
        </h2>
        <p>Every session of your account was signed out.</p>
        <p>
          <Link href="/console/sign-in">Sign in with your new password</Link>
        </p>
      </section>
    );
  return (
    <form className="console-form" onSubmit={submit}>
      <div className="field">
        <label htmlFor="reset-password">New password</label>
        <input
          id="reset-password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
          autoFocus
          aria-describedby="reset-password-help"
        />
        <p className="help" id="reset-password-help">
          At least 8 characters.
        </p>
      </div>
      <div className="field">
        <label htmlFor="reset-confirm">New password again</label>
        <input id="reset-confirm" name="confirm" type="password" autoComplete="new-password" required />
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={!hydrated || busy}>
          Set password
        </button>
      </div>
    </form>
  );
}
