// One changelog entry (product team only): GET answers it with its history; POST or PUT edits it (any fields).
import { consoleRoute } from "@/lib/console/http";
import { changelogEndpointPaths, editEntry, getEditorEntry } from "@/lib/console/changelog-editor";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ id: string }>(({ db, user, params }) =>
  getEditorEntry(db, user, params.id),
);
export const POST = consoleRoute<{ id: string }>(({ db, config, state, user, params, body }) =>
  editEntry(db, changelogEndpointPaths(config, state), user, params.id, body),
);
export const PUT = POST;
