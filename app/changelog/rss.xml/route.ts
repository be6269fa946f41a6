import { changelogFeedResponse } from "@/lib/portal/changelog-reader";

export const dynamic = "force-dynamic";

// GET /changelog/rss.xml: the changelog as RSS 2.0; 503 in the public API's error shape while the database is down.
export function GET(): Promise<Response> {
  return changelogFeedResponse("rss");
}
