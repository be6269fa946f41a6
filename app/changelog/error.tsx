"use client";

import Link from "next/link";

// What /changelog shows when rendering it fails. While the database is known to be down, the proxy answers a 503
// page before rendering; this covers the request that finds it down first (a 500) and any other failure.
export default function ChangelogError({ error }: { error: Error & { digest?: string } }) {
  return (
    <div className="docs-content">
      <h1>Changelog</h1>
      <p className="lead">The changelog could not be loaded.</p>
      <p>
        Its database may be briefly unreachable. {/* A full reload, so that the proxy can answer it. */}
        <a href="/changelog">Try again</a> in a few seconds; the <Link href="/docs">guides</Link> and the{" "}
        <Link href="/reference">API reference</Link> do not need it.
      </p>
      {error.digest ? <p className="muted">Error reference: {error.digest}</p> : null}
    </div>
  );
}
