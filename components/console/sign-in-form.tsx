"use client";
// The console's sign-in forms: email + password (a POST to Auth.js' credentials callback, relative: it answers on the
// address the page was opened at) and, when configured, "Sign in with SSO". Both need Auth.js' CSRF token, fetched
// once on load (it also sets its cookie). After a refused attempt the email typed is back in its field.
// Two-factor: the password form is sent with fetch (X-Auth-Return-Redirect: Auth.js answers the URL it would redirect
// to); when that URL asks for the code (?code=two_factor, after any password of an account with two-factor), the form
// reveals a code field and keeps the email and password typed, and the next submit sends all three. A refused code
// (?code=two_factor_failed) is said next to the form, without telling whether the password or the code was wrong.
// Any other answer (signed in, refused, rate-limited) is followed as the redirect it is.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Field, FormError } from "./field";

let inflight: Promise<string> | undefined;

// Where the form keeps the email it sent, for the page that tells why it was refused (this tab only).
const EMAIL_KEY = "console-sign-in-email";

// Auth.js' CSRF token (its cookie is set by the same answer). Concurrent calls share one request: two answers
// racing would leave the cookie of one and the token of the other (React runs effects twice in development).
function fetchCsrfToken(): Promise<string> {
  inflight ??= fetch("/api/auth/csrf", { cache: "no-store" })
    .then(async (res) => {
      if (!res.ok) throw new Error(`csrf ${res.status}`);
      return ((await res.json()) as { csrfToken: string }).csrfToken;
    })
    .finally(() => {
      inflight = undefined;
    });
  return inflight;
}

// The sign-in forms; `sso` shows the SSO button, `callbackUrl` is where a successful sign-in lands, `retry` says the
// page tells of a refused attempt (the email sent is then filled in again).
export function SignInForm({
  sso,
  callbackUrl,
  retry = false,
  askCode = false,
}: {
  sso: boolean;
  callbackUrl: string;
  retry?: boolean;
  /** Show the code field from the start (the page was reached with ?code=two_factor without script). */
  askCode?: boolean;
}) {
  const [csrfToken, setCsrfToken] = useState<string | null>(null);
  const emailInput = useRef<HTMLInputElement>(null);
  const codeInput = useRef<HTMLInputElement>(null);
  const [failed, setFailed] = useState(false);
  const [redirecting, setRedirecting] = useState(false);
  const [codeStep, setCodeStep] = useState(askCode);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  // Bumped at each answer that asks for the code: the code field then takes the focus (and is emptied).
  const [codeAsked, setCodeAsked] = useState(0);

  useEffect(() => {
    if (codeAsked && codeInput.current) {
      codeInput.current.value = "";
      codeInput.current.focus();
    }
  }, [codeAsked]);

  // Sends the form with fetch; follows the answer, or reveals the code step.
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    sessionStorage.setItem(EMAIL_KEY, emailInput.current?.value ?? "");
    setSubmitting(true);
    setCodeError(null);
    try {
      const res = await fetch(e.currentTarget.action, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1" },
        body: new URLSearchParams(
          [...new FormData(e.currentTarget)].map(([k, v]) => [k, String(v)] as [string, string]),
        ),
      });
      const { url } = (await res.json()) as { url: string };
      const next = new URL(url, window.location.href);
      const code = next.pathname === "/console/sign-in" ? next.searchParams.get("code") : null;
      if (code === "two_factor" || code === "two_factor_failed") {
        setCodeStep(true);
        setCodeError(
          code === "two_factor_failed" ? "Incorrect password or code. Check both and try again." : null,
        );
        setCodeAsked((n) => n + 1);
        setSubmitting(false);
        return;
      }
      window.location.assign(next.href);
    } catch {
      setSubmitting(false);
      setFailed(true);
    }
  }

  useEffect(() => {
    const sent = retry ? sessionStorage.getItem(EMAIL_KEY) : null;
    if (sent && emailInput.current && !emailInput.current.value) emailInput.current.value = sent;
  }, [retry]);

  useEffect(() => {
    let live = true;
    fetchCsrfToken().then(
      (token) => live && setCsrfToken(token),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);

  // SSO: POST with the token and follow the provider's URL. A fetch rather than a form, because the CSP's
  // form-action 'self' would block a form whose answer redirects to the provider's origin.
  async function signInWithSso() {
    if (!csrfToken) return;
    setRedirecting(true);
    try {
      const res = await fetch("/api/auth/signin/oidc", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1" },
        body: new URLSearchParams({ csrfToken, callbackUrl }),
      });
      const { url } = (await res.json()) as { url: string };
      window.location.assign(url);
    } catch {
      setRedirecting(false);
      setFailed(true);
    }
  }

  return (
    <>
      <form className="sign-in-form" method="post" action="/api/auth/callback/credentials" onSubmit={submit}>
        <input type="hidden" name="csrfToken" value={csrfToken ?? ""} />
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <Field id="sign-in-email" label="Email">
          <input
            id="sign-in-email"
            name="email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            ref={emailInput}
          />
        </Field>
        <Field id="sign-in-password" label="Password">
          <input
            id="sign-in-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
          />
        </Field>
        {codeStep ? (
          <Field
            id="sign-in-code"
            label="Two-factor code"
            help="The 6-digit code of your authenticator app, or one of your recovery codes."
          >
            {(aria) => (
              <input
                id="sign-in-code"
                name="code"
                type="text"
                inputMode="text"
                autoComplete="one-time-code"
                required
                maxLength={64}
                ref={codeInput}
                {...aria}
              />
            )}
          </Field>
        ) : null}
        <FormError text={codeError} />
        <button type="submit" className="primary" disabled={!csrfToken || submitting}>
          Sign in
        </button>
      </form>
      {sso ? (
        <div className="sign-in-sso">
          <p className="help">or</p>
          <button
            type="button"
            className="secondary"
            disabled={!csrfToken || redirecting}
            onClick={signInWithSso}
          >
            Sign in with SSO
          </button>
        </div>
      ) : null}
      {failed ? (
        <p className="error-text" role="alert">
          The sign-in service could not be reached. Reload the page to try again.
        </p>
      ) : null}
    </>
  );
}
