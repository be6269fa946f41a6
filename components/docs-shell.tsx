import Link from "next/link";
import type { ReactNode } from "react";
import { getGuides } from "@/lib/portal/guides";
import { getReferenceEndpoints } from "@/lib/portal/reference";
import { DocsNav } from "./docs-nav";

// The two-column frame of guides and reference pages: a sidebar of every page (one button above the content on a
// phone) and the content.
export function DocsShell({ current, children }: { current: string; children: ReactNode }) {
  const guides = getGuides();
  const endpoints = getReferenceEndpoints();
  const link = (href: string, label: ReactNode) => (
    <li key={href}>
      <Link href={href} aria-current={current === href ? "page" : undefined}>
        {label}
      </Link>
    </li>
  );
  return (
    <div className="docs-shell">
      <DocsNav label="Documentation">
        <h2>Guides</h2>
        <ul>{guides.map((g) => link(`/docs/${g.slug}`, g.title))}</ul>
        <h2>Reference</h2>
        <ul>
          {link("/reference", "Overview")}
          {endpoints.map((e) =>
            link(
              `/reference/${e.slug}`,
              <>
                <span className="method">GET</span> {e.path.replace("/public/v1", "")}
                {e.preview ? (
                  <>
                    {" "}
                    <span className="tag changed">Preview</span>
                  </>
                ) : null}
              </>,
            ),
          )}
        </ul>
        <h2>More</h2>
        <ul>
          {link("/changelog", "Changelog")}
          <li>
            <a href="/public/v1/openapi.json">OpenAPI document</a>
          </li>
        </ul>
      </DocsNav>
      <div className="docs-content">{children}</div>
    </div>
  );
}
