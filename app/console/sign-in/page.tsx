import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/console/sign-in-form";
import { getRuntime } from "@/lib/runtime";
import { optionalPageSession } from "../page-session";

export const metadata: Metadata = { title: "Sign in", robots: { index: false } };
export const dynamic = "force-dynamic";

// What the sign-in page says after a refused attempt (Auth.js sends ?error=…&code=…); never which part was wrong.
function errorMessage(error: string | undefined, code: string | undefined): string | null {
  if (!error) return null;
  if (error === "CredentialsSignin" && code === "rate_limited")
    return "Too many failed attempts. Try again later.";
  if (error === "CredentialsSignin" && code === "unavailable")
    return "Sign-in is unavailable at the moment. Try again later.";
  if (error === "CredentialsSignin" && code === "two_factor")
    return "Enter your password again and the code of your authenticator app.";
  if (error === "CredentialsSignin" && code === "two_factor_failed") return "Incorrect password or code.";
  if (error === "CredentialsSignin") return "Incorrect email or password.";
  if (error === "AccessDenied")
    return "This account cannot sign in here. Ask an administrator to invite your email address.";
  return "Sign-in failed. Try again.";
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

// Only a path on this site is a place to land after sign-in.
function safeCallback(v: string | undefined): string {
  return v && v.startsWith("/console") && !v.startsWith("//") ? v : "/console";
}

// The console's sign-in page: email and password, and SSO when an OpenID Connect provider is configured.
export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const callbackUrl = safeCallback(first(params.callbackUrl));
  const message = errorMessage(first(params.error), first(params.code));
  // Already signed in: straight on (a database that cannot answer just shows the form).
  const session = message ? null : await optionalPageSession();
  if (session) redirect(callbackUrl);
  const { config } = getRuntime();
  const sso = Boolean(
    config.AUTH_OIDC_ISSUER && config.AUTH_OIDC_CLIENT_ID && config.AUTH_OIDC_CLIENT_SECRET,
  );
  return (
    <div className="sign-in">
      <h1>Sign in to the console</h1>
      <p className="lead">Manage your organization&apos;s API keys and see its audit log.</p>
      {message ? (
        <p className="error-text" role="alert">
          {message}
        </p>
      ) : null}
      <SignInForm
        sso={sso}
        callbackUrl={callbackUrl}
        retry={Boolean(message)}
        askCode={first(params.code) === "two_factor" || first(params.code) === "two_factor_failed"}
      />
    </div>
  );
}
