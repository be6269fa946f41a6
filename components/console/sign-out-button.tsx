"use client";
// The console's sign-out button: POST /api/auth/signout with Auth.js' CSRF token, then the sign-in page.
import { useRouter } from "next/navigation";
import { useState } from "react";

// Signs the user out of the console.
export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  const router = useRouter();

  async function signOut() {
    setBusy(true);
    try {
      const csrf = await fetch("/api/auth/csrf", { cache: "no-store" });
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      await fetch("/api/auth/signout", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1" },
        body: new URLSearchParams({ csrfToken, callbackUrl: "/console/sign-in" }),
      });
    } finally {
      router.replace("/console/sign-in");
      router.refresh();
    }
  }

  return (
    <button type="button" className="secondary" onClick={signOut} disabled={busy}>
      Sign out
    </button>
  );
}
