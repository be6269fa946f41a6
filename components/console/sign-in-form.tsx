"use client";
// The console's sign-in forms: email + password (a normal form POST to Auth.js' credentials callback, relative: it
// answers on the address the page was opened at) and, when configured, "Sign in with SSO". Both need Auth.js' CSRF
// token, fetched once on load (it also sets its cookie). After a refused attempt the email typed is back in its field.
import { useEffect, useRef, useState } from "react";

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
}: {
  sso: boolean;
  callbackUrl: string;
  retry?: boolean;
}) {
  const [csrfToken, setCsrfToken] = useState<string | null>(null);
  const emailInput = useRef<HTMLInputElement>(null);
  const [failed, setFailed] = useState(false);
  const [redirecting, setRedirecting] = useState(false);

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
      <form
        className="sign-in-form"
        method="post"
        action="/api/auth/callback/credentials"
        onSubmit={() => sessionStorage.setItem(EMAIL_KEY, emailInput.current?.value ?? "")}
      >
        <input type="hidden" name="csrfToken" value={csrfToken ?? ""} />
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <div className="field">
          <label htmlFor="sign-in-email">Email</label>
          <input
            id="sign-in-email"
            name="email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            ref={emailInput}
          />
        </div>
        <div className="field">
          <label htmlFor="sign-in-password">Password</label>
          <input
            id="sign-in-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
          />
        </div>
        <button type="submit" className="primary" disabled={!csrfToken}>
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
