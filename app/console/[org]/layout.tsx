import type { ReactNode } from "react";
import { OrgNav } from "@/components/console/org-nav";
import { redirect } from "next/navigation";
import { listMemberships, requireRole, type Actor } from "@/lib/console/access";
import { ConsoleError } from "@/lib/console/console-errors";
import type { Queryable } from "@/db/client";
import { previewOn } from "@/lib/preview";
import { optionalPageSession } from "../page-session";

export const dynamic = "force-dynamic";

// An organization's pages: its navigation above the page, for a member only (each page checks the role it needs and
// answers "not found" to anyone else).
export default async function OrgLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ org: string }>;
}) {
  const { org: slug } = await params;
  const session = await optionalPageSession();
  const member = session
    ? (await listMemberships(session.db, session.user.id)).some((m) => m.org.slug === slug)
    : false;
  if (!session || !member) return children;
  // An organization that requires two-factor sign-in: a member whose session does not meet it is sent to set it up
  // (its routes refuse them with CONSOLE_TWO_FACTOR_REQUIRED; each page's own check throws the same).
  if (await twoFactorMissing(session.db, session.user, slug))
    redirect(`/console/account?required=${encodeURIComponent(slug)}`);
  return (
    <>
      <OrgNav slug={slug} webhooks={previewOn("webhooks", session.config)} />
      {children}
    </>
  );
}

// True when the organization requires two-factor sign-in and this member's session does not meet it.
async function twoFactorMissing(db: Queryable, user: Actor, slug: string): Promise<boolean> {
  try {
    await requireRole(db, user, slug, "member");
    return false;
  } catch (err) {
    if (err instanceof ConsoleError && err.code === "CONSOLE_TWO_FACTOR_REQUIRED") return true;
    throw err;
  }
}
