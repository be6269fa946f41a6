import type { Metadata } from "next";
import Link from "next/link";
import { CONSOLE_PATH } from "@/lib/portal/console-keys";

// Title and description of the 404 page (Next.js adds robots noindex to a 404 answer).
export const metadata: Metadata = {
  title: "Page not found",
  description:
    "This page does not exist. Search the documentation of the Public Catalog API, or go back to its guides, reference or changelog.",
};

const WAYS_BACK = [
  { href: "/", label: "Home", text: "What the API is, and a first request in a minute." },
  { href: "/docs", label: "Guides", text: "From the first request to production: keys, pagination, errors." },
  {
    href: "/reference",
    label: "API reference",
    text: "Every endpoint, parameter, field and error, with try-it.",
  },
  { href: "/changelog", label: "Changelog", text: "What changed, and what is planned." },
  { href: CONSOLE_PATH, label: "Console", text: "Sign in to make and manage your organization's API keys." },
];

// The portal's 404, inside the root layout (header, navigation, footer): a search form and the ways back, in the
// portal's own styles (no inline style: the CSP refuses them). Unknown paths, notFound() of a page and the malformed
// paths the production server sends to /_not-found all end here.
export default function NotFound() {
  return (
    <div className="docs-content not-found">
      <p className="muted status-code">404</p>
      <h1>Page not found</h1>
      <p className="lead">
        There is no page at this address. Search the documentation, or start again from one of these pages.
      </p>
      <form role="search" action="/search" method="get" className="big-search">
        <label htmlFor="not-found-q" className="visually-hidden">
          Search guides and reference
        </label>
        <input id="not-found-q" name="q" type="search" placeholder="perPage, 429, scope…" />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ul className="cards">
        {WAYS_BACK.map((w) => (
          <li key={w.href} className="card">
            <h2>
              <Link href={w.href}>{w.label}</Link>
            </h2>
            <p>{w.text}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}
