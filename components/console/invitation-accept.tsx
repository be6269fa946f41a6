"use client";
// The invitation page's actions: "Join <org>" for the signed-in invited account, or the new account's form (name and
// password, at least 8 characters as `npm run users` requires) after which the user signs in at /console/sign-in.
// Errors are announced (role="alert") and an invalid field gets its message next to it and the focus.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useHydrated } from "@/components/use-hydrated";
import { splitFieldError } from "./field-error";
import { useConsolePost } from "./use-console-post";

type Props =
  | { mode: "join"; token: string; orgName: string; csrfToken: string }
  | { mode: "register"; token: string; orgName: string; email: string };

const FIELDS = ["name", "password"] as const;

// The action the page offers for a valid link.
export function InvitationAccept(props: Props) {
  const router = useRouter();
  const hydrated = useHydrated();
  const post = useConsolePost(props.mode === "join" ? props.csrfToken : "");
  const [registered, setRegistered] = useState<{ org: string } | null>(null);
  const doneRef = useRef<HTMLDivElement>(null);
  const error = post.error ? splitFieldError(post.error, FIELDS) : null;

  useEffect(() => {
    if (error?.field) document.getElementById(`invite-${error.field}`)?.focus();
  }, [error?.field, post.error]);
  useEffect(() => {
    if (registered) doneRef.current?.focus();
  }, [registered]);

  async function join() {
    const joined = await post.post<{ org: string }>("/api/console/invitations/accept", {
      token: props.token,
    });
    if (joined) router.push(`/console/${encodeURIComponent(joined.org)}/members`);
  }

  async function register(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const made = await post.post<{ org: string }>("/api/console/invitations/register", {
      token: props.token,
      name: String(form.get("name") ?? ""),
      password: String(form.get("password") ?? ""),
    });
    if (made) setRegistered(made);
  }

  if (props.mode === "join") {
    return (
      <>
        {error ? (
          <p className="error-text" role="alert">
            {error.text}
          </p>
        ) : null}
        <button type="button" className="primary" disabled={post.busy || !hydrated} onClick={join}>
          Join {props.orgName}
        </button>
      </>
    );
  }

  if (registered) {
    const callback = `/console/${encodeURIComponent(registered.org)}/members`;
    return (
      <div ref={doneRef} tabIndex={-1} role="status">
        <h2>Your account is ready</h2>
        <p>
          You are a member of {props.orgName}. Sign in with {props.email} and the password you chose.
        </p>
        <p>
          <Link href={`/console/sign-in?callbackUrl=${encodeURIComponent(callback)}`}>Sign in</Link>
        </p>
      </div>
    );
  }

  return (
    <form className="console-form" onSubmit={register} noValidate>
      <h2>Create your account</h2>
      <p>No account exists for {props.email} yet: choose your name and a password to join.</p>
      <div className="field">
        <label htmlFor="invite-email-shown">Email</label>
        <input id="invite-email-shown" type="email" value={props.email} readOnly autoComplete="username" />
      </div>
      <div className="field">
        <label htmlFor="invite-name">Your name</label>
        <input
          id="invite-name"
          name="name"
          type="text"
          required
          maxLength={200}
          autoComplete="name"
          aria-describedby={error?.field === "name" ? "invite-name-error" : undefined}
          aria-invalid={error?.field === "name" || undefined}
        />
        {error?.field === "name" ? (
          <p id="invite-name-error" className="field-error">
            {error.text}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="invite-password">Password</label>
        <input
          id="invite-password"
          name="password"
          type="password"
          required
          minLength={8}
          autoComplete="new-password"
          aria-describedby={
            error?.field === "password"
              ? "invite-password-error invite-password-help"
              : "invite-password-help"
          }
          aria-invalid={error?.field === "password" || undefined}
        />
        {error?.field === "password" ? (
          <p id="invite-password-error" className="field-error">
            {error.text}
          </p>
        ) : null}
        <p id="invite-password-help" className="help">
          At least 8 characters.
        </p>
      </div>
      {error && !error.field ? (
        <p className="error-text" role="alert">
          {error.text}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={post.busy || !hydrated}>
          Create account and join
        </button>
      </div>
    </form>
  );
}
