"use client";
// An owner's "Reset password" for one member: POST /api/console/orgs/<org>/members/<userId>/password-reset, then the
// link shown once (no mail server: the owner copies it and hands it over), with when it stops working. Exported for
// the members page: <PasswordResetButton org={slug} userId={member.userId} email={member.email} csrfToken={token} />
// (render it for owners only; the server checks the role again and refuses anyone else).
import { useEffect, useRef, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { useHydrated } from "@/components/use-hydrated";
import { formatTime } from "./format";
import { useConsolePost } from "./use-console-post";
import { FormError } from "./field";

// The button, and the link once issued.
export function PasswordResetButton({
  org,
  userId,
  email,
  csrfToken,
}: {
  org: string;
  userId: string;
  email: string;
  csrfToken: string;
}) {
  const hydrated = useHydrated();
  const { post, error, busy } = useConsolePost(csrfToken);
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
  const panel = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // Done: the focus goes back to the button once it is on the page again.
  const refocus = useRef(false);

  useEffect(() => {
    if (link) panel.current?.focus();
    else if (refocus.current) {
      refocus.current = false;
      button.current?.focus();
    }
  }, [link]);

  async function issue() {
    const path = `/api/console/orgs/${encodeURIComponent(org)}/members/${encodeURIComponent(userId)}/password-reset`;
    const issued = await post<{ url: string; expiresAt: string }>(path, {});
    if (issued) setLink(issued);
  }

  if (link)
    return (
      <div
        className="new-key reset-link"
        ref={panel}
        role="group"
        tabIndex={-1}
        aria-label={`Password reset link for ${email}`}
      >
        <p>
          Reset link for <strong>{email}</strong>, shown once: copy it and hand it over. It works once, until{" "}
          {formatTime(link.expiresAt)}.
        </p>
        <code>{link.url}</code>
        <div className="row-actions">
          <CopyButton text={link.url} label="Copy link" />
          <button
            type="button"
            className="secondary"
            onClick={() => {
              refocus.current = true;
              setLink(null);
            }}
          >
            Done
          </button>
        </div>
      </div>
    );
  return (
    <>
      <button
        type="button"
        className="secondary"
        ref={button}
        disabled={!hydrated || busy}
        onClick={issue}
        aria-label={`Reset password of ${email}`}
      >
        Reset password…
      </button>
      <FormError text={error} />
    </>
  );
}
