"use client";
// The console header's organization switcher: the user's organizations, the current one selected; choosing one opens
// its keys page.
import { useParams, useRouter } from "next/navigation";

// One organization the user belongs to.
export interface OrgChoice {
  slug: string;
  name: string;
  role: string;
}

// A labelled select of the user's organizations.
export function OrgSwitcher({ orgs }: { orgs: OrgChoice[] }) {
  const router = useRouter();
  const params = useParams<{ org?: string }>();
  const current = orgs.some((o) => o.slug === params.org) ? params.org : "";
  return (
    <label className="org-switcher">
      <span className="visually-hidden">Organization</span>
      <select
        value={current}
        onChange={(e) => {
          if (e.target.value) router.push(`/console/${encodeURIComponent(e.target.value)}/keys`);
        }}
      >
        {current ? null : <option value="">Choose an organization</option>}
        {orgs.map((o) => (
          <option key={o.slug} value={o.slug}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
    </label>
  );
}
