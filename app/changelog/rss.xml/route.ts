import { getConfig } from "@/lib/config";
import { changelogFeed, listChangelog } from "@/lib/portal/changelog";

export const dynamic = "force-dynamic";

// GET /changelog/rss.xml: the changelog as RSS 2.0.
export async function GET(): Promise<Response> {
  const xml = changelogFeed(await listChangelog(), getConfig().baseUrl, "rss");
  return new Response(xml, {
    headers: { "Content-Type": "application/rss+xml; charset=utf-8", "Cache-Control": "public, max-age=300" },
  });
}
