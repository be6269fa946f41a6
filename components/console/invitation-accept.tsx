"use client";
// The invitation page's actions: "Join <org>" for the signed-in invited account, or the new account's form (name and
// password, at least 8 characters as `npm run users` requires) after which the user signs in at /console/sign-in.
// Errors are announced (role="alert") and an invalid field gets its message next to it and the focus.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useHydrated } from "@/components/use-hydrated";
import { useFieldErrors } from "./field-error";
import { useConsolePost } from "./use-console-post";
import { Field, FormError, FormFooter } from "./field";

type Props =
  | { mode: "join"; token: string; orgName: string; csrfToken: string }
  | { mode: "register"; token: string; orgName: string; email: string };

// The register form's inputs, by the code the server names their field with.
const INPUTS = { name: "invite-name", password: "invite-password" };

// The action the page offers for a valid link.
export function InvitationAccept(props: Props) {
  const router = useRouter();
  const hydrated = useHydrated();
  const post = useConsolePost(props.mode === "join" ? props.csrfToken : "");
  const [registered, setRegistered] = useState<{ org: string } | null>(null);
  const doneRef = useRef<HTMLDivElement>(null);
  const error = useFieldErrors(post.error, INPUTS);

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
        <FormError text={error.text} />
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
      <Field id="invite-email-shown" label="Email">
        <input id="invite-email-shown" type="email" value={props.email} readOnly autoComplete="username" />
      </Field>
      <Field id="invite-name" label="Your name" error={error.of("name")}>
        {(aria) => (
          <input
            id="invite-name"
            name="name"
            type="text"
            required
            maxLength={200}
            autoComplete="name"
            {...aria}
          />
        )}
      </Field>
      <Field id="invite-password" label="Password" help="At least 8 characters." error={error.of("password")}>
        {(aria) => (
          <input
            id="invite-password"
            name="password"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            {...aria}
          />
        )}
      </Field>
      <FormFooter error={error.form} submit="Create account and join" disabled={post.busy || !hydrated} />
    </form>
  );
}
