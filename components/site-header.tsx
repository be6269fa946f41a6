import Link from "next/link";
import { CONSOLE_PATH } from "@/lib/portal/console-keys";
import { ThemeToggle, type Theme } from "./theme-toggle";

// The header of every portal page: name, main navigation (with the console, where keys are made), search and theme.
export function SiteHeader({ theme }: { theme: Theme }) {
  return (
    <header className="site-header">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="site-header-inner">
        <Link href="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            {"{ }"}
          </span>
          Public Catalog API
        </Link>
        <nav aria-label="Main" className="main-nav">
          <Link href="/docs">Guides</Link>
          <Link href="/reference">Reference</Link>
          <Link href="/changelog">Changelog</Link>
          <Link href={CONSOLE_PATH}>Console</Link>
        </nav>
        <form role="search" action="/search" method="get" className="search-form">
          <label htmlFor="site-search" className="visually-hidden">
            Search the documentation
          </label>
          <input id="site-search" name="q" type="search" placeholder="Search docs…" autoComplete="off" />
          <button type="submit" className="visually-hidden">
            Search
          </button>
        </form>
        <ThemeToggle initial={theme} />
      </div>
    </header>
  );
}
