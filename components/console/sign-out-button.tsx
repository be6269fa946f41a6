"use client";
// The console's sign-out buttons: "Sign out" (POST /api/auth/signout with Auth.js' CSRF token) and, given the page's
// console CSRF token, "Sign out everywhere" (POST /api/console/sign-out-everywhere first). "Sign out" ends this
// browser's session only; "Sign out everywhere" every session of the account. Then the sign-in page.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useHydrated } from "@/components/use-hydrated";

// Signs the user out of the console; `everywhereCsrfToken` makes it the "Sign out everywhere" button.
export function SignOutButton({ everywhereCsrfToken }: { everywhereCsrfToken?: string } = {}) {
  const [busy, setBusy] = useState(false);
  const router = useRouter();
  const hydrated = useHydrated();

  async function signOut() {
    setBusy(true);
    try {
      if (everywhereCsrfToken) {
        await fetch("/api/console/sign-out-everywhere", {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": everywhereCsrfToken },
          body: "{}",
          cache: "no-store",
        });
      }
      // Auth.js' sign-out ends this session (when it was not ended above) and clears its cookie.
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
    <button type="button" className="secondary" onClick={signOut} disabled={busy || !hydrated}>
      {everywhereCsrfToken ? "Sign out everywhere" : "Sign out"}
    </button>
  );
}
