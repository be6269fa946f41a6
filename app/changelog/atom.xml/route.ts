import { getConfig } from "@/lib/config";
import { changelogFeed, listChangelog } from "@/lib/portal/changelog";

export const dynamic = "force-dynamic";

// GET /changelog/atom.xml: the changelog as Atom 1.0.
export async function GET(): Promise<Response> {
  const xml = changelogFeed(await listChangelog(), getConfig().baseUrl, "atom");
  return new Response(xml, {
    headers: {
      "Content-Type": "application/atom+xml; charset=utf-8",
      "Cache-Control": "public, max-age=300",
    },
  });
}
