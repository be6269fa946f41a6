"use client";
// An owner's setting of one organization: require two-factor sign-in of its members (a checkbox and a save button;
// the server refuses to require it while the owner's own account lacks it, and says so).
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useHydrated } from "@/components/use-hydrated";
import { FormFooter } from "./field";
import { useConsolePost } from "./use-console-post";

export function OrgTwoFactorSetting({
  org,
  orgName,
  required,
  csrfToken,
}: {
  org: string;
  orgName: string;
  required: boolean;
  csrfToken: string;
}) {
  const router = useRouter();
  const hydrated = useHydrated();
  const { post, error, busy } = useConsolePost(csrfToken);
  const [saved, setSaved] = useState("");
  const id = `require-2fa-${org}`;

  async function save(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setSaved("");
    const want = new FormData(e.currentTarget).get("required") === "on";
    const r = await post(`/api/console/orgs/${encodeURIComponent(org)}/two-factor`, { required: want });
    if (!r) return;
    setSaved(want ? "Saved: two-factor sign-in is required." : "Saved: two-factor sign-in is not required.");
    router.refresh();
  }

  return (
    <form className="console-form" onSubmit={save} aria-label={`Two-factor requirement of ${orgName}`}>
      <div className="check">
        <input
          id={id}
          name="required"
          type="checkbox"
          defaultChecked={required}
          aria-describedby={`${id}-help`}
        />{" "}
        <label htmlFor={id}>Require two-factor sign-in of every member</label>
      </div>
      <p className="help" id={`${id}-help`}>
        Members without it are refused this organization&apos;s pages and API routes until they set it up.
        Members signed in through your identity provider (SSO) pass: its own multi-factor policy applies.
      </p>
      <FormFooter
        error={error}
        notice={saved}
        submit="Save"
        className="secondary"
        disabled={!hydrated || busy}
      />
    </form>
  );
}
