"use client";
// The account page's sessions: every live console session of the account (started, last seen, address, browser),
// this browser's marked, each other one with its own "Sign out" (POST /api/console/account/sessions/<id>/sign-out;
// the server ends only the account's own sessions). A status line announces the outcome, and the focus goes to the
// section's title once the row is gone.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { DataTable } from "@/components/data-table";
import { useHydrated } from "@/components/use-hydrated";
import type { AccountSession } from "@/lib/console/session-list";
import { FormError } from "./field";
import { formatTime } from "./format";
import { useConsolePost } from "./use-console-post";

export function SessionsList({ sessions, csrfToken }: { sessions: AccountSession[]; csrfToken: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const { post, error, busy } = useConsolePost(csrfToken);
  const [ended, setEnded] = useState<string[]>([]);
  const [announcement, setAnnouncement] = useState("");
  const title = useRef<HTMLHeadingElement>(null);
  const shown = sessions.filter((s) => !ended.includes(s.id));

  useEffect(() => {
    if (ended.length) title.current?.focus();
  }, [ended]);

  async function signOut(session: AccountSession) {
    const done = await post<{ signedOut: true }>(
      `/api/console/account/sessions/${encodeURIComponent(session.id)}/sign-out`,
      {},
    );
    if (!done) return;
    setEnded((e) => [...e, session.id]);
    setAnnouncement(`Signed out the session of ${session.browser} at ${session.address}.`);
    router.refresh();
  }

  return (
    <section className="console-section" aria-labelledby="sessions-title">
      <h2 id="sessions-title" ref={title} tabIndex={-1}>
        Sessions
      </h2>
      <p>
        Where your account is signed in to the console. Signing a session out ends it at once, a copy of its
        cookie too; &ldquo;Sign out everywhere&rdquo; at the top ends them all.
      </p>
      <DataTable label="Your sessions">
        <thead>
          <tr>
            <th scope="col">Browser</th>
            <th scope="col">Address</th>
            <th scope="col">Started</th>
            <th scope="col">Last seen</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => (
            <tr key={s.id}>
              <td>{s.browser}</td>
              <td>{s.address}</td>
              <td>{formatTime(s.startedAt)}</td>
              <td>{formatTime(s.lastSeenAt)}</td>
              <td>
                {s.current ? (
                  <strong>This session</strong>
                ) : (
                  <button
                    type="button"
                    className="secondary"
                    disabled={!hydrated || busy}
                    onClick={() => signOut(s)}
                    aria-label={`Sign out ${s.browser} at ${s.address}, started ${formatTime(s.startedAt)}`}
                  >
                    Sign out
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </DataTable>
      <FormError text={error} />
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </section>
  );
}
