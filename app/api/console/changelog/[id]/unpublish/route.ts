// Unpublishes a changelog entry (product team only): a draft again, gone from /changelog and the feeds at once.
import { consoleRoute } from "@/lib/console/http";
import { unpublishEntry } from "@/lib/console/changelog-editor";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ id: string }>(({ db, user, params }) =>
  unpublishEntry(db, user, params.id),
);
