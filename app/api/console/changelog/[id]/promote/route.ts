// Promotes a planned (roadmap) entry to released (product team only): dated { publishedOn } or today (UTC).
import { consoleRoute } from "@/lib/console/http";
import { promoteEntry } from "@/lib/console/changelog-editor";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ id: string }>(({ db, user, params, body }) =>
  promoteEntry(db, user, params.id, body),
);
