import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { OrgSwitcher } from "@/components/console/org-switcher";
import { SignOutButton } from "@/components/console/sign-out-button";
import { listMemberships } from "@/lib/console/access";
import "./console.css";
import { optionalPageSession } from "./page-session";

export const metadata: Metadata = {
  title: { default: "Console", template: "%s · Console" },
  robots: { index: false },
};
export const dynamic = "force-dynamic";

// The console's frame: for a signed-in user, a bar with their organizations, their email and sign-out; the sign-in
// page (no user) gets the page alone.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await optionalPageSession();
  if (!session) return children;
  const { user } = session;
  const memberships = await listMemberships(session.db, user.id);
  return (
    <>
      <div className="console-bar">
        <nav aria-label="Console">
          <Link href="/console">Console</Link>
          {user.isStaff ? <Link href="/console/changelog">Changelog</Link> : null}
          <Link href="/console/account">Account</Link>
        </nav>
        {memberships.length ? (
          <OrgSwitcher
            orgs={memberships.map((m) => ({ slug: m.org.slug, name: m.org.name, role: m.role }))}
          />
        ) : null}
        <span className="console-user">{user.email}</span>
        <SignOutButton />
        <SignOutButton everywhereCsrfToken={session.csrfToken} />
      </div>
      {children}
    </>
  );
}
