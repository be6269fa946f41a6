"use client";
// An organization's pages in the console (under /console/<org>/): keys, members, usage, requests, audit log and,
// when the preview is on, webhooks; the current page marked for assistive technology. Pages that need a role check
// it on the server: a link shown here grants nothing.
import Link from "next/link";
import { usePathname } from "next/navigation";

// The organization's pages, in the order shown.
const PAGES = [
  { path: "keys", label: "API keys" },
  { path: "members", label: "Members" },
  { path: "usage", label: "Usage" },
  { path: "requests", label: "Request log" },
  { path: "audit", label: "Audit log" },
  { path: "webhooks", label: "Webhooks", preview: "webhooks" },
] as const;

// The navigation between an organization's pages.
export function OrgNav({ slug, webhooks }: { slug: string; webhooks: boolean }) {
  const pathname = usePathname();
  const base = `/console/${encodeURIComponent(slug)}`;
  return (
    <nav aria-label="Organization" className="org-nav">
      <ul>
        {PAGES.filter((p) => !("preview" in p) || webhooks).map((p) => {
          const href = `${base}/${p.path}`;
          const current = pathname === href || pathname.startsWith(`${href}/`);
          return (
            <li key={p.path}>
              <Link href={href} aria-current={current ? "page" : undefined}>
                {p.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
