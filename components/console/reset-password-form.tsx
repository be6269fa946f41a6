"use client";
// The reset page's form: a new password (twice) sent with the link's token to /api/console/account/reset-password
// (no session needed: the link is the credential). Done: a link to sign in; a used or expired link: said so.
import Link from "next/link";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useHydrated } from "@/components/use-hydrated";
import { FormFooter } from "./field";
import { NewPasswordFields } from "./new-password-fields";
import { useConsolePost } from "./use-console-post";

export function ResetPasswordForm({ token }: { token: string }) {
  const hydrated = useHydrated();
  // No session and no CSRF token: the link's token is the credential.
  const { post, error, setError, busy } = useConsolePost(null);
  const [done, setDone] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  // Done: the focus on the outcome's title, once it is on the page.
  useEffect(() => {
    if (done) heading.current?.focus();
  }, [done]);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const password = String(data.get("password") ?? "");
    if (password !== String(data.get("confirm") ?? "")) {
      setError("The two passwords differ.");
      return;
    }
    if (await post("/api/console/account/reset-password", { token, password })) setDone(true);
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
      <NewPasswordFields
        id="reset-password"
        name="password"
        confirmId="reset-confirm"
        confirmName="confirm"
        autoFocus
      />
      <FormFooter error={error} submit="Set password" disabled={!hydrated || busy} />
    </form>
  );
}
