import { headers } from "next/headers";
import type { ReactNode } from "react";
import { OrgNav } from "@/components/console/org-nav";
import { listMemberships } from "@/lib/console/access";
import { getConsoleUser } from "@/lib/console/session";
import { previewOn } from "@/lib/preview";
import { getRuntime } from "@/lib/runtime";

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
  const rt = getRuntime();
  const user = await getConsoleUser(await headers(), rt).catch(() => null);
  const member = user
    ? (await listMemberships(await rt.db(), user.id)).some((m) => m.org.slug === slug)
    : false;
  if (!member) return children;
  return (
    <>
      <OrgNav slug={slug} webhooks={previewOn("webhooks", rt.config)} />
      {children}
    </>
  );
}
