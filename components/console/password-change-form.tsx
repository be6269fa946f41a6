"use client";
// The account page's "Change password": the current password and the new one (twice, checked here). On success every
// other session of the account is ended and this one re-issued by the server; the page is refreshed for its new CSRF
// token and a status line says so.
import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { useHydrated } from "@/components/use-hydrated";
import { Field, FormFooter } from "./field";
import { NewPasswordFields } from "./new-password-fields";
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
      <Field id="current-password" label="Current password">
        <input
          id="current-password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
        />
      </Field>
      <NewPasswordFields
        id="new-password"
        name="newPassword"
        confirmId="confirm-password"
        confirmName="confirmPassword"
      />
      <FormFooter error={error} notice={done} submit="Change password" disabled={!hydrated || busy} />
    </form>
  );
}
