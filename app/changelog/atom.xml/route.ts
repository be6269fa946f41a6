import { changelogFeedResponse } from "@/lib/portal/changelog-reader";

export const dynamic = "force-dynamic";

// GET /changelog/atom.xml: the changelog as Atom 1.0; 503 in the public API's error shape while the database is down.
export function GET(): Promise<Response> {
  return changelogFeedResponse("atom");
}
