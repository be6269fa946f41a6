"use client";
// The account page's "Change password": the current password and the new one (twice, checked here). On success every
// other session of the account is ended and this one re-issued by the server; the page is refreshed for its new CSRF
// token and a status line says so.
import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { useHydrated } from "@/components/use-hydrated";
import { useConsolePost } from "./use-console-post";

export function PasswordChangeForm({ csrfToken }: { csrfToken: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const { post, error, setError, busy } = useConsolePost(csrfToken);
  const [done, setDone] = useState("");
  const form = useRef<HTMLFormElement>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setDone("");
    const data = new FormData(e.currentTarget);
    const newPassword = String(data.get("newPassword") ?? "");
    if (newPassword !== String(data.get("confirmPassword") ?? "")) {
      setError("The two new passwords differ.");
      return;
    }
    const ok = await post("/api/console/account/password", {
      currentPassword: String(data.get("currentPassword") ?? ""),
      newPassword,
    });
    if (!ok) return;
    form.current?.reset();
    setDone("Password changed. Every other session of your account was signed out.");
    router.refresh();
  }

  return (
    <form className="console-form" onSubmit={submit} ref={form}>
      <div className="field">
        <label htmlFor="current-password">Current password</label>
        <input
          id="current-password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
        />
      </div>
      <div className="field">
        <label htmlFor="new-password">New password</label>
        <input
          id="new-password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
          aria-describedby="new-password-help"
        />
        <p className="help" id="new-password-help">
          At least 8 characters.
        </p>
      </div>
      <div className="field">
        <label htmlFor="confirm-password">New password again</label>
        <input
          id="confirm-password"
          name="confirmPassword"
          type="password"
          autoComplete="new-password"
          required
        />
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      <p role="status" className="notice-text">
        {done}
      </p>
      <div className="actions">
        <button type="submit" className="primary" disabled={!hydrated || busy}>
          Change password
        </button>
      </div>
    </form>
  );
}
