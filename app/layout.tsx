import type { Metadata, Viewport } from "next";
import { GeistMono } from "geist/font/mono";
import { GeistSans } from "geist/font/sans";
import { cookies } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { SiteHeader } from "@/components/site-header";
import type { Theme } from "@/components/theme-toggle";
import { getConfig } from "@/lib/config";
import "./globals.css";

// Site-wide metadata: title template, description, absolute base and the changelog feeds.
export async function generateMetadata(): Promise<Metadata> {
  const { baseUrl } = getConfig();
  return {
    metadataBase: new URL(baseUrl),
    title: { default: "Public Catalog API", template: "%s · Public Catalog API" },
    description:
      "Read-only HTTP/JSON API over your organization's product catalog: guides, reference and changelog.",
    // An inline icon: no /favicon.ico request, nothing from another origin.
    icons: {
      icon: `data:image/svg+xml,${encodeURIComponent(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b4fd8"/><text x="16" y="22" font-family="monospace" font-size="16" font-weight="700" fill="#fff" text-anchor="middle">{}</text></svg>',
      )}`,
    },
    alternates: {
      types: {
        "application/rss+xml": [{ url: "/changelog/rss.xml", title: "Public Catalog API changelog (RSS)" }],
        "application/atom+xml": [
          { url: "/changelog/atom.xml", title: "Public Catalog API changelog (Atom)" },
        ],
      },
    },
  };
}

// Viewport and browser theme colours for light and dark.
export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#0b0d12" },
  ],
};

// Root layout of the portal: fonts from the geist package, the theme from its cookie, header and footer.
export default async function RootLayout({ children }: { children: ReactNode }) {
  const stored = (await cookies()).get("theme")?.value;
  const theme: Theme = stored === "light" || stored === "dark" ? stored : "system";
  return (
    <html
      lang="en"
      data-theme={theme === "system" ? undefined : theme}
      className={`${GeistSans.variable} ${GeistMono.variable}`}
    >
      <body>
        <SiteHeader theme={theme} />
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        <footer className="site-footer">
          <p>
            Public Catalog API V1 · <Link href="/docs/getting-started">Get started</Link> ·{" "}
            <a href="/public/v1/openapi.json">OpenAPI 3.1</a> · <a href="/changelog/rss.xml">RSS</a> ·{" "}
            <a href="/changelog/atom.xml">Atom</a>
          </p>
        </footer>
      </body>
    </html>
  );
}
