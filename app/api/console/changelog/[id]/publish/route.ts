// Publishes a changelog entry (product team only): on /changelog and in the feeds at once.
import { consoleRoute } from "@/lib/console/http";
import { publishEntry } from "@/lib/console/changelog-editor";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ id: string }>(({ db, user, params }) => publishEntry(db, user, params.id));
